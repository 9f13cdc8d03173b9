package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPeerTablesNotDocuments: llama-bench's and llama-benchy's tables (a
// console log around them included), llama-bench's CSV and SQL, and a
// Markdown table of no tool reach the reader of other tools' files before
// the document parser. Each was once told "no All measurements table by
// the end of the document (…): not a complete speed-test document".
func TestPeerTablesNotDocuments(t *testing.T) {
	for _, tt := range []struct {
		file   string
		runs   int
		format string
		err    string
	}{
		{"llama-bench/qwen2-7b-q4km-rtx4090-depths.md", 1, "llama-bench", ""},
		{"llama-bench/console-two-models-cuda.log", 3, "llama-bench", ""},
		{"llama-bench/qwen3-8b-q4km-rtx4080.csv", 1, "llama-bench", ""},
		{"llama-bench/qwen3-8b-q4km-rtx4080-old-test-table.sql", 1, "llama-bench", ""},
		{"llama-benchy/qwen3-32b-awq-depths.md", 1, "llama-benchy", ""},
		{"bad/foreign-markdown-table.md", 0, "", "a Markdown table of no tool speedmatrix reads (columns: GPU, Model, Prompt tok/s, Gen tok/s)"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "peers", tt.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := ParseAllBytes(b, path, "")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "All measurements table by") {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != tt.runs || ms[0].Run.SourceFormat != tt.format || ms[0].Run.RunID == "" {
				t.Errorf("%d runs of %q, want %d of %q", len(ms), ms[0].Run.SourceFormat, tt.runs, tt.format)
			}
		})
	}
}
