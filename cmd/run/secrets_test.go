package runcmd

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/runner/sim"
)

// TestSecretsNeverStored runs against a server that echoes the client's
// API key in the error body of every decode request, reached through a
// URL with a password, with a launch command that sets a key after
// "cd … &&": the key, the password and the launch secret must appear in
// no file written, nothing printed and no archived text, while the
// error itself is kept (with the key replaced).
func TestSecretsNeverStored(t *testing.T) {
	const (
		key      = "sm-local-key-0042abcd" // no well-known form: only its value identifies it
		password = "Pw0rdOfTheUrl9"
		launch   = "LaunchSecret77x"
	)
	front := simBehind(t, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if strings.HasSuffix(r.URL.Path, "/completions") && bytes.Contains(body, []byte(`"max_tokens":50`)) {
			auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			http.Error(w, `{"error":"key '`+auth+`' is not allowed for user `+password+`"}`, http.StatusInternalServerError)
			return true
		}
		return false
	})
	u, _ := url.Parse(front)
	u.User = url.UserPassword("alice", password)

	t.Setenv("SPEEDMATRIX_TEST_KEY", key)
	dir := t.TempDir()
	out := filepath.Join(dir, "run.html")
	arch := filepath.Join(dir, "archive")
	code, stdout, stderr := runCmd(t, context.Background(), "-url", u.String(), "-model", sim.DefaultProfile().ModelName,
		"-contexts", "1K", "-concurrency", "1", "-duration", "300ms", "-max-tokens", "50",
		"-api-key-env", "SPEEDMATRIX_TEST_KEY", "-archive", arch, "-out", out,
		"-launch-command", "cd /srv && HF_TOKEN="+launch+" vllm serve m --api-key "+launch)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	noSecrets(t, dir, []string{key, password, launch}, stdout, stderr)
	m := onlyRun(t, arch)
	if !strings.Contains(m.Run.ServerURL, "<redacted>@127.0.0.1") {
		t.Errorf("server_url %q", m.Run.ServerURL)
	}
	reasons := ""
	for _, x := range m.Measurements {
		reasons += x.StatusReason + "\n"
	}
	if !strings.Contains(reasons, "key '<redacted>' is not allowed for user <redacted>") {
		t.Errorf("status reasons %q: want the server's error kept, secrets replaced", reasons)
	}
}

// TestURLPasswordNotPrinted: the error of a server that is not there
// names it without the password of -url.
func TestURLPasswordNotPrinted(t *testing.T) {
	code, stdout, stderr := runCmd(t, context.Background(), "-url", "http://alice:Pw0rdOfTheUrl9@127.0.0.1:1", "-model", "m", "-contexts", "1K")
	if code != exitFail || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stdout+stderr, "Pw0rdOfTheUrl9") {
		t.Errorf("password printed: %q", stderr)
	}
}
