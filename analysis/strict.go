package analysis

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// UnknownKeyError is a name given on the command line that nothing
// knows: a selector key no run column or metadata carries, a metric no
// column or extra figure has. It is a usage error, not a failed input.
type UnknownKeyError struct {
	Kind, Name string
	// Known lists what would have been accepted.
	Known []string
}

// Error implements error.
func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("unknown %s %q; known: %s", e.Kind, e.Name, strings.Join(e.Known, ", "))
}

// SelectorKeys lists the run columns a selector filters on, with their
// short aliases and "date", sorted.
func SelectorKeys() []string {
	var out []string
	for k := range runFields {
		out = append(out, k)
	}
	for k := range keyAliases {
		out = append(out, k)
	}
	out = append(out, "date")
	slices.Sort(out)
	return out
}

// CheckSelector returns an *UnknownKeyError when a filter of sel names a
// key that is neither a run column nor a metadata key of any of runs.
func CheckSelector(sel Selector, runs []schema.Run) error {
	for _, f := range sel.Filters {
		k := normKey(f.Key)
		if a, ok := keyAliases[k]; ok {
			k = a
		}
		if _, ok := runFields[k]; ok || k == "date" {
			continue
		}
		meta := map[string]bool{}
		found := false
		for i := range runs {
			for _, kv := range runs[i].Metadata {
				nk := normKey(kv.Key)
				meta[nk] = true
				found = found || nk == k
			}
		}
		if found {
			continue
		}
		known := SelectorKeys()
		if len(meta) > 0 {
			var mk []string
			for m := range meta {
				mk = append(mk, m)
			}
			slices.Sort(mk)
			if len(mk) > 20 {
				mk = append(mk[:20], "…")
			}
			known = append(known, "metadata keys: "+strings.Join(mk, " "))
		}
		return &UnknownKeyError{Kind: "selector key", Name: f.Key, Known: known}
	}
	return nil
}

// CheckMetrics returns an *UnknownKeyError for a metric name that is
// neither a measurements column nor an extra figure of any row of ms.
func CheckMetrics(names []string, ms []*schema.Matrix) error {
	cols := measurementFields()
	for _, n := range names {
		if _, ok := cols[n]; ok {
			continue
		}
		found := false
		for _, m := range ms {
			for i := range m.Measurements {
				for _, e := range m.Measurements[i].Extra {
					if e.Name == n {
						found = true
						break
					}
				}
				if found {
					break
				}
			}
		}
		if !found {
			var known []string
			for c := range cols {
				known = append(known, c)
			}
			slices.Sort(known)
			return &UnknownKeyError{Kind: "metric", Name: n, Known: append(known, "or an extra figure the runs carry")}
		}
	}
	return nil
}

// ParsePercent reads a relative amount written as a percentage, "5%" or
// "0.5%", for the flag name. A bare number is refused: "5" could mean 5%
// or 500%.
func ParsePercent(name, s string) (float64, error) {
	t := strings.TrimSpace(s)
	if !strings.HasSuffix(t, "%") {
		return 0, fmt.Errorf("%s %q: write a percentage with its sign, such as 5%%", name, s)
	}
	return ParseThreshold(t)
}
