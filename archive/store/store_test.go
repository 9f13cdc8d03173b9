package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// matrix returns a small distinct matrix.
func matrix(i int) *schema.Matrix {
	m := &schema.Matrix{Run: schema.Run{
		SchemaVersion: schema.Version, SourcePath: fmt.Sprintf("doc-%d.txt", i), SourceFormat: schema.FormatText,
		Title: fmt.Sprintf("Model-%d on GPU", i), Model: fmt.Sprintf("Model-%d", i), GPU: "H100", Engine: "vllm",
	}}
	m.Measurements = []schema.Measurement{{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(1),
		Status: schema.StatusValid, TotalTokS: schema.F64(100 + float64(i)), SourceLine: 10}}
	m.Run.RunID = schema.ComputeRunID(m)
	return m
}

// TestOpenSelects: the reference's form picks the kind; a reader never
// creates a missing directory or table.
func TestOpenSelects(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		ref     string
		create  bool
		table   bool
		wantErr string
	}{
		{ref: filepath.Join(dir, "a"), create: true},
		{ref: filepath.Join(dir, "a")},
		{ref: filepath.Join(dir, "missing"), wantErr: "no such file"},
		{ref: "iceberg+sqlite://" + filepath.Join(dir, "c.db"), create: true, table: true},
		{ref: "iceberg+sqlite://" + filepath.Join(dir, "c.db"), table: true},
		{ref: "iceberg+sqlite://" + filepath.Join(dir, "none.db"), wantErr: "no catalog file"},
		{ref: "iceberg+mysql://h/db", wantErr: "unknown catalog"},
		{ref: "", wantErr: "no archive"},
	} {
		s, err := Open(ctx, c.ref, Options{Create: c.create, Timeout: 10 * time.Second})
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: %v, want %q", c.ref, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.ref, err)
		}
		if (Table(s) != nil) != c.table || (Dir(s) != nil) == c.table || !strings.HasPrefix(s.String(), c.ref) {
			t.Errorf("%q: table %v, dir %v, name %q", c.ref, Table(s) != nil, Dir(s) != nil, s.String())
		}
		s.Close()
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a reader created a missing directory")
	}
}

// TestTablePinsOneSnapshot: a command's reads of a table see one state
// while another host appends; its own append unpins.
func TestTablePinsOneSnapshot(t *testing.T) {
	ctx := context.Background()
	ref := "iceberg+sqlite://" + filepath.Join(t.TempDir(), "c.db")
	s, err := Open(ctx, ref, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(ctx, ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := s.Append(ctx, []*schema.Matrix{matrix(0), matrix(1)}); err != nil {
		t.Fatal(err)
	}
	if ls, err := s.ListRuns(ctx); err != nil || len(ls) != 2 {
		t.Fatalf("list: %d %v", len(ls), err)
	}
	if res, err := other.Append(ctx, []*schema.Matrix{matrix(2)}); err != nil || res.Items[0].Outcome != archive.Added {
		t.Fatalf("other host: %v %v", res, err)
	}
	runs, err := s.Runs(ctx)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs after another host's append: %d %v, want the pinned 2", len(runs), err)
	}
	if _, err := s.Load(ctx, matrix(2).Run.RunID); !errors.Is(err, archive.ErrNotFound) {
		t.Fatalf("load of a run after the pin: %v", err)
	}
	if ms, err := s.Load(ctx); err != nil || len(ms) != 2 {
		t.Fatalf("load all: %d %v", len(ms), err)
	}
	if res, err := s.Append(ctx, []*schema.Matrix{matrix(2), matrix(3)}); err != nil || res.Items[0].Outcome != archive.Duplicate || res.Items[1].Outcome != archive.Added {
		t.Fatalf("own append: %v %v", res, err)
	}
	if runs, err := s.Runs(ctx); err != nil || len(runs) != 4 {
		t.Fatalf("runs after its own append: %d %v", len(runs), err)
	}
	if ms, err := s.Drop(ctx, []string{matrix(0).Run.RunID}); err != nil || len(ms) != 1 || ms[0].Run.RunID != matrix(0).Run.RunID {
		t.Fatalf("drop on a table: %v", err)
	}
	if runs, err := s.Runs(ctx); err != nil || len(runs) != 3 || slices.ContainsFunc(runs, func(r schema.Run) bool { return r.RunID == matrix(0).Run.RunID }) {
		t.Fatalf("runs after the drop: %d %v", len(runs), err)
	}
	// The files the drop replaced go once their snapshots expire.
	tms, err := Table(s).Maintain(ctx, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	replaced := 0
	for _, m := range tms {
		for _, p := range m.Orphans {
			if strings.Contains(p, "/data/") {
				replaced++
			}
		}
	}
	if replaced < 2 { // the runs and measurements files holding matrix(0)
		t.Errorf("maintenance after the drop removed %d data files: %+v", replaced, tms)
	}
	// Maintenance commits too (compaction, manifests), and with a grace
	// of 0 the snapshot this store pinned at its drop is expired and its
	// manifests removed: reads move to the current state first.
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if ms, err := s.Load(ctx); err != nil || len(ms) != 3 {
		t.Fatalf("load after maintenance: %d %v", len(ms), err)
	}
}
