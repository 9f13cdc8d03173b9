package ingestcmd

import (
	"context"
	"maps"
	"os"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// TestRereadSource stands for a reader fixed after a source was
// ingested: the archive holds the source's bytes under another run id
// (an earlier reading, one figure apart). Ingesting the source again
// names the old run and adds nothing; -reread adds the new reading
// beside it, and -drop then removes the old one: the archive ends with
// the new reading alone.
func TestRereadSource(t *testing.T) {
	ctx := context.Background()
	seed := testtool.SeedPaths(t)[0]
	b, err := os.ReadFile(seed)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := parse.ParseAll(strings.NewReader(string(b)), seed, "")
	if err != nil {
		t.Fatal(err)
	}
	now := ms[0]
	earlier := *now
	earlier.Measurements = append([]schema.Measurement(nil), now.Measurements...)
	for i := range earlier.Measurements {
		if v := earlier.Measurements[i].TotalTokS; v != nil {
			x := *v + 1 // the earlier reader got one figure wrong
			earlier.Measurements[i].TotalTokS = &x
			break
		}
	}
	earlier.Run.RunID = ""
	for i := range earlier.Measurements {
		earlier.Measurements[i].RunID = ""
	}
	earlier.Run.RunID = schema.ComputeRunID(&earlier)
	for i := range earlier.Measurements {
		earlier.Measurements[i].RunID = earlier.Run.RunID
	}
	if earlier.Run.RunID == now.Run.RunID || earlier.Run.SourceSHA256 != now.Run.SourceSHA256 || now.Run.SourceSHA256 == "" {
		t.Fatalf("set-up: run ids %s %s, sources %q %q", earlier.Run.RunID, now.Run.RunID, earlier.Run.SourceSHA256, now.Run.SourceSHA256)
	}
	dir := t.TempDir()
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(ctx, []*schema.Matrix{&earlier}); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)

	code, stdout, stderr := runIngest(t, "", "-archive", dir, seed)
	ls := lines(t, stdout)
	if code != 0 || len(ls) != 1 || ls[0].outcome != "reread" || ls[0].id != now.Run.RunID {
		t.Fatalf("exit %d, lines %+v; want one reread line of run %s\nstderr: %s", code, ls, now.Run.RunID, stderr)
	}
	if !strings.Contains(stderr, "holds this source as run "+earlier.Run.RunID) || !strings.Contains(stderr, "-reread") ||
		!strings.Contains(stderr, "-drop "+earlier.Run.RunID+" then") {
		t.Errorf("stderr does not name the earlier run and the way to add it:\n%s", stderr)
	}
	if after := treeHash(t, dir); len(after) != len(before) {
		t.Errorf("the archive changed: %d files, was %d", len(after), len(before))
	}

	code, stdout, stderr = runIngest(t, "", "-archive", dir, "-reread", seed)
	if ls := lines(t, stdout); code != 0 || len(ls) != 1 || ls[0].outcome != "added" {
		t.Fatalf("-reread: exit %d, lines %+v\nstderr: %s", code, ls, stderr)
	}
	// Once both readings are in, a later ingest of the source is a
	// duplicate of the run it reads as.
	if _, stdout, _ = runIngest(t, "", "-archive", dir, seed); lines(t, stdout)[0].outcome != "duplicate" {
		t.Errorf("after -reread: %s", stdout)
	}

	code, stdout, stderr = runIngest(t, "", "-archive", dir, "-drop", earlier.Run.RunID)
	if ls := lines(t, stdout); code != 0 || len(ls) != 1 || ls[0].outcome != "dropped" || ls[0].id != earlier.Run.RunID {
		t.Fatalf("-drop: exit %d, lines %+v\nstderr: %s", code, ls, stderr)
	}
	runs, err := a.Runs(ctx)
	if err != nil || len(runs) != 1 || runs[0].RunID != now.Run.RunID {
		t.Fatalf("after -drop: %d runs (%v), want the new reading %s alone", len(runs), err, now.Run.RunID)
	}
	if _, stdout, _ = runIngest(t, "", "-archive", dir, seed); lines(t, stdout)[0].outcome != "duplicate" {
		t.Errorf("after -drop: %s", stdout)
	}
	// A run the archive does not hold: exit 1, named, nothing changed.
	before = treeHash(t, dir)
	code, stdout, stderr = runIngest(t, "", "-archive", dir, "-drop", now.Run.RunID+","+earlier.Run.RunID)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "holds no run "+earlier.Run.RunID+"; nothing dropped") {
		t.Errorf("-drop of a dropped run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if after := treeHash(t, dir); !maps.Equal(after, before) {
		t.Error("a refused -drop changed the archive")
	}
}
