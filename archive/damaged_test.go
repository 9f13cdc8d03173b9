package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestDamagedFiles damages one batch of a three-batch archive in each
// way a copy or a disk can, and checks Check, the error without
// SkipDamaged, the reads and writes with it, and MoveAside.
func TestDamagedFiles(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		table  string
		damage func(t *testing.T, path string, orig []byte)
	}{
		{"truncated measurements", TableMeasurements, func(t *testing.T, p string, orig []byte) {
			if err := os.WriteFile(p, orig[:len(orig)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"runs file that is not Parquet", TableRuns, func(t *testing.T, p string, _ []byte) {
			if err := os.WriteFile(p, []byte("run_id,model\nabc,x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"runs table in measurements", TableMeasurements, func(t *testing.T, p string, _ []byte) {
			writeData(t, p, []schema.Run{testMatrix(40).Run})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openTest(t)
			for _, r := range [][2]int{{0, 2}, {2, 4}, {4, 6}} {
				if _, err := a.Append(ctx, testMatrices(r[0], r[1])); err != nil {
					t.Fatal(err)
				}
			}
			l, err := scan(a.Dir())
			if err != nil {
				t.Fatal(err)
			}
			stem := l.committed()[1]
			bad := l.files[tt.table][stem]
			// The damage replaces the file (a new inode), as a bad copy
			// would: the published snapshot keeps the good one.
			orig, err := os.ReadFile(bad)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(bad); err != nil {
				t.Fatal(err)
			}
			tt.damage(t, bad, orig)

			fresh, err := Open(a.Dir())
			if err != nil {
				t.Fatal(err)
			}
			got, err := fresh.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Path != bad || got[0].Stem != stem || got[0].Table != tt.table {
				t.Fatalf("Check found %+v, want %s", got, bad)
			}

			// Without SkipDamaged: the call fails, naming the file.
			var de *DamagedError
			if _, err := fresh.Load(ctx); !errors.As(err, &de) || de.Path != bad {
				t.Fatalf("Load with a damaged file: %v, want a DamagedError for %s", err, bad)
			}
			if tt.table == TableRuns {
				if _, err := fresh.Append(ctx, testMatrices(6, 7)); !errors.As(err, &de) {
					t.Fatalf("Append with a damaged runs file: %v", err)
				}
			}

			// With it: the other batches, and the file named once.
			var named []string
			skip, _ := Open(a.Dir())
			skip.SkipDamaged = true
			skip.OnDamaged = func(d Damage) { named = append(named, d.Path) }
			ms, err := skip.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 4 {
				t.Fatalf("Load with SkipDamaged: %d runs, want the 4 of the good batches", len(ms))
			}
			if _, err := skip.Append(ctx, testMatrices(6, 7)); err != nil {
				t.Fatal(err)
			}
			if _, err := skip.Runs(ctx); err != nil {
				t.Fatal(err)
			}
			if len(named) != 1 || named[0] != bad {
				t.Fatalf("OnDamaged heard %v, want %s once", named, bad)
			}
			// The published snapshot leaves the damaged batch out.
			pub, err := skip.published()
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range pub[TableRuns] {
				if s == stem {
					t.Fatalf("snapshot holds the damaged batch %s", stem)
				}
			}

			// Moved aside, the archive reads whole again without the flag.
			moved, err := fresh.MoveAside(ctx, []string{got[0].Stem})
			if err != nil {
				t.Fatal(err)
			}
			if len(moved) < 2 {
				t.Fatalf("MoveAside moved %v, want the batch's runs and measurements files", moved)
			}
			for _, p := range moved {
				if !strings.HasPrefix(p, filepath.Join(a.Dir(), damagedDir)) {
					t.Errorf("moved to %s", p)
				}
			}
			if ms, err := fresh.Load(ctx); err != nil || len(ms) != 5 {
				t.Fatalf("Load after MoveAside: %d runs, %v", len(ms), err)
			}
			if got, err := fresh.Check(ctx); err != nil || len(got) != 0 {
				t.Fatalf("Check after MoveAside: %+v, %v", got, err)
			}
		})
	}
}
