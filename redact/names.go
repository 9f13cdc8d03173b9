package redact

import (
	"regexp"
	"strconv"
	"strings"
)

// EnvAssign matches a NAME=VALUE word.
var EnvAssign = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

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
