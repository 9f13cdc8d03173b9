package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SecretKey reports whether a key names a secret, wherever the key
// stands: a metadata key, a JSON or YAML key at any depth (flattened as
// "server.api_key" or not), a header name, a column header, an
// environment variable or a flag. The key is split into words (at
// anything not a letter or digit, and where a lower-case letter meets an
// upper-case one); it names a secret when a word is a secret, secrets,
// password, passwd, pwd, passphrase, credential(s), authorization,
// apikey, cookie or auth, or ends in "token" (hf_token, accessToken), or
// when "key" follows api, access, private, secret, client, auth,
// signing, subscription or x (x-api-key, apiKey, "API key"), or ends an
// upper-case variable name (OPENAI_KEY).
//
// Note: "token" is also a unit: time_to_first_token, output_token_count,
// max_token and eos_token name figures and vocabulary, not credentials,
// so a key whose other words say so (measureWords) is not a secret by
// its "token"; tokens, tokenizer and tokenization never are.
func SecretKey(key string) bool {
	if mayHoldKeyed(key)&heldKey == 0 {
		return false // every word below holds one mayHoldKeyed looks for
	}
	ws := keyWords(key)
	token := false
	for i, w := range ws {
		switch w {
		case "secret", "secrets", "password", "passwd", "pwd", "passphrase", "credential", "credentials",
			"authorization", "apikey", "cookie", "auth", "privatekey", "accesskey", "secretkey":
			return true
		case "key":
			if i > 0 {
				switch ws[i-1] {
				case "api", "access", "private", "secret", "client", "auth", "signing", "subscription", "x", "openai", "hf", "service", "account", "master":
					return true
				}
			}
			if i == len(ws)-1 && i > 0 && isUpperName(key) {
				return true
			}
		default:
			if strings.HasSuffix(w, "token") {
				token = true
			}
		}
	}
	if !token {
		return false
	}
	for _, w := range ws {
		if measureWords[w] {
			return false
		}
	}
	return true
}

// measureWords are words that make a key holding "token" name a figure
// or a vocabulary entry rather than a credential.
var measureWords = map[string]bool{
	"first": true, "output": true, "input": true, "prompt": true, "per": true, "next": true, "last": true,
	"time": true, "latency": true, "throughput": true, "count": true, "num": true, "max": true, "min": true,
	"len": true, "length": true, "limit": true, "budget": true, "id": true, "ids": true, "rate": true,
	"total": true, "avg": true, "mean": true, "ms": true, "sec": true, "ttft": true, "tpot": true, "itl": true,
	"special": true, "eos": true, "bos": true, "pad": true, "stop": true, "unk": true, "sep": true, "cls": true,
	"mask": true, "start": true, "end": true, "inter": true, "generation": true, "decode": true, "prefill": true,
	"cached": true, "chunk": true, "p50": true, "p90": true, "p95": true, "p99": true, "std": true, "tok": true,
	"s": true, "type": true, "types": true, "vocab": true, "size": true, "merge": true, "file": true,
	"path": true, "dir": true, "env": true, "var": true, "name": true,
}

// keyWords splits a key into lower-case words.
func keyWords(key string) []string {
	var out []string
	var cur []rune
	prevLower := false
	for _, r := range key {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower && len(cur) > 0 {
				out = append(out, string(cur))
				cur = cur[:0]
			}
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
			cur = append(cur, unicode.ToLower(r))
		default:
			if len(cur) > 0 {
				out = append(out, string(cur))
				cur = cur[:0]
			}
			prevLower = false
		}
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	return out
}

// isUpperName reports whether s is an upper-case variable name
// (OPENAI_KEY): letters, digits and '_', no lower-case letter.
func isUpperName(s string) bool {
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return s != ""
}

// SecretValue returns the value of a pair whose key names a secret
// (SecretKey), replaced by Marker: every non-empty value but the words
// that carry none (true, false, null, none, a value already redacted),
// and, for a key that is a secret by its "token" only, a number.
func SecretValue(key, value string) string {
	v := strings.TrimSpace(value)
	if v == "" || keepsValue(key, v) {
		return value
	}
	return Marker
}

// keepsValue reports whether a secret key's value v carries no secret.
func keepsValue(key, v string) bool {
	if strings.HasPrefix(v, Marker) || strings.HasPrefix(v, `"`+Marker) || strings.HasPrefix(v, `'`+Marker) {
		return true
	}
	switch strings.ToLower(strings.Trim(v, `"'`)) {
	case "", "true", "false", "null", "none", "nil", "~", "yes", "no", "empty", "-", "n/a":
		return true
	}
	return false
}

// keyed matches a key and its value in free text: "api_key": "v",
// api_key=v, 'hf_token': 'v', X-Api-Key: v, Authorization: Basic v,
// --api-key v. Its groups: 1 the key with what precedes the value (the
// key's quote, the separator, a flag's dashes), 2 the key itself, 3 an
// authorization scheme, 4 the value (quoted or not).
var keyed = regexp.MustCompile(`(?i)((?:--?)?["']?([a-z][a-z0-9_.\-]*)["']?(?:\s*[:=]\s*|\s+))((?:bearer|basic|token|digest|apikey|key)\s+)?("[^"\n]*"|'[^'\n]*'|<redacted>|[^\s"',;&<>(){}\[\]]+)`)

// forms match secrets of known shapes that Text's inline patterns do not
// hold: AWS access key ids, Google API keys, GitLab and NVIDIA tokens,
// JSON Web Tokens, Groq and Replicate keys.
var forms = regexp.MustCompile(`\b(?:(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}|glpat-[0-9A-Za-z_\-]{20,}|nvapi-[0-9A-Za-z_\-]{20,}|gsk_[0-9A-Za-z]{20,}|r8_[0-9A-Za-z]{20,}|eyJ[0-9A-Za-z_\-]{8,}\.eyJ[0-9A-Za-z_\-]{8,}\.[0-9A-Za-z_\-]{8,})`)

// basic matches a Basic credential wherever it is printed ("Basic
// dXNlcjpwYXNz"), even without an Authorization header before it.
var basic = regexp.MustCompile(`(?i)(\bbasic\s+)([A-Za-z0-9+/_\-]{4,}={0,2})`)

// keyedText redacts the secrets Text's inline patterns miss: the value
// of any key that names a secret (SecretKey), Basic credentials and the
// key forms of forms.
func keyedText(s string) string {
	held := mayHoldKeyed(s)
	if held == 0 {
		return s
	}
	if held&heldForm != 0 && forms.MatchString(s) {
		s = forms.ReplaceAllString(s, Marker)
	}
	if held&heldBasic != 0 && basic.MatchString(s) {
		s = basic.ReplaceAllStringFunc(s, func(m string) string {
			g := basic.FindStringSubmatch(m)
			if isCredential(g[2]) {
				return g[1] + Marker
			}
			return m
		})
	}
	if held&heldKey == 0 {
		return s
	}
	return keyedValues(s)
}

// Secrets returns the secret values a text holds where a key, a flag, a
// header or a URL says so (the values Text would replace, as printed,
// without quotes), for NewScrubber: a parser's error that quotes a value
// without its key ("not a number: \"…\"") is redacted by them.
func Secrets(s string) []string {
	var out []string
	if mayHoldKeyed(s)&heldKey != 0 {
		eachSecretPair(s, func(_, value string, _, _ int) {
			out = append(out, strings.Trim(value, `"'`))
		})
	}
	if mayHoldSecret(s) {
		for _, m := range userinfo.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
			if _, pw, ok := strings.Cut(m[1], ":"); ok {
				out = append(out, pw)
			}
		}
	}
	return out
}

// userinfo finds a URL's user information (as inline's last pattern).
var userinfo = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://([^/\s"'<>@]*(?:@[^/\s"'<>@]*)*)@`)

// eachSecretPair calls yield with the scheme (or "") and the value of
// each secret pair of s and the span where its replacement goes (from the
// scheme, when one stands before the value). A match whose key is not a
// secret is passed at its value, which is searched in turn.
func eachSecretPair(s string, yield func(scheme, value string, at, end int)) {
	for pos := 0; pos < len(s); {
		loc := keyed.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			return
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += pos
			}
		}
		pre, key, value := s[loc[2]:loc[3]], s[loc[4]:loc[5]], s[loc[8]:loc[9]]
		scheme := ""
		if loc[6] >= 0 {
			scheme = s[loc[6]:loc[7]]
		}
		at := loc[6]
		if at < 0 {
			at = loc[8]
		}
		if !redactsPair(pre, key, scheme, value) {
			pos = at
			continue
		}
		yield(scheme, value, at, loc[1])
		pos = loc[1]
	}
}

// keyedValues replaces the value of each secret key in s. A match whose
// key is not a secret is passed at its value, which is searched in turn:
// "--env=HF_TOKEN=v", "-c 'vllm serve m --api-key v'", "m --api-key v".
func keyedValues(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is written to b
	eachSecretPair(s, func(scheme, value string, at, end int) {
		q := ""
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') {
			q = value[:1]
		}
		b.WriteString(s[done:at])
		b.WriteString(scheme + q + Marker + q)
		done = end
	})
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// redactsPair reports whether a match of keyed is a secret pair: its key
// names a secret (or its flag does: --api-key), and its value is one.
func redactsPair(pre, key, scheme, value string) bool {
	flag := strings.HasPrefix(pre, "-")
	sep := pre[strings.LastIndex(pre, key)+len(key):]
	spaced := !strings.ContainsAny(sep, ":=")
	switch {
	case !(SecretKey(key) || flag && SecretFlag(key)):
		return false
	case spaced && !flag && scheme == "":
		// "password is x", "token abc": a key and the word after a blank
		// are not a pair unless a flag or a scheme says so.
		return false
	case strings.HasPrefix(value, "-") && (flag || spaced):
		return false // the next flag, not a value
	case keepsValue(key, value) || tokenOnlyNumber(key, value):
		return false
	}
	return true
}

// tokenOnlyNumber reports whether a key that may name a figure ("…token")
// holds a number: a count or a latency, not a credential.
func tokenOnlyNumber(key, value string) bool {
	v := strings.Trim(value, `"'`)
	if v == "" {
		return false
	}
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return false
		}
	}
	for _, w := range keyWords(key) {
		switch w {
		case "secret", "secrets", "password", "passwd", "pwd", "passphrase", "credential", "credentials", "authorization", "apikey", "auth", "key":
			return false
		}
	}
	return true
}

// isCredential reports whether b64 decodes to a "user:password" pair.
func isCredential(b64 string) bool {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		d, err := enc.DecodeString(b64)
		if err == nil && utf8.Valid(d) && strings.Contains(string(d), ":") {
			return true
		}
	}
	return false
}

// What mayHoldKeyed found: a word of a key naming a secret, the start of
// a key form, the word basic.
const (
	heldKey = 1 << iota
	heldForm
	heldBasic
)

// mayHoldKeyed reports what s holds of the words keyedText looks for (in
// any case): key, token (not tokens or tokenizer), secret, passw, pwd,
// passphrase, auth, cred, cookie (heldKey); the start of a key form
// (heldForm); basic (heldBasic). Most texts hold none, and skip the
// regexps.
//
// Note: a byte is compared with a word only when it and the next byte
// can start one (most letters start some word here, few pairs do).
func mayHoldKeyed(s string) int {
	held := 0
	for i := 0; i+1 < len(s); i++ {
		c0, c1 := s[i]|0x20, s[i+1]|0x20
		switch c0 {
		case 'k':
			if c1 == 'e' && hasFoldAt(s, i, "key") {
				held |= heldKey
			}
		case 't':
			// "tokens" and "tokenizer" are a unit and a tool: most texts
			// of a document that hold "token" hold one of them.
			if c1 == 'o' && hasFoldAt(s, i, "token") && (i+5 == len(s) || s[i+5]|0x20 != 's' && s[i+5]|0x20 != 'i') {
				held |= heldKey
			}
		case 's':
			if c1 == 'e' && hasFoldAt(s, i, "secret") {
				held |= heldKey
			}
		case 'p':
			if c1 == 'a' && hasFoldAt(s, i, "passw") || c1 == 'w' && hasFoldAt(s, i, "pwd") || c1 == 'a' && hasFoldAt(s, i, "passphrase") {
				held |= heldKey
			}
		case 'a':
			switch {
			case c1 == 'u' && hasFoldAt(s, i, "auth"):
				held |= heldKey
			case c1 == 'k' && hasFoldAt(s, i, "akia"), c1 == 's' && hasFoldAt(s, i, "asia"), c1 == 'i' && hasFoldAt(s, i, "aiza"):
				held |= heldForm
			}
		case 'c':
			if c1 == 'r' && hasFoldAt(s, i, "cred") || c1 == 'o' && hasFoldAt(s, i, "cookie") {
				held |= heldKey
			}
		case 'b':
			if c1 == 'a' && hasFoldAt(s, i, "basic") {
				held |= heldBasic
			}
		case 'g':
			if c1 == 'l' && hasFoldAt(s, i, "glpat-") || c1 == 's' && hasFoldAt(s, i, "gsk_") {
				held |= heldForm
			}
		case 'n':
			if c1 == 'v' && hasFoldAt(s, i, "nvapi-") {
				held |= heldForm
			}
		case 'e':
			if c1 == 'y' && hasFoldAt(s, i, "eyj") {
				held |= heldForm
			}
		case 'r':
			if c1 == '8' && hasFoldAt(s, i, "r8_") {
				held |= heldForm
			}
		}
	}
	return held
}
