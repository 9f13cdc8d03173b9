package showcmd

import (
	"bytes"
	"context"
	"flag"
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

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// testdata is the goldens' directory, absolute: some tests change
// directory.
var testdata, _ = filepath.Abs("testdata")

// seedArchive is an archive of the two seed documents, ingested at a
// fixed time (the date of an undated run is its ingest's).
func seedArchive(t *testing.T) (dir string, seeds []string) {
	t.Helper()
	// Relative paths: the source path is part of what show prints.
	seeds = []string{"../../testdata/seeds/000_acc4a01d882a0446.txt", "../../testdata/seeds/001_03cf9c936d246394.txt"}
	dir = filepath.Join(t.TempDir(), "archive")
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ms []*schema.Matrix
	for _, d := range ingest.Parse(context.Background(), seeds, ingest.Options{}) {
		if d.Err != nil {
			t.Fatal(d.Err)
		}
		for _, m := range d.Runs {
			m.Run.IngestedAt = time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC)
			ms = append(ms, m)
		}
	}
	if _, err := a.Append(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	return dir, seeds
}

func runShow(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestShowGolden prints the INT4 seed, selected from an archive, as
// text, Markdown and JSON.
func TestShowGolden(t *testing.T) {
	dir, _ := seedArchive(t)
	for _, tt := range []struct{ flag, golden string }{
		{"", "int4.txt"},
		{"-md", "int4.md"},
		{"-json", "int4.json"},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			args := []string{"-archive", dir}
			if tt.flag != "" {
				args = append(args, tt.flag)
			}
			code, out, errs := runShow(t, "", append(args, "gpu=~rtx")...)
			if code != exitOK || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			testtool.Golden(t, filepath.Join(testdata, tt.golden), []byte(out), *update)
		})
	}
}

// TestShowSources: a run-id prefix, $SPEEDMATRIX_ARCHIVE and a document
// file show the same run as the selector did.
func TestShowSources(t *testing.T) {
	dir, seeds := seedArchive(t)
	seeds[0], _ = filepath.Abs(seeds[0]) // read after the Chdir below
	t.Chdir(t.TempDir())                 // no ./archive
	want, err := os.ReadFile(filepath.Join(testdata, "int4.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(archivepath.EnvVar, dir)
	code, out, errs := runShow(t, "", "64fc894a")
	if code != exitOK || out != string(want) {
		t.Errorf("by id prefix from $%s: exit %d, stderr %q, stdout\n%s", archivepath.EnvVar, code, errs, out)
	}
	// A document is not ingested: no ingest date, its path as source.
	code, out, errs = runShow(t, "", seeds[0])
	if code != exitOK || !strings.HasPrefix(out, "Ling-3.0-tiny-int4 on RTX PRO 6000 Blackwell Server Edition 96GB\n") || !strings.Contains(out, "\nrun id                  64fc894aa5d096e9\ndate                    undated") {
		t.Errorf("document: exit %d, stderr %q, stdout\n%s", code, errs, out)
	}
}

// TestShowErrors: what a selector that picks no run or several, a bad
// command line and a missing archive say.
func TestShowErrors(t *testing.T) {
	dir, _ := seedArchive(t)
	t.Setenv(archivepath.EnvVar, "")
	t.Chdir(t.TempDir())
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-archive", dir, "gpu=H200"}, exitFail, "show: selector \"gpu=H200\" matches none of 2 runs; gpu values present: \"H200 NVL\" (1 run), \"RTX PRO 6000 Blackwell Server Edition\" (1 run); gpu=~H200 would match a part of \"H200 NVL\"\n"},
		{[]string{"-archive", dir, "engine=vllm"}, exitFail, "show: selector \"engine=vllm\" matches 2 runs, want exactly one; they differ in gpu, model, engine_version, quantization, vram, benchmark_tool, …:\n" +
			"  64fc894aa5d096e9  undated  Ling-3.0-tiny-int4  RTX PRO 6000 Blackwell Server Edition  vllm 0.30.1rc1.dev452+g73a583112  INT4\n" +
			"      pick it with engine=vllm,model=Ling-3.0-tiny-int4\n" +
			"  b279091a2c81fcf2  undated  Ling-3.0-tiny  H200 NVL  vllm 0.27.2rc1.dev113+g5cecfc013  BF16\n" +
			"      pick it with engine=vllm,model=Ling-3.0-tiny\n"},
		{[]string{"-archive", dir, "gpu=~0,engine=vllm"}, exitFail, "show: selector \"gpu=~0,engine=vllm\" matches 2 runs"},
		{[]string{"-archive", dir, "colour=red"}, exitUsage, "show: unknown selector key \"colour\""},
		{[]string{"-archive", dir, "b279", "-json"}, exitUsage, "show: flag -json after RUN; put flags first\n"},
		{[]string{"-archive", dir, "-md", "-json", "b279"}, exitUsage, "show: -md and -json do not go together\n"},
		{[]string{"-archive", dir}, exitUsage, "show: want one RUN, got 0\n"},
		{[]string{"b279"}, exitFail, "show: b279: no such file, and no archive to select it from: no archive: tried -archive (not given), $SPEEDMATRIX_ARCHIVE (not set), ./archive (does not exist); give -archive DIR (or set SPEEDMATRIX_ARCHIVE)\n"},
	} {
		code, out, errs := runShow(t, "", tt.args...)
		if code != tt.code || out != "" || !strings.HasPrefix(errs, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr\n%s\nwant exit %d and\n%s", tt.args, code, out, errs, tt.code, tt.want)
		}
	}
}
