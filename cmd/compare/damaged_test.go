package comparecmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// TestSkipDamaged: a damaged batch of the archive stops compare naming
// the file, and -skip-damaged goes on without that batch, naming it on
// stderr (compare had no such flag, though ingest has).
func TestSkipDamaged(t *testing.T) {
	dir := t.TempDir()
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	bf16, int4 := parseSeed(t, seedBF16), parseSeed(t, seedINT4)
	for _, batch := range [][]*schema.Matrix{{bf16, int4}, {variant(bf16, "0.28.0", 2, 1.02)}} {
		if _, err := a.Append(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "runs", "*.parquet"))
	if len(files) != 2 {
		t.Fatalf("%d runs files, want 2", len(files))
	}
	bad := files[1] // the later batch: names sort by time
	os.Remove(bad)  // a new file: the published snapshot keeps its link
	if err := os.WriteFile(bad, []byte("PAR1 not a speedmatrix file PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "", "-archive", dir, "-list"); code == exitOK || !strings.Contains(errs, bad) {
		t.Fatalf("-list over a damaged batch: exit %d, stderr %s", code, errs)
	}
	code, out, errs := runCmd(t, "", "-archive", dir, "-skip-damaged", "-list")
	stem := strings.TrimSuffix(filepath.Base(bad), ".parquet")
	if code != exitOK || !strings.Contains(errs, "skipping batch "+stem) {
		t.Fatalf("-skip-damaged -list: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if !strings.Contains(out, bf16.Run.RunID[:12]) || !strings.Contains(out, int4.Run.RunID[:12]) {
		t.Errorf("-skip-damaged -list lacks the whole batch's runs:\n%s", out)
	}
	code, _, errs = runCmd(t, "", "-archive", dir, "-skip-damaged", "quantization=BF16", "quant=int4")
	if code != exitOK {
		t.Fatalf("-skip-damaged compare: exit %d, stderr %s", code, errs)
	}
}
