package comparecmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/archive/store"
	"speedmatrix/internal/testtool"
)

// sharedRefs pushes the directory archive dir into a table on each
// catalog the tests run: SQLite with its files on versitygw (S3), and
// PostgreSQL over the same store. It returns the references.
func sharedRefs(t *testing.T, dir string) map[string]string {
	t.Helper()
	s3 := testtool.StartVersitygw(t, "bench")
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	refs := map[string]string{
		"sqlite+s3": "iceberg+sqlite://" + filepath.ToSlash(filepath.Join(t.TempDir(), "catalog.db")) + "?warehouse=s3://bench/sqlite#team",
	}
	if testtool.PostgresBin(t) != "" {
		refs["postgres+s3"] = "iceberg+" + testtool.StartPostgres(t) + "&warehouse=s3://bench/pg#team"
	}
	ctx := context.Background()
	local, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		s, err := store.Open(ctx, ref, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Table(s).Push(ctx, local); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	return refs
}

// TestSharedTableReadsAsDirectory runs compare's reads (-list, -trend,
// selectors, a two-run compare) on a directory archive and on the same
// runs pushed to shared tables: the output is the same, byte for byte.
func TestSharedTableReadsAsDirectory(t *testing.T) {
	dir, ms := newArchive(t)
	refs := sharedRefs(t, dir)
	bf16, int4 := ms[0].Run.RunID, ms[1].Run.RunID
	cases := [][]string{
		{"-list"},
		{"-list", "-format", "json", "quantization=INT4"},
		{"-trend", "-cell", "decode:8K:128", "-format", "json", bf16[:8]},
		{"-trend", "-order", "date", "-cell", "decode:8K:128"},
		{"-format", "json", "quantization=BF16,version=~0.27", "quant=int4"},
		{"-format", "csv", bf16[:6], int4},
		{"gpu=~H200", int4[:8]}, // ambiguous: the same error
	}
	for _, c := range cases {
		wantCode, want, wantErr := runCmd(t, "", append([]string{"-archive", dir}, c...)...)
		if want == "" && wantCode == exitOK {
			t.Fatalf("%v on the directory printed nothing", c)
		}
		for name, ref := range refs {
			code, got, gotErr := runCmd(t, "", append([]string{"-archive", ref}, c...)...)
			if code != wantCode || got != want || strings.ReplaceAll(gotErr, ref, dir) != wantErr && wantCode == exitOK {
				t.Errorf("%s %v: exit %d (want %d)\n%s\n%s\nwant:\n%s\n%s", name, c, code, wantCode, got, gotErr, want, wantErr)
			}
		}
	}
	// A table that was never written: a one-line error naming it, exit 1.
	missing := "iceberg+sqlite://" + filepath.ToSlash(filepath.Join(t.TempDir(), "none.db"))
	code, out, errs := runCmd(t, "", "-archive", missing, "-list")
	if code != exitFail || out != "" || !strings.Contains(errs, missing) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("missing table: exit %d, %q, %q", code, out, errs)
	}
}
