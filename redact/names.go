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
//
// Note: an ASCII name (every name a shell accepts) is read in one pass,
// its bytes upper-cased as they are compared, rather than upper-cased
// into a copy and searched five times; a name with another byte goes
// the long way (strings.ToUpper maps some to ASCII letters: ſ to S),
// and an early answer holds for it too (what matched is ASCII, which
// ToUpper keeps). TestSecretNamesAreReference compares the two.
func SecretName(name string) bool {
	last := 0 // where the last part begins
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 0x80:
			return secretNameFolded(name)
		case c == '_':
			last = i + 1
			continue
		}
		switch c | 0x20 { // an ASCII letter in lower case
		case 's':
			if hasUpperAt(name, i, "SECRET") {
				return true
			}
		case 'p':
			if hasUpperAt(name, i, "PASSW") && (hasUpperAt(name, i+5, "ORD") || hasUpperAt(name, i+5, "D")) {
				return true
			}
		case 'c':
			if hasUpperAt(name, i, "CREDENTIAL") {
				return true
			}
		}
	}
	l := name[last:]
	return hasUpperAt(l, len(l)-5, "TOKEN") || hasUpperAt(l, len(l)-3, "KEY") ||
		len(l) == 4 && hasUpperAt(l, 0, "AUTH") || len(l) == 3 && hasUpperAt(l, 0, "PAT")
}

// secretNameFolded is SecretName of any name, by strings.ToUpper.
func secretNameFolded(name string) bool {
	u := strings.ToUpper(name)
	if strings.Contains(u, "SECRET") || strings.Contains(u, "PASSWORD") || strings.Contains(u, "PASSWD") || strings.Contains(u, "CREDENTIAL") {
		return true
	}
	last := u[strings.LastIndexByte(u, '_')+1:]
	return strings.HasSuffix(last, "TOKEN") || strings.HasSuffix(last, "KEY") || last == "AUTH" || last == "PAT"
}

// SecretFlag reports whether a flag's value is a secret (--api-key,
// --hf-token, --token, --password, --secret, …).
//
// Note: as SecretName, an ASCII flag is read in one pass (lower case and
// '_' as '-' compared byte by byte), not lowered, rewritten and searched
// five times into copies: it was a quarter of reading a launch command
// (0.22 of 0.80 s in a profile of ParseLaunch on a seed's command).
func SecretFlag(flag string) bool {
	f := flag
	for len(f) > 0 && f[0] == '-' {
		f = f[1:]
	}
	last := 0 // where the last part begins
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c >= 0x80 {
			return secretFlagFolded(f)
		}
		switch flagByte[c] {
		case 's':
			if hasFlagAt(f, i, "secret") {
				return true
			}
		case 'p':
			if hasFlagAt(f, i, "passw") && (hasFlagAt(f, i+5, "ord") || hasFlagAt(f, i+5, "d")) {
				return true
			}
		case 'a':
			if hasFlagAt(f, i, "api") && (hasFlagAt(f, i+3, "-key") || hasFlagAt(f, i+3, "key")) {
				return true
			}
		case '-':
			last = i + 1
		}
	}
	l := f[last:]
	switch len(l) {
	case 3:
		return hasFlagAt(l, 0, "key")
	case 4:
		return hasFlagAt(l, 0, "auth")
	case 5:
		return hasFlagAt(l, 0, "token")
	case 11:
		return hasFlagAt(l, 0, "credentials")
	}
	return false
}

// secretFlagFolded is SecretFlag of any flag without its dashes, by
// strings.ToLower.
func secretFlagFolded(f string) bool {
	f = strings.ReplaceAll(strings.ToLower(f), "_", "-")
	if strings.Contains(f, "secret") || strings.Contains(f, "password") || strings.Contains(f, "passwd") || strings.Contains(f, "api-key") || strings.Contains(f, "apikey") {
		return true
	}
	last := f[strings.LastIndexByte(f, '-')+1:]
	return last == "key" || last == "token" || last == "auth" || last == "credentials"
}

// hasUpperAt reports whether ASCII s holds the upper-case word w at i
// (i may be out of range), its letters in any case.
func hasUpperAt(s string, i int, w string) bool {
	if i < 0 || len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		c := s[i+k]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != w[k] {
			return false
		}
	}
	return true
}

// flagByte is a byte of a flag as SecretFlag compares it: an ASCII
// letter in lower case, '_' as '-'.
var flagByte = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = byte(c) + ('a' - 'A')
	}
	t['_'] = '-'
	return t
}()

// hasFlagAt reports whether ASCII s holds w (lower case, '-' for '-' or
// '_') at i.
func hasFlagAt(s string, i int, w string) bool {
	if i < 0 || len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if flagByte[s[i+k]] != w[k] {
			return false
		}
	}
	return true
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
