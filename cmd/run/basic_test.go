package runcmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/runner/sim"
)

// TestBasicCredentialNeverStored runs with -url http://user:PW@host and
// no API key, so that Go's client sends "Authorization: Basic
// base64(user:PW)", against a server that echoes that header (whole,
// and its base64 alone) in the error of every decode request: neither
// form may reach the document, the archive, stdout or stderr, while the
// error itself is kept (issue 22).
func TestBasicCredentialNeverStored(t *testing.T) {
	const password = "Pw0rdBasic4u"
	b64 := base64.StdEncoding.EncodeToString([]byte("alice:" + password))
	front := simBehind(t, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if strings.HasSuffix(r.URL.Path, "/completions") && bytes.Contains(body, []byte(`"max_tokens":50`)) {
			auth := r.Header.Get("Authorization")
			http.Error(w, `{"error":"header '`+auth+`' refused; credential `+strings.TrimPrefix(auth, "Basic ")+` unknown"}`, http.StatusInternalServerError)
			return true
		}
		return false
	})
	u, _ := url.Parse(front)
	u.User = url.UserPassword("alice", password)
	dir := t.TempDir()
	out := filepath.Join(dir, "run.md")
	arch := filepath.Join(dir, "archive")
	code, stdout, stderr := runCmd(t, context.Background(), "-url", u.String(), "-model", sim.DefaultProfile().ModelName,
		"-contexts", "1K", "-concurrency", "1", "-duration", "300ms", "-max-tokens", "50", "-archive", arch, "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	noSecrets(t, dir, []string{password, b64, strings.TrimRight(b64, "=")}, stdout, stderr)
	m := onlyRun(t, arch)
	all := fmt.Sprintf("%+v", *m)
	for _, s := range []string{password, strings.TrimRight(b64, "=")} {
		if strings.Contains(all, s) {
			t.Errorf("%q archived", s)
		}
	}
	reasons := ""
	for _, x := range m.Measurements {
		reasons += x.StatusReason + "\n"
	}
	if !strings.Contains(reasons, "refused; credential <redacted> unknown") {
		t.Errorf("status reasons %q: want the server's error kept, the credential replaced", reasons)
	}
}
