package runner

import (
	"os"
	"path/filepath"
	"testing"

	"speedmatrix/schema"
)

func TestCheckpointRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.checkpoint.json")
	m := &schema.Matrix{Run: schema.Run{Model: "m"}, Measurements: []schema.Measurement{
		{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(2), Status: schema.StatusValid, TotalTokS: schema.F64(123.4)},
	}}
	for i := 0; i < 2; i++ { // the second save replaces the first
		if err := SaveCheckpoint(path, &Checkpoint{Key: "k", Tag: "abcd0123", Matrix: m}); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Key != "k" || cp.Tag != "abcd0123" || *cp.Matrix.Measurements[0].TotalTokS != 123.4 {
		t.Fatalf("loaded %+v", cp)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	if err := os.WriteFile(path, []byte(`{"key":"k"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCheckpoint(path); err == nil {
		t.Fatal("checkpoint without a matrix loaded")
	}
}

// TestCheckpointCreatesItsDirectory: a checkpoint in a directory that does
// not exist yet (run -archive NEWDIR) is saved, not lost.
func TestCheckpointCreatesItsDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "archive", "run.checkpoint.json")
	m := &schema.Matrix{Run: schema.Run{Model: "m", RunID: "0123"}}
	if err := SaveCheckpoint(path, &Checkpoint{Key: "k", Matrix: m, Complete: true}); err != nil {
		t.Fatal(err)
	}
	cp, err := LoadCheckpoint(path)
	if err != nil || !cp.Complete || cp.Matrix.Run.RunID != "0123" {
		t.Fatalf("loaded %+v, %v", cp, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("checkpoint mode %v, %v; want 0600 (it may hold a launch command)", st.Mode(), err)
	}
}
