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

// triggers are substrings without one of which (or the words bearer and
// authorization, in any case) no inline pattern can match.
var triggers = []string{"@", "sk-", "hf_", "gho_", "ghp_", "ghu_", "ghs_", "ghr_", "xox"}

// mayHoldSecret reports whether some inline pattern can match s. Most
// texts cannot, and skip the regexps without allocating.
func mayHoldSecret(s string) bool {
	if strings.ContainsAny(s, "@-_") { // every trigger has one
		for _, t := range triggers {
			if strings.Contains(s, t) {
				return true
			}
		}
	}
	return containsFold(s, "bearer") || containsFold(s, "authorization")
}

// containsFold reports whether s contains the lower-case ASCII word w in
// any case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i]|0x20 == w[0] && strings.EqualFold(s[i:i+len(w)], w) {
			return true
		}
	}
	return false
}

// Text replaces the secrets recognizable by their form anywhere in s: an
// "Authorization: Bearer …" header, sk-…, hf_…, ghp_… keys, and a URL's
// user information (replaced whole: "http://<redacted>@host").
func Text(s string) string {
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
