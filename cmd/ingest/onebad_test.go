package ingestcmd

import (
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/internal/testtool"
)

// TestOneBadDocumentCostsOnlyItself ingests, in one call, a good document,
// the 18-byte CSV that once panicked the AIPerf CSV reader, and another
// good one: the bad one is an error naming its file and line, exit 1, and
// both good ones land.
func TestOneBadDocumentCostsOnlyItself(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	bad := filepath.Join(testtool.RepoRoot(t), "parse", "testdata", "peers", "bad", "aiperf-csv-bare-quote.csv")
	seeds := testtool.SeedPaths(t)
	code, out, errOut := runIngest(t, "", "-archive", dir, seeds[0], bad, seeds[1])
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, errOut)
	}
	if !strings.Contains(errOut, bad+":2: CSV") {
		t.Errorf("stderr does not name the bad file's line: %s", errOut)
	}
	added := 0
	for _, l := range lines(t, out) {
		if l.outcome == "added" {
			added++
		}
	}
	if added != 2 {
		t.Errorf("%d documents added, want 2:\n%s", added, out)
	}
}
