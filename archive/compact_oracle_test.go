package archive

// The in-memory compaction that Compact and Drop replaced, kept as the
// oracle of their streaming merge (TestCompactSameAsInMemory).

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

// compactInMemory is compactLocked as it was: the whole archive loaded,
// sorted and written at once.
func (a *Archive) compactInMemory(ctx context.Context, l *layout, drop []string) (dropped []*schema.Matrix, err error) {
	stems := l.committed()
	if len(drop) == 0 && (len(stems) == 0 || len(stems) == 1 && grouped(l, stems[0])) {
		return nil, a.publish(ctx, l)
	}
	srs, err := a.readRuns(ctx, l, stems, nil)
	if err != nil {
		return nil, err
	}
	ms, err := a.load(ctx, l, srs, nil, nil)
	if err != nil {
		return nil, err
	}
	if ms, dropped, err = without(ms, drop); err != nil {
		return nil, err
	}
	// In run_id order, as Append writes (see there).
	slices.SortFunc(ms, func(x, y *schema.Matrix) int { return cmp.Compare(x.Run.RunID, y.Run.RunID) })
	runs := make([]schema.Run, len(ms))
	nrows, nsamples := 0, 0
	for _, m := range ms {
		nrows += len(m.Measurements)
		nsamples += len(m.Samples)
	}
	rows := make([]schema.Measurement, 0, nrows)
	samples := make([]schema.Sample, 0, nsamples)
	for i, m := range ms {
		runs[i] = m.Run
		if runs[i].Cells == nil { // written before the column existed
			n := countCells(m.Measurements)
			runs[i].Cells = &n
		}
		rows = append(rows, m.Measurements...)
		samples = append(samples, m.Samples...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err = a.commit(l, newStem(time.Now()), runs, rows, samples, stems); err != nil {
		return nil, err
	}
	return dropped, a.republish(ctx)
}

// without splits ms into the runs drop does not name and those it does,
// or returns an error naming the ids of drop that ms does not hold.
func without(ms []*schema.Matrix, drop []string) (kept, dropped []*schema.Matrix, err error) {
	if len(drop) == 0 {
		return ms, nil, nil
	}
	held := map[string]bool{}
	for _, m := range ms {
		held[m.Run.RunID] = true
	}
	var missing []string
	for _, id := range drop {
		if !held[id] && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("drop: the archive holds no run %s; nothing dropped", strings.Join(missing, ", "))
	}
	for _, m := range ms {
		if slices.Contains(drop, m.Run.RunID) {
			dropped = append(dropped, m)
		} else {
			kept = append(kept, m)
		}
	}
	return kept, dropped, nil
}

// commit writes one transaction of rows under the exclusive lock (see
// tempFiles.commit).
func (a *Archive) commit(l *layout, stem string, runs []schema.Run, ms []schema.Measurement,
	samples []schema.Sample, replaces []string) ([]string, error) {
	tf := &tempFiles{dir: a.dir, stem: stem}
	if err := tf.write(runs, ms, samples); err != nil {
		return nil, err
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	return tf.commit(a, l, replaces, ids)
}

// TestCompactSameAsInMemory: Compact and Drop write the same files, byte
// for byte, and return the same dropped runs as the in-memory compaction
// they replaced, on an archive of every shape a merge meets: stems of a
// Writer whose batches overlap (several segments a file), duplicates
// across stems copied from two hosts (the earlier kept), an older
// unsorted single-group stem without statistics or cells, samples on
// some runs only; with the fan-in small enough for passes or not.
func TestCompactSameAsInMemory(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		fanIn int
		drop  []int // indices into the matrices
	}{
		{"compact", 64, nil},
		{"compact in passes", 3, nil},
		{"drop", 64, []int{3, 17, 41}},
		{"drop in passes", 2, []int{0, 44}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prevFan, prevBatch := maxFanIn, batchRows
			maxFanIn, batchRows = tc.fanIn, 30
			t.Cleanup(func() { maxFanIn, batchRows = prevFan, prevBatch })
			smallGroups(t, 12)
			ms := testMatrices(0, 50)
			h0, h1 := openTest(t), openTest(t)
			for _, part := range []struct {
				a        *Archive
				from, to int
			}{{h0, 0, 30}, {h1, 20, 40}, {h0, 30, 35}} {
				w, err := part.a.NewWriter(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range testMatrices(part.from, part.to) {
					if _, err := w.Add(m); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			merged := mergeByCopy(t, h0, h1)
			writeUnsorted(t, merged, testMatrices(40, 48))
			var drop []string
			for _, i := range tc.drop {
				drop = append(drop, ms[i].Run.RunID)
			}
			oracleDir := filepath.Join(t.TempDir(), "oracle")
			if out, err := exec.Command("cp", "-a", merged.Dir(), oracleDir).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v: %s", err, out)
			}
			oracle, err := Open(oracleDir)
			if err != nil {
				t.Fatal(err)
			}
			var want []*schema.Matrix
			if err := oracle.underWriteLock(ctx, func(l *layout) (err error) {
				want, err = oracle.compactInMemory(ctx, l, drop)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			var got []*schema.Matrix
			if drop == nil {
				err = merged.Compact(ctx)
			} else {
				got, err = merged.Drop(ctx, drop)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("dropped %d runs, the in-memory compaction %d (or they differ)", len(got), len(want))
			}
			for _, table := range Tables {
				g, w := dataFiles(t, merged.Dir(), table), dataFiles(t, oracleDir, table)
				if len(g) != 1 || len(w) != 1 {
					t.Fatalf("%s: %d files, the in-memory compaction %d; want 1", table, len(g), len(w))
				}
				gb, err := os.ReadFile(g[0])
				if err != nil {
					t.Fatal(err)
				}
				wb, err := os.ReadFile(w[0])
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(gb, wb) {
					t.Errorf("%s: %d bytes, the in-memory compaction's %d, differ", table, len(gb), len(wb))
				}
			}
			left, err := merged.Runs(ctx)
			if err != nil || len(left) != 48-len(drop) {
				t.Fatalf("after: %d runs, %v; want %d", len(left), err, 48-len(drop))
			}
			// No temp file of a pass is left behind.
			for _, table := range Tables {
				ents, _ := os.ReadDir(filepath.Join(merged.Dir(), table))
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), tempPrefix) {
						t.Errorf("left behind: %s/%s", table, e.Name())
					}
				}
			}
		})
	}
}
