package comparecmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/ingest"
	"speedmatrix/internal/archivepath"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
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
	// Ingested at a fixed time, so that the listing of undated runs
	// (dated by their ingest) stays one golden.
	var ms []*schema.Matrix
	for i, d := range ingest.Parse(context.Background(), files, ingest.Options{}) {
		if d.Err != nil {
			t.Fatal(d.Err)
		}
		for _, m := range d.Runs {
			m.Run.IngestedAt = time.Date(2026, 12, 7, 6, 0, i, 0, time.UTC)
			ms = append(ms, m)
		}
	}
	if _, err := a.Append(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestListGolden is -list of the finding archive in text and JSON: a
// title column, the oldest measured first (undated runs by their ingest
// date, labelled), the GPU, engine and quantization the metadata or the
// model's name gives where the run's columns are blank; and the archive
// found through $SPEEDMATRIX_ARCHIVE, then ./archive, without -archive.
func TestListGolden(t *testing.T) {
	dir := findingArchive(t)
	var b strings.Builder
	for _, format := range []string{"text", "json"} {
		code, out, errs := runCmd(t, "", "-archive", dir, "-list", "-format", format)
		if code != exitOK || errs != "" {
			t.Fatalf("-list -format %s: exit %d, stderr %q", format, code, errs)
		}
		fmt.Fprintf(&b, "$ compare -list -format %s\n%s\n", format, out)
	}
	code, out, errs := runCmd(t, "", "-archive", dir, "-list", "tool=~vllm")
	if code != exitOK || errs != "" {
		t.Fatalf("-list tool=~vllm: exit %d, stderr %q", code, errs)
	}
	fmt.Fprintf(&b, "$ compare -list tool=~vllm\n%s", out)
	golden(t, "list.golden", []byte(b.String()))

	text := b.String()[:strings.Index(b.String(), "$ compare -list -format json")]
	t.Setenv(archivepath.EnvVar, dir)
	if code, out, errs := runCmd(t, "", "-list", "-format", "text"); code != exitOK || "$ compare -list -format text\n"+out+"\n" != text {
		t.Errorf("-list with $%s: exit %d, stderr %q, stdout\n%s", archivepath.EnvVar, code, errs, out)
	}
	t.Setenv(archivepath.EnvVar, "")
	t.Chdir(filepath.Dir(dir))
	if err := os.Rename(dir, "archive"); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCmd(t, "", "-list", "-format", "text"); code != exitOK || "$ compare -list -format text\n"+out+"\n" != text {
		t.Errorf("-list of ./archive: exit %d, stderr %q, stdout\n%s", code, errs, out)
	}
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
