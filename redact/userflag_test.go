package redact

import (
	"strings"
	"testing"
)

// TestUserFlag: curl's -u/--user (and -U/--proxy-user) user:password, in
// a launch command and in any text, loses its password; a uid:gid
// (docker run -u 1000:1000) and flags that only start alike are kept.
func TestUserFlag(t *testing.T) {
	const pw = "Zq7pWvalue42"
	for _, tc := range []struct{ in, want string }{
		{"curl -u alice:" + pw + " http://h/v1/models", "curl -u <redacted> http://h/v1/models"},
		{"curl --user alice:" + pw + " http://h", "curl --user <redacted> http://h"},
		{"curl --user=alice:" + pw + " http://h", "curl --user=<redacted> http://h"},
		{"curl -ualice:" + pw + " http://h", "curl -u<redacted> http://h"},
		{"curl -u 'alice:" + pw + "' http://h", "curl -u <redacted> http://h"},
		{`curl --user "alice:` + pw + `" http://h`, "curl --user <redacted> http://h"},
		{"curl -x http://proxy -U bob:" + pw + " http://h", "curl -x http://proxy -U <redacted> http://h"},
		{"curl --proxy-user bob:" + pw + " http://h", "curl --proxy-user <redacted> http://h"},
		{"checked with: curl -s -u alice:" + pw + " $URL", "checked with: curl -s -u <redacted> $URL"},
		{"docker run -u 1000:1000 vllm/vllm-openai", "docker run -u 1000:1000 vllm/vllm-openai"},
		{"python -u serve.py --port 8000", "python -u serve.py --port 8000"},
		{"speedmatrix run -url http://h:8000", "speedmatrix run -url http://h:8000"},
		{"curl --user-agent a:b http://h", "curl --user-agent a:b http://h"},
		{"curl -u alice http://h", "curl -u alice http://h"},
	} {
		for name, f := range map[string]func(string) string{"Text": Text, "Command": Command} {
			got := f(tc.in)
			if got != tc.want {
				t.Errorf("%s(%q) = %q, want %q", name, tc.in, got, tc.want)
			}
			if strings.Contains(got, pw) {
				t.Errorf("%s(%q) keeps the password", name, tc.in)
			}
		}
	}
	// Inside a quoted command.
	got := Command(`bash -c "curl -u alice:` + pw + ` http://h"`)
	if strings.Contains(got, pw) {
		t.Errorf("Command of bash -c keeps the password: %q", got)
	}
}
