package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"speedmatrix/internal/textdist"
	"strings"

	"speedmatrix/schema"
)

// What a selector that does not pick one run says: the values present
// for its key, closest first, when it matches none (NoMatch); the fields
// in which the runs it matches differ, and the selector that picks each,
// when it matches several (Ambiguous).

// maxValues bounds how many values a no-match error lists.
const maxValues = 8

// NoMatch returns the error of selector sel (as written: raw) that
// matches none of runs. For the first filter that rules out every run
// the others leave, it lists the values of its key among those runs,
// closest to the value asked for first, with their counts, and suggests
// =~ when a value contains the one asked for.
func NoMatch(sel Selector, raw string, runs []schema.Run) error {
	head := fmt.Sprintf("selector %q matches none of %d runs", raw, len(runs))
	if sel.Prefix != "" {
		return fmt.Errorf("%s: no run id starts with %s", head, sel.Prefix)
	}
	for i, f := range sel.Filters {
		others := Selector{Prefix: sel.Prefix, Filters: slices.Delete(slices.Clone(sel.Filters), i, i+1)}
		left := FilterRuns(runs, others)
		if len(left) == 0 {
			continue
		}
		var b strings.Builder
		b.WriteString(head)
		b.WriteString("; ")
		if len(others.Filters) > 0 {
			fmt.Fprintf(&b, "among the %s %s matches, ", plural(len(left), "run"), others.filtersText())
		}
		key := normKey(f.Key)
		vals, without := presentValues(left, f.Key, f.Value)
		if len(vals) == 0 {
			fmt.Fprintf(&b, "no run gives %s", key)
			return fmt.Errorf("%s", b.String())
		}
		fmt.Fprintf(&b, "%s values present: ", key)
		for j, v := range vals {
			if j == maxValues {
				fmt.Fprintf(&b, ", … and %d more", len(vals)-maxValues)
				break
			}
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q (%s)", v.value, plural(v.runs, "run"))
		}
		if !f.Substring && strings.Contains(strings.ToLower(vals[0].value), strings.ToLower(f.Value)) {
			fmt.Fprintf(&b, "; %s=~%s would match a part of %q", f.Key, f.Value, vals[0].value)
		}
		if without > 0 {
			fmt.Fprintf(&b, "; %s no %s", plural(without, "run gives", "runs give"), key)
		}
		return fmt.Errorf("%s", b.String())
	}
	return fmt.Errorf("%s", head)
}

// filtersText writes the filters of s as a selector.
func (s Selector) filtersText() string {
	parts := make([]string, len(s.Filters))
	for i, f := range s.Filters {
		parts[i] = f.String()
	}
	return strings.Join(parts, ",")
}

// valueCount is one value of a key and the number of runs giving it.
type valueCount struct {
	value string
	runs  int
	dist  int
}

// presentValues returns the distinct values of key among runs, closest
// to want first (closeness), then the most common, then by value, and
// the number of runs that give none (or an empty one).
func presentValues(runs []schema.Run, key, want string) (_ []valueCount, without int) {
	at := map[string]int{}
	var out []valueCount
	for i := range runs {
		vs := slices.DeleteFunc(slices.Compact(runValues(&runs[i], key)), func(v string) bool { return v == "" })
		if len(vs) == 0 {
			without++
		}
		for _, v := range vs {
			j, ok := at[v]
			if !ok {
				j = len(out)
				at[v] = j
				out = append(out, valueCount{value: v, dist: closeness(want, v)})
			}
			out[j].runs++
		}
	}
	slices.SortFunc(out, func(x, y valueCount) int {
		return cmp.Or(cmp.Compare(x.dist, y.dist), cmp.Compare(y.runs, x.runs), cmp.Compare(x.value, y.value))
	})
	return out, without
}

// closeness is how far value v is from the value asked for, ignoring
// case: 0 when equal; a value that contains the other (or is contained
// in it) is closer than any other, by its difference in length; else the
// edit distance, after all of those.
func closeness(want, v string) int {
	a, b := strings.ToLower(want), strings.ToLower(v)
	switch {
	case a == b:
		return 0
	case strings.Contains(b, a) || strings.Contains(a, b):
		return 1 + abs(len(a)-len(b))
	}
	return 1<<16 + textdist.Levenshtein(a, b)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// plural writes n and what: one, or many (what+"s" when not given).
func plural(n int, what ...string) string {
	if n == 1 {
		return "1 " + what[0]
	}
	if len(what) > 1 {
		return fmt.Sprintf("%d %s", n, what[1])
	}
	return fmt.Sprintf("%d %ss", n, what[0])
}

// Ambiguous returns the error of selector raw matching every run of
// hits (more than one): each run on a line (describe), then the fields
// in which the runs differ and, for each run, a selector that picks it
// alone: raw with one more filter on a field whose value is that run's
// only, or else a run-id prefix.
func Ambiguous(raw string, hits []schema.Run) error {
	var b strings.Builder
	fmt.Fprintf(&b, "selector %q matches %d runs, want exactly one", raw, len(hits))
	shown := hits
	if len(shown) > maxListed {
		shown = shown[:maxListed]
	}
	keys := differingKeys(hits)
	if len(keys) > 0 {
		names := keys
		if len(names) > 6 {
			names = append(slices.Clone(names[:6]), "…")
		}
		fmt.Fprintf(&b, "; they differ in %s", strings.Join(names, ", "))
	}
	b.WriteString(":")
	for i := range shown {
		r := &shown[i]
		fmt.Fprintf(&b, "\n  %s", strings.TrimRight(describe(r), " "))
		fmt.Fprintf(&b, "\n      pick it with %s", pickSelector(raw, r, hits, keys))
	}
	if len(hits) > maxListed {
		fmt.Fprintf(&b, "\n  … and %d more", len(hits)-maxListed)
	}
	return fmt.Errorf("%s", b.String())
}

// hintColumns are the run columns an ambiguity error compares, in the
// order it prefers them for a selector; metadata keys follow, in the
// order the runs give them, then the title and the source file.
var hintColumns = []string{"gpu", "model", "engine", "engine_version", "quantization", "bench_tool", "gpu_count", "tensor_parallel", "max_model_len", "date"}

// differingKeys returns the selector keys whose values are not the same
// in every run of hits.
func differingKeys(hits []schema.Run) []string {
	var cands []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			cands = append(cands, k)
		}
	}
	for _, k := range hintColumns {
		add(k)
	}
	for i := range hits {
		for _, f := range hits[i].Metadata {
			if k := normKey(f.Key); !isColumn(k) {
				add(k)
			}
		}
	}
	add("title")
	add("source_path")
	var out []string
	for _, k := range cands {
		first := valueText(&hits[0], k)
		for i := 1; i < len(hits); i++ {
			if valueText(&hits[i], k) != first {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// isColumn reports whether k is a runs column (or an alias of one).
func isColumn(k string) bool {
	if a, ok := keyAliases[k]; ok {
		k = a
	}
	_, ok := runFields[k]
	return ok || k == "date"
}

// valueText is the values of key k in r as one string ("" for none).
func valueText(r *schema.Run, k string) string {
	return strings.Join(runValues(r, k), "\x00")
}

// pickSelector returns a selector that matches r alone among hits: raw
// and a filter key=value on the first of keys whose value in r no other
// run of hits has (one value, no comma, so that it reads back; a value
// without spaces first), quoted for a shell where it needs it; else the
// shortest run-id prefix of r that no other run shares (8 hex digits at
// least).
func pickSelector(raw string, r *schema.Run, hits []schema.Run, keys []string) string {
	if !strings.Contains(raw, "=") {
		keys = nil // a run-id prefix takes no filter beside it
	}
	for _, spaced := range []bool{false, true} {
		for _, k := range keys {
			vs := runValues(r, k)
			if len(vs) != 1 || vs[0] == "" || strings.ContainsAny(vs[0], ",=~") || strings.TrimSpace(vs[0]) != vs[0] ||
				strings.Contains(vs[0], " ") != spaced {
				continue
			}
			v := vs[0]
			unique := true
			for i := range hits {
				if hits[i].RunID != r.RunID && slices.ContainsFunc(runValues(&hits[i], k), func(o string) bool { return strings.EqualFold(o, v) }) {
					unique = false
					break
				}
			}
			if unique {
				return shellQuote(raw + "," + k + "=" + v)
			}
		}
	}
	n := min(8, len(r.RunID))
	for ; n < len(r.RunID); n++ {
		clash := false
		for i := range hits {
			if hits[i].RunID != r.RunID && strings.HasPrefix(strings.ToLower(hits[i].RunID), strings.ToLower(r.RunID[:n])) {
				clash = true
				break
			}
		}
		if !clash {
			break
		}
	}
	return r.RunID[:n]
}

// shellQuote returns s as one shell word: as is when it holds only
// characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	if strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.,=~:/+@%", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
