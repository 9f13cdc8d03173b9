package redact

import (
	"regexp"
	"strings"
)

// Marker replaces every secret removed.
const Marker = "<redacted>"

// inline match secrets wherever they are printed: bearer tokens in
// headers, well-known key formats (OpenAI, Hugging Face, GitHub, Slack)
// and the user information of a URL (http://user:password@host,
// s3://KEY:SECRET@bucket).
var inline = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(authorization\s*[:=]\s*(?:bearer|basic|token)\s+)[^\s"',;]+`),
	regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{6,}`),
	regexp.MustCompile(`()\bsk-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`()\bhf_[A-Za-z0-9]{16,}`),
	regexp.MustCompile(`()\bgh[pousr]_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`()\bxox[abpr]-[A-Za-z0-9-]{10,}`),
	// The authority ends at the first "/", blank or quote; its user
	// information at the last "@" before that, so a password holding an
	// "@" goes whole.
	regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s"'<>@]*(?:@[^/\s"'<>@]*)*@`),
}

// mayHoldSecret reports whether some inline pattern can match s: s
// holds what each needs ("@", "sk-", "hf_", "gh?_", "xox?-", or the
// words bearer or authorization in any case). Most texts hold none, and
// skip the regexps without allocating.
//
// Note: one pass over the bytes; a ContainsAny, nine Contains and two
// case-folded searches were 1% of ingesting a seed document (its launch
// command holds dashes) and took twice as long over the seeds' lines
// (go test ./redact -run XXX -bench MayHoldSecret: 28–31 µs against
// 55–56). TestMayHoldSecretIsNeeded checks that no text it refuses is
// changed by the regexps.
//
// Note: most bytes can start none of those; a table tells them, and the
// loop skips them without the switch (which cost 19 instructions a byte
// of a seed's launch command: `valgrind --tool=cachegrind` of
// ParseLaunch), and a word is compared only after its second letter
// matched. TestMayHoldSecretIsReference compares it with the switch.
func mayHoldSecret(s string) bool {
	for i := 0; i < len(s); i++ {
		if !secretStart[s[i]] {
			continue
		}
		switch s[i] {
		case '@':
			return true
		case '-':
			if i >= 2 && s[i-2:i] == "sk" || i >= 4 && s[i-4:i-1] == "xox" {
				return true
			}
		case '_':
			if i >= 2 && s[i-2:i] == "hf" || i >= 3 && s[i-3:i-1] == "gh" {
				return true
			}
		case 'b', 'B':
			if i+1 < len(s) && s[i+1]|0x20 == 'e' && hasFoldAt(s, i, "bearer") {
				return true
			}
		case 'a', 'A':
			if i+1 < len(s) && s[i+1]|0x20 == 'u' && hasFoldAt(s, i, "authorization") {
				return true
			}
		}
	}
	return false
}

// secretStart marks the bytes mayHoldSecret looks at.
var secretStart = [256]bool{'@': true, '-': true, '_': true, 'b': true, 'B': true, 'a': true, 'A': true}

// hasFoldAt reports whether s holds the lower-case ASCII word w at i, in
// any case.
func hasFoldAt(s string, i int, w string) bool {
	return len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w)
}

// Text replaces the secrets recognizable by their form anywhere in s: an
// "Authorization: Bearer …" header, sk-…, hf_…, ghp_… keys, and a URL's
// user information (replaced whole: "http://<redacted>@host"), then the
// value of every key that names a secret (SecretKey: "api_key": "…",
// x-api-key: …, HF_TOKEN=…, --password …), Basic credentials and the
// other key forms keyedText knows, and the user:password of curl's
// -u/--user (userFlagText).
func Text(s string) string {
	return keyedText(userFlagText(inlineText(s)))
}

// inlineText is Text of the inline patterns only.
func inlineText(s string) string {
	if !mayHoldSecret(s) {
		return s
	}
	for i, re := range inline {
		if !re.MatchString(s) {
			continue
		}
		if i == len(inline)-1 {
			s = re.ReplaceAllString(s, "${1}"+Marker+"@")
		} else {
			s = re.ReplaceAllString(s, "${1}"+Marker)
		}
	}
	return s
}
