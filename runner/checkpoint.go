package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"speedmatrix/schema"
)

// Checkpoint is what a run saves after each cell so that -resume can
// continue it: the settings that identify the run, its prompt tag and
// the matrix of finished cells. It never holds the API key.
type Checkpoint struct {
	// Key identifies the run's settings (URL, model, contexts,
	// concurrency, duration, max tokens, endpoint); a checkpoint with
	// another key is not resumed.
	Key string `json:"key"`
	Tag string `json:"tag"`
	// Seed is an open-loop run's arrival seed (drawn when -seed was not
	// given): the rates still to run after -resume draw from it.
	Seed   uint64         `json:"seed,omitempty"`
	Matrix *schema.Matrix `json:"matrix"`
	// Complete marks the checkpoint of a finished run: Matrix is the
	// final matrix, with its finish time and run id, still to be written
	// as a document and archived. -resume does that without measuring
	// again, so the run keeps its id and an archive that already took it
	// reports a duplicate instead of a second copy.
	Complete bool `json:"complete,omitempty"`
}

// SaveCheckpoint writes cp to path atomically (WriteAtomic), creating
// its directory first.
func SaveCheckpoint(path string, cp *Checkpoint) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	return WriteAtomic(path, b, 0o600)
}

// WriteAtomic writes b to path so that path holds either its old content
// or all of b, never part of it: a temporary file in the same directory
// (created first when missing), given perm, synced, then renamed over
// path.
func WriteAtomic(path string, b []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// LoadCheckpoint reads a checkpoint written by SaveCheckpoint.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cp.Matrix == nil {
		return nil, fmt.Errorf("%s: checkpoint without a matrix", path)
	}
	return &cp, nil
}
