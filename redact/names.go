package redact

import (
	"regexp"
	"strconv"
	"strings"
)

// EnvAssign matches a NAME=VALUE word. Assignment reads the same
// without running it.
var EnvAssign = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// Assignment splits a NAME=VALUE word: ok when EnvAssign matches s, with
// its two groups. A value holding a newline does not match (. stops at
// one, and $ is the end of the text).
//
// Note: the regexp (FindStringSubmatch) was a third of redacting a launch
// command, run on every word; TestAssignmentIsEnvAssign compares the two
// on the seeds' launch commands, testdata and random words.
func Assignment(s string) (name, value string, ok bool) {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z' || i > 0 && c >= '0' && c <= '9') {
			break
		}
	}
	if i == 0 || i == len(s) || s[i] != '=' || strings.IndexByte(s[i+1:], '\n') >= 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// SecretName reports whether an environment variable holds a secret: a
// name whose last part is TOKEN or KEY (HF_TOKEN, OPENAI_API_KEY), or
// that mentions SECRET, PASSWORD or CREDENTIAL.
func SecretName(name string) bool {
	u := strings.ToUpper(name)
	if strings.Contains(u, "SECRET") || strings.Contains(u, "PASSWORD") || strings.Contains(u, "PASSWD") || strings.Contains(u, "CREDENTIAL") {
		return true
	}
	last := u[strings.LastIndexByte(u, '_')+1:]
	return strings.HasSuffix(last, "TOKEN") || strings.HasSuffix(last, "KEY") || last == "AUTH" || last == "PAT"
}

// SecretFlag reports whether a flag's value is a secret (--api-key,
// --hf-token, --token, --password, --secret, …).
func SecretFlag(flag string) bool {
	f := strings.ReplaceAll(strings.ToLower(strings.TrimLeft(flag, "-")), "_", "-")
	if strings.Contains(f, "secret") || strings.Contains(f, "password") || strings.Contains(f, "passwd") || strings.Contains(f, "api-key") || strings.Contains(f, "apikey") {
		return true
	}
	last := f[strings.LastIndexByte(f, '-')+1:]
	return last == "key" || last == "token" || last == "auth" || last == "credentials"
}

// IsFlag reports whether a word is a flag ("-m", "--api-key=x"), not a
// value (a negative number is a value).
func IsFlag(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	if c := s[1]; c != '.' && (c < '0' || c > '9') {
		return true // "-m", "--api-key": no number starts so
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	return true
}
