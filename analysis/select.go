package analysis

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// Filter is one metadata condition on a run: key=value (equal, ignoring
// case) or key=~value (contains, ignoring case). Key is a runs column
// name (gpu, model, engine, engine_version, quantization, …), a short
// alias (version, quant, id, date) or a metadata key as printed in the
// document ("Benchmark tool" or benchmark_tool).
type Filter struct {
	Key, Value string
	Substring  bool
}

// String returns the filter as written.
func (f Filter) String() string {
	if f.Substring {
		return f.Key + "=~" + f.Value
	}
	return f.Key + "=" + f.Value
}

// Match reports whether run r satisfies the filter.
func (f Filter) Match(r *schema.Run) bool {
	for _, v := range runValues(r, f.Key) {
		if f.Substring && strings.Contains(strings.ToLower(v), strings.ToLower(f.Value)) ||
			!f.Substring && strings.EqualFold(v, f.Value) {
			return true
		}
	}
	return false
}

// Selector picks runs: by run-id prefix, or by comma-separated filters
// ("gpu=~H200,quantization=BF16"), all of which must hold.
type Selector struct {
	Raw     string
	Prefix  string
	Filters []Filter
}

// ParseSelector reads a selector: a run-id prefix (hex digits), or one or
// more comma-separated key=value / key=~value filters.
func ParseSelector(s string) (Selector, error) {
	sel := Selector{Raw: s}
	s = strings.TrimSpace(s)
	if s == "" {
		return sel, fmt.Errorf("empty selector")
	}
	if !strings.Contains(s, "=") {
		sel.Prefix = strings.ToLower(s)
		return sel, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return sel, fmt.Errorf("selector %q: %q is not key=value or key=~value", s, part)
		}
		f := Filter{Key: k, Value: strings.TrimSpace(v)}
		if strings.HasPrefix(f.Value, "~") {
			f.Substring, f.Value = true, strings.TrimSpace(f.Value[1:])
		}
		sel.Filters = append(sel.Filters, f)
	}
	return sel, nil
}

// Match reports whether run r is selected.
func (s Selector) Match(r *schema.Run) bool {
	if s.Prefix != "" && !strings.HasPrefix(strings.ToLower(r.RunID), s.Prefix) {
		return false
	}
	for _, f := range s.Filters {
		if !f.Match(r) {
			return false
		}
	}
	return true
}

// FilterRuns returns the runs sel matches, in their order.
func FilterRuns(runs []schema.Run, sel Selector) []schema.Run {
	var out []schema.Run
	for i := range runs {
		if sel.Match(&runs[i]) {
			out = append(out, runs[i])
		}
	}
	return out
}

// maxListed bounds how many matches an ambiguity error lists.
const maxListed = 10

// Select returns the one run selector matches among runs. When it
// matches none, the error lists the values present for its key
// (NoMatch); when several, the matches, where they differ and how to
// pick each (Ambiguous).
func Select(runs []schema.Run, selector string) (schema.Run, error) {
	sel, err := ParseSelector(selector)
	if err != nil {
		return schema.Run{}, err
	}
	var hits []int
	for i := range runs {
		if sel.Match(&runs[i]) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return runs[hits[0]], nil
	case 0:
		return schema.Run{}, NoMatch(sel, selector, runs)
	}
	matched := make([]schema.Run, len(hits))
	for j, i := range hits {
		matched[j] = runs[i]
	}
	return schema.Run{}, Ambiguous(selector, matched)
}

// describe is a one-line summary of a run for Ambiguous's error: id,
// date, model, GPU, engine and version, quantization.
func describe(r *schema.Run) string {
	return strings.Join([]string{r.RunID, DateText(RunDate(r)), r.Model, r.GPU, strings.TrimSpace(r.Engine + " " + r.EngineVersion), r.Quantization}, "  ")
}

// RunDate is when a run was measured (its start), the zero time when
// the run does not say: its ingest date is not its date.
func RunDate(r *schema.Run) time.Time {
	return startedDate(r.StartedAt)
}

// startedDate is RunDate of a run started at t (nil when not known).
func startedDate(t *time.Time) time.Time {
	if t != nil && !t.IsZero() {
		return t.UTC()
	}
	return time.Time{}
}

// Undated is how a run without a date prints its date.
const Undated = "undated"

// DateText prints a date as listings do ("2026-03-02"), Undated for the
// zero time.
func DateText(t time.Time) string {
	if t.IsZero() {
		return Undated
	}
	return t.Format(time.DateOnly)
}

var keyAliases = map[string]string{
	"id": "run_id", "version": "engine_version", "quant": "quantization",
	"tool": "bench_tool", "commit": "engine_commit", "file": "source_path",
}

// runFields maps the runs columns (JSON tags) of string and numeric
// fields to their index in schema.Run.
var runFields = func() map[string]int {
	out := map[string]int{}
	t := reflect.TypeOf(schema.Run{})
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag != "" && tag != "-" {
			out[tag] = i
		}
	}
	return out
}()

func normKey(k string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), " ", "_")
}

// runValues returns the values of key in r: the column's value, or the
// values of metadata pairs with that key.
func runValues(r *schema.Run, key string) []string {
	k := normKey(key)
	if a, ok := keyAliases[k]; ok {
		k = a
	}
	if k == "date" {
		return []string{DateText(RunDate(r))}
	}
	if i, ok := runFields[k]; ok {
		if s, ok := fieldString(reflect.ValueOf(r).Elem().Field(i)); ok {
			return []string{s}
		}
	}
	var out []string
	for _, f := range r.Metadata {
		if normKey(f.Key) == k {
			out = append(out, f.Value)
		}
	}
	return out
}

func fieldString(v reflect.Value) (string, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), true
	}
	return "", false
}
