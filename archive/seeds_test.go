package archive

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/parse"
	"speedmatrix/schema"
)

// seedRows returns the rows of the repository's seed documents, parsed,
// each run's rows carrying its id, sorted by run id as a batch is.
func seedRows(t testing.TB) ([]schema.Run, []schema.Measurement) {
	t.Helper()
	paths, err := filepath.Glob("../testdata/seeds/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	var runs []schema.Run
	var rows []schema.Measurement
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := parse.ParseAll(bytes.NewReader(b), p, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			r, err := prepare(m, time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
			for _, x := range m.Measurements {
				x.RunID = r.RunID
				rows = append(rows, x)
			}
		}
	}
	slices.SortStableFunc(rows, func(x, y schema.Measurement) int { return strings.Compare(x.RunID, y.RunID) })
	return runs, rows
}
