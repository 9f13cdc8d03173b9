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
	Key    string         `json:"key"`
	Tag    string         `json:"tag"`
	Matrix *schema.Matrix `json:"matrix"`
}

// SaveCheckpoint writes cp to path atomically (a temporary file in the
// same directory, synced, then renamed over path).
func SaveCheckpoint(path string, cp *Checkpoint) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
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
