package parse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"speedmatrix/schema"
)

// typedDoc is a one-row table with the base columns and one column per
// name in cols, each holding the matching text.
func typedDoc(cols, texts []string) string {
	return "M on G\nAll measurements\n| Phase | Context | Requests at once | Status | Total tok/s | TTFT | " + strings.Join(cols, " | ") +
		" |\n|" + strings.Repeat("---|", 6+len(cols)) + "\n| Sustained decode | 8K | 4 | Valid | 1,000.0 | 41 ms | " + strings.Join(texts, " | ") + " |\n"
}

// TestBuildTypedColumns gives every Measurement column a typed column
// sets (every nullable figure beyond the seeds' twelve, status_reason,
// repeat) a column headed by its name, and checks that the field, not
// Extra, holds the value exactly.
func TestBuildTypedColumns(t *testing.T) {
	mt := reflect.TypeFor[schema.Measurement]()
	var cols, texts []string
	want := map[string]string{} // column name → value as fmt prints it
	for i := 0; i < mt.NumField(); i++ {
		f := mt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch f.Name {
		case "RunID", "Phase", "ContextLabel", "Concurrency", "Status", "TotalTokS", "PerRequestTokS", "TTFTMs", "TBTMs",
			"AvgActiveRequests", "CompletedRequests", "OutputTokens", "MeasuredS", "Extra", "SourceLine", "Printed":
			continue
		}
		var text string
		switch f.Type {
		case reflect.TypeFor[*float64]():
			text = strconv.FormatFloat(float64(i)+0.1+1e-9, 'f', -1, 64) // needs every digit
			if f.Name == "ServerPrefixCacheHits" || f.Name == "ServerSpecAcceptRate" {
				text = strconv.FormatFloat(float64(i)/100+1e-9, 'f', -1, 64) // a fraction (0–1)
			}
		case reflect.TypeFor[*int64]():
			text = strconv.Itoa(9000 + i)
		case reflect.TypeFor[*int32]():
			text = strconv.Itoa(i)
		case reflect.TypeFor[string]():
			text = "reason " + strconv.Itoa(i)
		default:
			t.Fatalf("field %s of type %v: the test does not know it", f.Name, f.Type)
		}
		cols, texts = append(cols, name), append(texts, text)
		want[name] = text
	}
	m, err := ParseBytes([]byte(typedDoc(cols, texts)), "typed.txt", schema.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	x := m.Measurements[0]
	if len(x.Extra) != 0 {
		t.Errorf("extra = %+v, want none", x.Extra)
	}
	v := reflect.ValueOf(x)
	for i := 0; i < mt.NumField(); i++ {
		name, _, _ := strings.Cut(mt.Field(i).Tag.Get("json"), ",")
		w, ok := want[name]
		if !ok {
			continue
		}
		f := v.Field(i)
		var got string
		switch {
		case f.Kind() == reflect.String:
			got = f.String()
		case f.IsNil():
			got = "null"
		case f.Elem().Kind() == reflect.Float64:
			got = strconv.FormatFloat(f.Elem().Float(), 'f', -1, 64)
		default:
			got = strconv.FormatInt(f.Elem().Int(), 10)
		}
		if got != w {
			t.Errorf("%s = %s, want %s", name, got, w)
		}
	}
	if *x.TotalTokS != 1000 || *x.TTFTMs != 41 || *x.Concurrency != 4 || x.ContextLabel != "8K" {
		t.Errorf("base columns: %+v", x)
	}
}

func TestBuildTypedColumnCases(t *testing.T) {
	tests := []struct {
		name        string
		cols, texts []string
		check       func(x schema.Measurement) string // "" when right
		wantErr     string
	}{
		{name: "context_tokens overrides the label", cols: []string{"context_tokens"}, texts: []string{"8,000"},
			check: func(x schema.Measurement) string { return want64(x.ContextTokens, 8000) }},
		{name: "context_tokens null", cols: []string{"context_tokens"}, texts: []string{"—"},
			check: func(x schema.Measurement) string { return want64(x.ContextTokens, -1) }},
		{name: "ttft_p50_ms beside TTFT", cols: []string{"ttft_p50_ms"}, texts: []string{"39.5"},
			check: func(x schema.Measurement) string {
				if *x.TTFTMs != 41 || x.TTFTP50Ms == nil || *x.TTFTP50Ms != 39.5 {
					return fmt.Sprintf("ttft %v p50 %v", *x.TTFTMs, fmtPtr(x.TTFTP50Ms))
				}
				return ""
			}},
		{name: "header case and space", cols: []string{" TTFT_P90_MS "}, texts: []string{"44.5"},
			check: func(x schema.Measurement) string { return wantF(x.TTFTP90Ms, 44.5) }},
		{name: "a unit converts", cols: []string{"e2e_p99_ms"}, texts: []string{"1.5 s"},
			check: func(x schema.Measurement) string { return wantF(x.E2EP99Ms, 1500) }},
		{name: "infinite request rate", cols: []string{"request_rate"}, texts: []string{"inf"},
			check: func(x schema.Measurement) string { return wantF(x.RequestRate, math.Inf(1)) }},
		{name: "status reason with a bar", cols: []string{"status_reason"}, texts: []string{`HTTP 503 \| upstream`},
			check: func(x schema.Measurement) string {
				if x.StatusReason != "HTTP 503 | upstream" {
					return fmt.Sprintf("reason %q", x.StatusReason)
				}
				return ""
			}},
		{name: "status reason none", cols: []string{"status_reason"}, texts: []string{"—"},
			check: func(x schema.Measurement) string {
				if x.StatusReason != "" {
					return fmt.Sprintf("reason %q", x.StatusReason)
				}
				return ""
			}},
		{name: "repeat", cols: []string{"repeat"}, texts: []string{"2"},
			check: func(x schema.Measurement) string {
				if x.Repeat == nil || *x.Repeat != 2 {
					return "repeat not 2"
				}
				return ""
			}},
		{name: "unknown column stays extra", cols: []string{"ttft_p999_ms", "loop_cycles"}, texts: []string{"48.5", "120"},
			check: func(x schema.Measurement) string {
				if len(x.Extra) != 1 || x.Extra[0] != (schema.Metric{Name: "ttft_p999_ms", Value: 48.5}) {
					return fmt.Sprintf("extra %+v", x.Extra)
				}
				return want64(x.LoopCycles, 120)
			}},
		{name: "bad count", cols: []string{"errored_requests"}, texts: []string{"1.5"}, wantErr: `typed.txt:5: column "errored_requests": 1.5 is not a whole number`},
		{name: "bad figure", cols: []string{"tbt_p99_ms"}, texts: []string{"fast"}, wantErr: `typed.txt:5: column "tbt_p99_ms": not a number`},
		{name: "repeat out of range", cols: []string{"repeat"}, texts: []string{"99999999999"}, wantErr: `column "repeat": 9.9999999999e+10 is out of range`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseBytes([]byte(typedDoc(tt.cols, tt.texts)), "typed.txt", schema.FormatText)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg := tt.check(m.Measurements[0]); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func want64(p *int64, w int64) string {
	switch {
	case p == nil && w == -1:
		return ""
	case p == nil:
		return fmt.Sprintf("null, want %d", w)
	case *p != w:
		return fmt.Sprintf("%d, want %d", *p, w)
	}
	return ""
}

func wantF(p *float64, w float64) string {
	if p == nil || *p != w {
		return fmt.Sprintf("%s, want %v", fmtPtr(p), w)
	}
	return ""
}

// TestTypedColumnOfLowerCase checks that typedColumnOf finds what a
// lookup of strings.ToLower of the trimmed header finds, for every typed
// column's name in random case, padded, and with non-ASCII letters.
func TestTypedColumnOfLowerCase(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	found := 0
	for name := range typedColumns {
		for range 20 {
			b := []byte(name)
			for i := range b {
				if r.IntN(2) == 0 && b[i] >= 'a' && b[i] <= 'z' {
					b[i] -= 'a' - 'A'
				}
			}
			h := []string{"", " ", "\u00a0", "É", strings.Repeat("x", 70)}[r.IntN(5)] + string(b) + []string{"", " ", "\t", "ſ"}[r.IntN(4)]
			got, ok := typedColumnOf(h)
			want, wok := typedColumns[strings.ToLower(trimSpace(h))]
			if ok != wok || got != want {
				t.Fatalf("typedColumnOf(%q) = %v, %v; want %v, %v", h, got, ok, want, wok)
			}
			if ok {
				found++
			}
		}
	}
	if found < len(typedColumns)*5 {
		t.Errorf("only %d headers found a typed column", found)
	}
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		ascii := !slices.ContainsFunc(b, func(c byte) bool { return c >= utf8.RuneSelf })
		if low, ok := appendLowerASCII(nil, string(b)); ok != ascii || ok && string(low) != strings.ToLower(string(b)) {
			t.Fatalf("appendLowerASCII(%q) = %q, %v; strings.ToLower gives %q", b, low, ok, strings.ToLower(string(b)))
		}
	}
}
