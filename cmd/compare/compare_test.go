package comparecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/archivepath"
	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/report"
	"speedmatrix/schema"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const (
	seedINT4 = "../../testdata/seeds/000_acc4a01d882a0446.txt" // RTX PRO 6000, INT4
	seedBF16 = "../../testdata/seeds/001_03cf9c936d246394.txt" // H200, BF16
)

// runCmd runs the command and returns its exit status, stdout and stderr.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testtool.Golden(t, filepath.Join("testdata", name), got, *update)
}

// TestSeedsGolden compares the two seed documents end to end (parse,
// analysis, writers) in every table format.
func TestSeedsGolden(t *testing.T) {
	for _, tt := range []struct{ format, file string }{
		{"text", "seeds.txt"}, {"markdown", "seeds.md"}, {"csv", "seeds.csv"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			code, out, errs := runCmd(t, "", "-format", tt.format, "-min-user-tps", "100", "-max-ttft", "500", "-max-tbt", "10", seedBF16, seedINT4)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, tt.file, []byte(out))
		})
	}
}

func decodeRows(t *testing.T, out string) []report.DeltaRow {
	t.Helper()
	var obj struct {
		Deltas []report.DeltaRow `json:"deltas"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%v in %q", err, out[:min(len(out), 200)])
	}
	return obj.Deltas
}

func row(rows []report.DeltaRow, phase schema.Phase, ctx string, n int32, metric string) *report.DeltaRow {
	for i := range rows {
		r := &rows[i]
		if r.Phase == phase && r.ContextLabel == ctx && r.Metric == metric && r.Concurrency != nil && *r.Concurrency == n {
			return r
		}
	}
	return nil
}

// TestSeedKnownAnswers checks issue 4's reference figures through the
// parser: baseline BF16 on H200 (seed 001), value INT4 on RTX PRO 6000
// (seed 000).
func TestSeedKnownAnswers(t *testing.T) {
	code, out, errs := runCmd(t, "", "-format", "json", seedBF16, seedINT4)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := decodeRows(t, out)
	near := func(p *float64, want float64) bool { return p != nil && (*p-want)*(*p-want) < 1e-8*want*want+1e-12 }
	tests := []struct {
		name                   string
		phase                  schema.Phase
		ctx                    string
		n                      int32
		metric                 string
		baseline, value, ratio float64 // 0: none
		note                   string
	}{
		{"decode 8K×128", schema.PhaseDecode, "8K", 128, "total_tok_s", 13000, 6091.1, 6091.1 / 13000, ""},
		{"prefill 8K", schema.PhasePrefill, "8K", 1, "total_tok_s", 65300, 55000, 55000.0 / 65300, ""},
		{"8K×16 looped in INT4", schema.PhaseDecode, "8K", 16, "total_tok_s", 3016.8, 0, 0, "looped in RTX PRO 6000 INT4"},
		{"123K×128 over capacity in both", schema.PhaseDecode, "123K", 128, "total_tok_s", 0, 0, 0, "over capacity in both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := row(rows, tt.phase, tt.ctx, tt.n, tt.metric)
			if r == nil {
				t.Fatal("no row")
			}
			for _, c := range []struct {
				what string
				got  *float64
				want float64
			}{{"baseline", r.Baseline, tt.baseline}, {"value", r.Value, tt.value}, {"ratio", r.Ratio, tt.ratio}} {
				if (c.want == 0) != (c.got == nil) || (c.got != nil && !near(c.got, c.want)) {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
			if r.Note != tt.note {
				t.Errorf("note %q, want %q", r.Note, tt.note)
			}
		})
	}
	if r := row(rows, schema.PhaseDecode, "8K", 128, "total_tok_s"); r == nil || *r.Ratio < 0.46845 || *r.Ratio >= 0.46855 {
		t.Errorf("8K×128 ratio does not print as 0.4685: %v", r)
	}
	if r := row(rows, schema.PhasePrefill, "8K", 1, "total_tok_s"); r == nil || *r.Ratio < 0.84225 || *r.Ratio >= 0.84235 {
		t.Errorf("prefill 8K ratio does not print as 0.8423: %v", r)
	}
}

func TestUsage(t *testing.T) {
	t.Setenv(archivepath.EnvVar, "")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no arguments", nil, exitUsage, "need a BASELINE"},
		{"one run", []string{seedBF16}, exitUsage, "need a BASELINE"},
		{"bad format", []string{"-format", "xml", seedBF16, seedINT4}, exitUsage, "format"},
		{"unknown flag", []string{"-frobnicate", seedBF16, seedINT4}, exitUsage, "frobnicate"},
		{"list without archive", []string{"-list"}, exitFail, "no archive: tried -archive (not given), $SPEEDMATRIX_ARCHIVE (not set), ./archive (does not exist)"},
		{"trend without archive", []string{"-trend"}, exitFail, "no archive: tried"},
		{"bad threshold", []string{"-threshold", "lots", seedBF16, seedINT4}, exitUsage, "threshold"},
		{"bad cell", []string{"-cell", "decode:8K", "-trend", "-archive", "x"}, exitUsage, "concurrency"},
		{"negative target", []string{"-min-user-tps", "-5", seedBF16, seedINT4}, exitUsage, "positive"},
		{"labels count", []string{"-labels", "a", seedBF16, seedINT4}, exitUsage, "-labels"},
		{"bad metric", []string{"-metrics", "TotalTokS", seedBF16, seedINT4}, exitUsage, "column name"},
		{"help", []string{"-h"}, exitOK, "usage: speedmatrix compare"},
		{"missing file", []string{seedBF16, "no/such/file.txt"}, exitFail, "no/such/file.txt"},
		{"same run twice", []string{seedBF16, seedBF16}, exitFail, "same run"},
		{"not a document", []string{seedBF16, "compare_test.go"}, exitFail, "compare_test.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(t, "", tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, tt.code, tt.msg)
			}
			if tt.code != exitOK && out != "" {
				t.Errorf("stdout on failure: %q", out)
			}
		})
	}
}

func TestStdin(t *testing.T) {
	b, err := os.ReadFile(seedINT4)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, string(b), "-format", "json", seedBF16, "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if r := row(decodeRows(t, out), schema.PhaseDecode, "8K", 128, "total_tok_s"); r == nil || r.Value == nil || *r.Value != 6091.1 {
		t.Errorf("8K×128 from stdin: %+v", r)
	}
}

func parseSeed(t *testing.T, path string) *schema.Matrix {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := parse.Parse(f, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// variant is a copy of m as if measured with another engine version on
// another day, its decode throughput scaled by factor.
func variant(m *schema.Matrix, version string, day int, factor float64) *schema.Matrix {
	v := *m
	v.Run.EngineVersion = version
	v.Run.IngestedAt = time.Date(2026, 3, day, 0, 0, 0, 0, time.UTC)
	v.Measurements = append([]schema.Measurement(nil), m.Measurements...)
	for i := range v.Measurements {
		x := &v.Measurements[i]
		if x.Phase == schema.PhaseDecode && x.TotalTokS != nil {
			x.TotalTokS = schema.F64(*x.TotalTokS * factor)
		}
	}
	v.Run.RunID = schema.ComputeRunID(&v)
	for i := range v.Measurements {
		v.Measurements[i].RunID = v.Run.RunID
	}
	return &v
}

// newArchive writes the seeds and three more versions of the BF16 run
// into a fresh archive.
func newArchive(t *testing.T) (string, []*schema.Matrix) {
	t.Helper()
	dir := t.TempDir()
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	bf16, int4 := parseSeed(t, seedBF16), parseSeed(t, seedINT4)
	ms := []*schema.Matrix{bf16, int4,
		variant(bf16, "0.28.0", 2, 1.02), // +2%: within 5%
		variant(bf16, "0.29.1", 3, 0.90), // −11.8% from 0.28.0: flagged
		variant(bf16, "0.26.0", 4, 0.97)} // oldest version, newest date
	if _, err := a.Append(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	return dir, ms
}

func TestArchiveSelection(t *testing.T) {
	dir, ms := newArchive(t)
	bf16, int4 := ms[0].Run.RunID, ms[1].Run.RunID

	code, out, errs := runCmd(t, "", "-archive", dir, "-format", "json", "quantization=BF16,version=~0.27", "quant=int4")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := decodeRows(t, out)
	r := row(rows, schema.PhaseDecode, "8K", 128, "total_tok_s")
	if r == nil || r.BaselineRunID != bf16 || r.RunID != int4 || *r.Value != 6091.1 || *r.Baseline != 13000 {
		t.Errorf("8K×128 from the archive: %+v", r)
	}

	// A run-id prefix and a document mix.
	code, out, errs = runCmd(t, "", "-archive", dir, "-format", "csv", bf16[:6], seedINT4)
	if code != exitOK || !strings.Contains(out, "decode,8K,128,total_tok_s,13000,6091.1,") {
		t.Errorf("prefix + file: exit %d, %s\n%s", code, errs, out[:min(300, len(out))])
	}

	// Ambiguous and empty selections list what they matched.
	code, _, errs = runCmd(t, "", "-archive", dir, "gpu=~H200", int4[:8])
	if code != exitFail || !strings.Contains(errs, "matches 4 runs") || !strings.Contains(errs, bf16) {
		t.Errorf("ambiguous selector: exit %d, %s", code, errs)
	}
	code, _, errs = runCmd(t, "", "-archive", dir, "gpu=B200", int4[:8])
	if code != exitFail || !strings.Contains(errs, "matches none of 5 runs") {
		t.Errorf("empty selector: exit %d, %s", code, errs)
	}
	code, _, errs = runCmd(t, "", "-archive", filepath.Join(dir, "nope"), "a", "b")
	if code != exitFail || !strings.Contains(errs, "no such file") {
		t.Errorf("missing archive: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); err == nil {
		t.Error("a missing archive directory was created")
	}
}

func TestList(t *testing.T) {
	dir, ms := newArchive(t)
	code, out, errs := runCmd(t, "", "-archive", dir, "-list")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1+len(ms) {
		t.Fatalf("%d lines, want a header and %d runs:\n%s", len(lines), len(ms), out)
	}
	for _, m := range ms {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, m.Run.RunID) && strings.Contains(l, m.Run.GPU) && strings.Contains(l, m.Run.Quantization) &&
				strings.Contains(l, "vllm "+m.Run.EngineVersion) && strings.HasSuffix(l, " 46") {
				found = true
			}
		}
		if !found {
			t.Errorf("no line for %s (%s %s):\n%s", m.Run.RunID, m.Run.GPU, m.Run.EngineVersion, out)
		}
	}
	code, out, _ = runCmd(t, "", "-archive", dir, "-list", "-format", "json", "quantization=INT4")
	var listed []map[string]any
	if err := json.Unmarshal([]byte(out), &listed); code != exitOK || err != nil || len(listed) != 1 || listed[0]["run_id"] != ms[1].Run.RunID || listed[0]["cells"] != 46.0 {
		t.Errorf("filtered JSON list: exit %d, %v, %s", code, err, out)
	}
}

func TestTrend(t *testing.T) {
	dir, ms := newArchive(t)
	plotDir := t.TempDir()
	code, out, errs := runCmd(t, "", "-archive", dir, "-trend", "-cell", "decode:8K:128", "-plots", plotDir, "-format", "json", ms[0].Run.RunID[:8])
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []report.TrendRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	// The four BF16 runs on H200, by engine version; INT4 is another model.
	var got []string
	var flagged []string
	for _, r := range rows {
		got = append(got, r.EngineVersion)
		if r.Flagged {
			flagged = append(flagged, r.EngineVersion)
		}
	}
	want := "0.26.0 0.27.2rc1.dev113+g5cecfc013 0.28.0 0.29.1"
	if strings.Join(got, " ") != want || strings.Join(flagged, " ") != "0.29.1" {
		t.Errorf("versions %v flagged %v; want %s and 0.29.1", got, flagged, want)
	}
	if rows[1].Value == nil || *rows[1].Value != 13000 || rows[1].ChangePct == nil || math.Abs(*rows[1].ChangePct-(13000/(13000*0.97)-1)*100) > 1e-9 {
		t.Errorf("seed point %+v", rows[1])
	}
	entries, err := os.ReadDir(plotDir)
	if err != nil || len(entries) != 2 {
		t.Errorf("trend charts: %v, %v", entries, err)
	}

	// By date, as a text table, for every model and GPU of the archive.
	code, out, errs = runCmd(t, "", "-archive", dir, "-trend", "-order", "date", "-cell", "decode:8K:128")
	if code != exitOK || !strings.Contains(out, "Ling-3.0-tiny on H200 NVL: 4 runs") || !strings.Contains(out, "Ling-3.0-tiny-int4 on RTX PRO 6000 Blackwell Server Edition: 1 run") ||
		!strings.Contains(out, "◀ beyond threshold") {
		t.Errorf("trend by date: exit %d, %s\n%s", code, errs, out)
	}

	// A cell no run has is an error, not empty tables.
	code, out, errs = runCmd(t, "", "-archive", dir, "-trend", "-cell", "decode:999K:1")
	if code != exitFail || !strings.Contains(errs, "no archived run has decode:999K:1") || out != "" {
		t.Errorf("trend of a missing cell: exit %d, %q, %q", code, errs, out)
	}
	// Without -cell the default is the shortest context at the most requests.
	code, out, _ = runCmd(t, "", "-archive", dir, "-trend", ms[1].Run.RunID[:8])
	if code != exitOK || !strings.Contains(out, "at decode:8K:128") || !strings.Contains(out, "6,091.1") {
		t.Errorf("default trend cell: exit %d\n%s", code, out)
	}
}

func TestPlotsAndHTML(t *testing.T) {
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	plotDir := filepath.Join(dir, "plots")
	code, _, errs := runCmd(t, "", "-plots", plotDir, "-html", html, "-min-user-tps", "100", seedBF16, seedINT4)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, name := range []string{"decode_total", "decode_per_request", "ratio_total", "prefill_tok_s", "prefill_ttft", "decode_context", "frontier_8k", "frontier_123k", "usl_0", "usl_1"} {
		for _, ext := range []string{".png", ".svg"} {
			st, err := os.Stat(filepath.Join(plotDir, name+ext))
			if err != nil || st.Size() < 1000 {
				t.Errorf("%s%s: %v", name, ext, err)
			}
		}
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<svg", "0.47", "looped in RTX PRO 6000 INT4", "over capacity in both", "one figure per cell, no spread", "0.27.2rc1.dev113", "delivers 0.756× the decode throughput"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "src=\"http") {
		t.Error("report is not self-contained")
	}
}
