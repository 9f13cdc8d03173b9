package report

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// The seeds read by a deliberately small reader of their "All
// measurements" table and metadata pairs (a copy of analysis's test
// reader): it keeps no printed text, so every figure prints with the
// tables' full precision, as the long_seeds goldens hold. The other
// tests read the seeds through parse (load).

// seedComparison compares the INT4 seed with the BF16 baseline, labelled
// as the long_seeds goldens show them.
func seedComparison(t testing.TB) *analysis.Comparison {
	t.Helper()
	c, err := analysis.Compare(loadSeed(t, seedBF16), []*schema.Matrix{loadSeed(t, seedINT4)}, analysis.Options{Labels: []string{"H200-BF16", "RTX-INT4"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func findRow(rows []DeltaRow, phase schema.Phase, ctx string, n int32, metric string) *DeltaRow {
	for i := range rows {
		r := &rows[i]
		if r.Phase == phase && r.ContextLabel == ctx && r.Metric == metric && (r.Concurrency != nil && *r.Concurrency == n) {
			return r
		}
	}
	return nil
}

func loadSeed(t testing.TB, path string) *schema.Matrix {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	id := strings.TrimSuffix(filepath.Base(path), ".txt")
	id = id[strings.IndexByte(id, '_')+1:]
	m := &schema.Matrix{Run: schema.Run{RunID: id, Title: lines[1], SourcePath: path,
		IngestedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	kv := map[string]string{}
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "- ") && strings.HasPrefix(lines[i+1], "- ") {
			kv[lines[i][2:]] = lines[i+1][2:]
			i++
		}
	}
	m.Run.GPU, m.Run.Engine, m.Run.EngineVersion, m.Run.Quantization = kv["GPU"], kv["Engine"], kv["Version"], kv["Quantization"]
	m.Run.Model, _, _ = strings.Cut(lines[1], " on ")
	in := false
	for n, l := range lines {
		if strings.HasPrefix(l, "All measurements") {
			in = true
			continue
		}
		if !in || !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "|---") || strings.HasPrefix(l, "| Phase") {
			continue
		}
		f := strings.Split(strings.Trim(l, "| "), " | ")
		if len(f) != 12 {
			t.Fatalf("%s:%d: %d fields", path, n+1, len(f))
		}
		x := schema.Measurement{RunID: id, ContextLabel: f[1], SourceLine: int64(n + 1)}
		x.Phase = map[string]schema.Phase{"Prefill": schema.PhasePrefill, "Sustained decode": schema.PhaseDecode}[f[0]]
		x.Status = map[string]schema.Status{"Valid": schema.StatusValid, "Looped": schema.StatusLooped, "Over capacity": schema.StatusOverCapacity}[f[3]]
		c, err := strconv.Atoi(f[2])
		if err != nil || x.Phase == "" || x.Status == "" {
			t.Fatalf("%s:%d: bad row %q", path, n+1, l)
		}
		x.Concurrency = schema.I32(int32(c))
		x.TotalTokS, x.PerRequestTokS, x.TTFTMs, x.TBTMs = seedNum(f[4]), seedNum(f[5]), seedNum(f[6]), seedNum(f[7])
		m.Measurements = append(m.Measurements, x)
	}
	return m
}

func seedNum(s string) *float64 {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s, " ms"), " s"))
	if s == "—" {
		return nil
	}
	mul := 1.0
	if strings.HasSuffix(s, "K") {
		mul, s = 1000, strings.TrimSuffix(s, "K")
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		panic(err)
	}
	return schema.F64(v * mul)
}
