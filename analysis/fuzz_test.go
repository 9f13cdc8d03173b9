package analysis

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// seedLines returns the non-empty, non-comment lines of a testdata file:
// the seed corpus of the fuzz targets.
func seedLines(f *testing.F, name string) []string {
	file, err := os.Open("testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	var out []string
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func FuzzParseSelector(f *testing.F) {
	for _, l := range seedLines(f, "selectors.txt") {
		f.Add(l)
	}
	runs := testRuns()
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err != nil {
			return
		}
		if sel.Prefix == "" && len(sel.Filters) == 0 {
			t.Fatalf("%q: selector with neither prefix nor filters", s)
		}
		// Select agrees with FilterRuns: one match is returned, others fail.
		hits := FilterRuns(runs, sel)
		r, err := Select(runs, s)
		if (len(hits) == 1) != (err == nil) || (err == nil && r.RunID != hits[0].RunID) {
			t.Fatalf("%q: %d matches but Select gave %q, %v", s, len(hits), r.RunID, err)
		}
	})
}

func FuzzCompareVersions(f *testing.F) {
	vs := seedLines(f, "versions.txt")
	for i := range vs {
		f.Add(vs[i], vs[(i+1)%len(vs)], vs[(i+2)%len(vs)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := CompareVersions(a, b), CompareVersions(b, a)
		if ab != -ba {
			t.Fatalf("not antisymmetric: %q vs %q: %d, %d", a, b, ab, ba)
		}
		if CompareVersions(a, a) != 0 {
			t.Fatalf("%q != itself", a)
		}
		if ab <= 0 && CompareVersions(b, c) <= 0 && CompareVersions(a, c) > 0 {
			t.Fatalf("not transitive: %q <= %q <= %q but %q > %q", a, b, c, a, c)
		}
	})
}

func FuzzParseCell(f *testing.F) {
	for _, l := range seedLines(f, "cells.txt") {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseCell(s)
		if err != nil {
			return
		}
		if k.ContextLabel == "" || k.Concurrency <= 0 {
			t.Fatalf("%q: accepted %+v", s, k)
		}
		switch k.Phase {
		case schema.PhasePrefill, schema.PhaseDecode, schema.PhaseServe:
		default:
			t.Fatalf("%q: phase %q", s, k.Phase)
		}
	})
}
