package redact

import (
	"regexp"
	"strings"
)

// userFlag matches curl's credential flags and their value: -u/--user
// and -U/--proxy-user, then "=", blanks or nothing (-ualice:pw), then a
// word, quoted or not. The flag starts the text or follows a blank, a
// quote or "(".
var userFlag = regexp.MustCompile(`(^|[\s'"(])(--user|--proxy-user|-u|-U)(=|[ \t]+|)("[^"]*"|'[^']*'|[^\s"';&|)]+)`)

// uidGid is a value of -u that is not a credential: docker run -u 1000:1000.
var uidGid = regexp.MustCompile(`^[0-9]+(:[0-9]+)?$`)

// userFlagText replaces the value of curl's -u/--user user:password (and
// -U/--proxy-user) with Marker, the quotes included. A value without a
// ":" is a user name alone (curl then asks for the password) and a
// numeric uid:gid is docker's -u: both are kept.
func userFlagText(s string) string {
	if !strings.Contains(s, "-u") && !strings.Contains(s, "-U") && !strings.Contains(s, "-proxy-user") {
		return s
	}
	return userFlag.ReplaceAllStringFunc(s, func(m string) string {
		sub := userFlag.FindStringSubmatch(m)
		v := sub[4]
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
			v = v[1 : len(v)-1]
		}
		if sub[3] == "" && strings.HasPrefix(sub[2], "--") { // --username, --user:…
			return m
		}
		if !strings.Contains(v, ":") || uidGid.MatchString(v) || strings.Contains(v, Marker) {
			return m
		}
		return sub[1] + sub[2] + sub[3] + Marker
	})
}
