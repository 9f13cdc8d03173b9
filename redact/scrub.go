package redact

import (
	"encoding/base64"
	"io"
	"net/url"
	"reflect"
	"strings"
	"sync"
)

// MinSecret is the shortest known secret a Scrubber replaces.
//
// Note: servers without authentication are often given a placeholder
// key ("EMPTY", "none", "dummy"); replacing such a word everywhere would
// garble ordinary text, and a key this short protects nothing. Secrets
// of known forms and URL user information are removed at any length.
const MinSecret = 8

// Scrubber removes known secret values (the API key the client sends, the
// password of the server's URL) and everything Text finds from the texts
// it is given. The zero value and nil remove only what Text finds.
type Scrubber struct {
	known []string
}

// NewScrubber returns a scrubber for the given secret values; empty and
// shorter than MinSecret ones are ignored.
func NewScrubber(secrets ...string) *Scrubber {
	s := &Scrubber{}
	for _, v := range secrets {
		if len(v) >= MinSecret {
			s.known = append(s.known, v)
		}
	}
	return s
}

// URLSecrets returns the user information of a URL ("user:password" and
// the password, as printed and decoded), and the Basic credential Go's
// HTTP client sends for it (base64 of "user:password", padded and not):
// a server that echoes its request headers puts that form into a reply,
// for NewScrubber.
func URLSecrets(raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return nil
	}
	out := []string{u.User.String()}
	p, ok := u.User.Password()
	if ok {
		out = append(out, p, url.QueryEscape(p))
	}
	pair := u.User.Username() + ":" + p
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		out = append(out, enc.EncodeToString([]byte(pair)))
	}
	return out
}

// String returns s with every known secret and everything Text finds
// replaced by Marker.
func (sc *Scrubber) String(s string) string {
	if sc != nil {
		for _, k := range sc.known {
			if strings.Contains(s, k) {
				s = strings.ReplaceAll(s, k, Marker)
			}
		}
	}
	return Text(s)
}

// Walk is the Walk of a Scrubber that knows no secret values: it
// redacts what Text finds and the values of pairs whose key names a
// secret (SecretKey), in every string v reaches.
func Walk(v any) { (*Scrubber)(nil).Walk(v) }

// Walk scrubs, in place, every string v reaches through exported
// struct fields, pointers, slices, arrays and interfaces: v must be a
// pointer (a *schema.Matrix, say). A struct with string fields Key and
// Value (schema.KV, schema.Field) whose key names a secret has its value
// replaced whole (SecretValue). Map entries and strings held directly
// in an interface cannot be set and are left alone; schema's types have
// neither.
func (sc *Scrubber) Walk(v any) {
	sc.walk(reflect.ValueOf(v))
}

func (sc *Scrubber) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			sc.walk(v.Elem())
		}
	case reflect.Struct:
		for _, i := range stringFields(v.Type()) {
			sc.walk(v.Field(i))
		}
		if k, val, ok := pairFields(v.Type()); ok {
			key, value := v.Field(k), v.Field(val)
			if value.CanSet() && SecretKey(key.String()) {
				if s := SecretValue(key.String(), value.String()); s != value.String() {
					value.SetString(s)
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if !mayHoldStrings(v.Type().Elem(), nil) {
			return
		}
		for i := 0; i < v.Len(); i++ {
			sc.walk(v.Index(i))
		}
	case reflect.String:
		if v.CanSet() {
			if s := sc.String(v.String()); s != v.String() {
				v.SetString(s)
			}
		}
	}
}

// pairPlans caches pairFields by struct type.
var pairPlans sync.Map // reflect.Type → [2]int, or nil

// pairFields returns the indices of a struct type's string fields Key
// and Value (schema.KV, schema.Field): a pair whose key names a secret
// (SecretKey) has its value replaced whole, whatever its form.
func pairFields(t reflect.Type) (key, value int, ok bool) {
	if p, ok := pairPlans.Load(t); ok {
		if p == nil {
			return 0, 0, false
		}
		kv := p.([2]int)
		return kv[0], kv[1], true
	}
	k, okK := t.FieldByName("Key")
	v, okV := t.FieldByName("Value")
	if !okK || !okV || k.Type.Kind() != reflect.String || v.Type.Kind() != reflect.String || len(k.Index) != 1 || len(v.Index) != 1 {
		pairPlans.Store(t, nil)
		return 0, 0, false
	}
	pairPlans.Store(t, [2]int{k.Index[0], v.Index[0]})
	return k.Index[0], v.Index[0], true
}

// fieldPlans caches stringFields by struct type.
var fieldPlans sync.Map // reflect.Type → []int

// stringFields returns the indices of a struct type's exported fields
// that can hold a string: a run of 20,000 samples then visits their four
// text fields, not their eleven numbers.
func stringFields(t reflect.Type) []int {
	if p, ok := fieldPlans.Load(t); ok {
		return p.([]int)
	}
	var out []int
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() && mayHoldStrings(f.Type, nil) {
			out = append(out, i)
		}
	}
	fieldPlans.Store(t, out)
	return out
}

// mayHoldStrings reports whether a value of type t can reach a string
// through exported fields, pointers, slices, arrays or interfaces.
func mayHoldStrings(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayHoldStrings(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return false // a recursive type: its strings are found on the first visit
		}
		if seen == nil {
			seen = map[reflect.Type]bool{}
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && mayHoldStrings(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// Writer returns a writer that scrubs what it passes to w.
//
// Note: each Write is scrubbed on its own, so a secret split across two
// writes would pass; the command writes whole lines.
func (sc *Scrubber) Writer(w io.Writer) io.Writer { return scrubWriter{sc, w} }

type scrubWriter struct {
	sc *Scrubber
	w  io.Writer
}

func (s scrubWriter) Write(p []byte) (int, error) {
	clean := s.sc.String(string(p))
	if clean == string(p) {
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, clean); err != nil {
		return 0, err
	}
	return len(p), nil
}
