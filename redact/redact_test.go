package redact

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// templates reads testdata/commands.txt: commands with {S} where a
// secret stands.
func templates(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open("testdata/commands.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestCommandTemplates redacts every command of testdata/commands.txt and
// checks that the secret is gone and everything else kept.
func TestCommandTemplates(t *testing.T) {
	const secret = "Zq7secretValue42"
	for _, tpl := range templates(t) {
		cmd := strings.ReplaceAll(tpl, "{S}", secret)
		got := Command(cmd)
		if strings.Contains(got, secret) {
			t.Errorf("Command(%q) = %q keeps the secret", cmd, got)
		}
		if !strings.Contains(got, Marker) {
			t.Errorf("Command(%q) = %q, want a %s", cmd, got, Marker)
		}
		// Nothing but the secret (and its URL user, quoting) changes.
		for _, w := range strings.Fields(strings.NewReplacer("{S}", " ", `"`, " ", "'", " ").Replace(tpl)) {
			if !strings.Contains(got, w) && !strings.Contains(w, "@") && !strings.Contains(w, "://") {
				t.Errorf("Command(%q) = %q lost %q", cmd, got, w)
			}
		}
	}
}

func TestCommandKeepsOrdinaryText(t *testing.T) {
	for _, cmd := range []string{
		`vllm serve org/m --max-num-batched-tokens 8192 --tokenizer org/t --kv-cache-dtype fp8`,
		`cd /srv && ./llama-server -m m.gguf -c 8192 --host 0.0.0.0`,
		`bash -c "vllm serve m --port 8000"`,
		`vllm serve m --api-key <redacted>`,
		`git clone git@github.com:org/repo.git`,
	} {
		if got := Command(cmd); got != cmd {
			t.Errorf("Command(%q) = %q, want it unchanged", cmd, got)
		}
	}
	if got := Command(`bash -c "vllm serve m --api-key k3yk3yk3y"`); got != `bash -c 'vllm serve m --api-key <redacted>'` {
		t.Errorf("quoted command: %q", got)
	}
}

func TestTextURLUserinfo(t *testing.T) {
	for in, want := range map[string]string{
		"http://user:pw@host:8000/v1":          "http://<redacted>@host:8000/v1",
		"Post \"http://u:p@ss@h/x\": EOF":      "Post \"http://<redacted>@h/x\": EOF",
		"s3://AKIA:SECRET@bucket/key":          "s3://<redacted>@bucket/key",
		"--url=https://tok@example.com":        "--url=https://<redacted>@example.com",
		"http://host/path?mail=a@b.c":          "http://host/path?mail=a@b.c",
		"mail me at someone@example.com today": "mail me at someone@example.com today",
		"http://<redacted>@host":               "http://<redacted>@host",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScrubber(t *testing.T) {
	key := "sm-local-key-0042"
	sc := NewScrubber(append([]string{key}, URLSecrets("http://alice:pa55word@gpu:8000")...)...)
	type inner struct {
		Reason string
		List   []string
	}
	v := struct {
		Name  string
		P     *inner
		Items []inner
		Any   any
		n     string
	}{
		Name:  "ok",
		P:     &inner{Reason: "HTTP 401: bad token " + key, List: []string{"Bearer " + key}},
		Items: []inner{{Reason: "server said pa55word"}},
		Any:   &inner{Reason: "http://alice:pa55word@gpu:8000/v1"},
		n:     key, // unexported: not reachable, not stored
	}
	sc.Walk(&v)
	all := v.Name + v.P.Reason + strings.Join(v.P.List, "") + v.Items[0].Reason + v.Any.(*inner).Reason
	for _, s := range []string{key, "pa55word"} {
		if strings.Contains(all, s) {
			t.Errorf("%q survives in %q", s, all)
		}
	}
	if v.Name != "ok" || !strings.Contains(v.P.Reason, "HTTP 401: bad token "+Marker) {
		t.Errorf("scrubbed %+v", v)
	}
	var b bytes.Buffer
	w := sc.Writer(&b)
	n, err := w.Write([]byte("error: " + key + "\n"))
	if err != nil || n != len("error: "+key+"\n") || b.String() != "error: "+Marker+"\n" {
		t.Errorf("writer: %d, %v, %q", n, err, b.String())
	}
	if NewScrubber("EMPTY", "none").String("none EMPTY") != "none EMPTY" {
		t.Error("a secret shorter than MinSecret is replaced")
	}
	var nilSc *Scrubber
	if nilSc.String("Bearer abcdefghij") != "Bearer "+Marker {
		t.Error("nil scrubber does not apply Text")
	}
}

// clean keeps fuzzed surroundings to text a shell would not join with
// the secret's word: no quotes, escapes or comments.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("'\"\\#`$\x00", r) || r > 0x7e || r < 0x20 && r != ' ' {
			return -1
		}
		return r
	}, s)
}

func secretLike(s string) bool {
	if len(s) < 8 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// FuzzCommand puts a secret into every command of testdata/commands.txt,
// with fuzzed text before and after it, and asserts the secret never
// survives Command.
func FuzzCommand(f *testing.F) {
	tpls := templates(f)
	for i := range tpls {
		f.Add(uint8(i), "", "", "Zq7secretValue42")
		f.Add(uint8(i), "cd /x &&", "; echo done", "00000000")
	}
	f.Add(uint8(0), "--api-key", "| tee", "abcdefgh")
	f.Fuzz(func(t *testing.T, form uint8, before, after, secret string) {
		before, after = clean(before), clean(after)
		if !secretLike(secret) || strings.Contains(before+after, secret) {
			return
		}
		tpl := tpls[int(form)%len(tpls)]
		if strings.Contains(strings.ReplaceAll(tpl, "{S}", ""), secret) {
			return
		}
		cmd := before + " " + strings.ReplaceAll(tpl, "{S}", secret) + " " + after
		if got := Command(cmd); strings.Contains(got, secret) {
			t.Errorf("Command(%q) = %q keeps the secret", cmd, got)
		}
	})
}
