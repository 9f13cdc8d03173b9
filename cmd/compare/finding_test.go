package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/ingest"
	"speedmatrix/internal/testtool"
)

// findingArchive is an archive of the two seed documents and two of
// vLLM's result files (a max_num_seqs sweep, two deployments): runs
// that a selector can miss, or match several of.
func findingArchive(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := testtool.RepoRoot(t)
	files := []string{seedINT4, seedBF16,
		filepath.Join(root, "parse/testdata/peers/vllm/sweep-serve-summary-v0.12.json"),
		filepath.Join(root, "parse/testdata/peers/vllm/append-deployments.jsonl"),
	}
	rep, err := ingest.Files(context.Background(), a, files, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	if rep.Failed {
		t.Fatal("a test document failed to ingest")
	}
	return dir
}

// TestSelectorMessages is the golden of what a selector that picks no
// run, or several, says: the values present for its key (closest
// first), or where the runs differ and the selector that picks each.
func TestSelectorMessages(t *testing.T) {
	dir := findingArchive(t)
	tests := [][]string{
		{"gpu=H200", "quant=int4"},
		{"gpu=~H100", "quant=int4"},
		{"gpu=~RTX,engine=sglang", "quant=bf16"},
		{"model=Model-14B", "quant=int4"},
		{"tool=~vllm", "quant=int4"},
		{"gpu=~H200", "ffff"},
		{"-list", "gpu=B200"},
	}
	var b strings.Builder
	for _, args := range tests {
		code, out, errs := runCmd(t, "", append([]string{"-archive", dir}, args...)...)
		if code != exitFail || out != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, out)
		}
		fmt.Fprintf(&b, "$ compare %s\n%s\n", strings.Join(args, " "), errs)
	}
	golden(t, "selectors.golden", []byte(b.String()))
}
