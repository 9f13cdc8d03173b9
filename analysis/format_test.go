package analysis

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/schema"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./analysis -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (rerun with -update after checking):\n%s", path, firstDiff(string(want), string(got)))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + w + "\ngot:  " + g
		}
	}
	return ""
}

func TestWriteReportGolden(t *testing.T) {
	r := NewReport(seedComparison(t), 100, SLO{MaxTTFTMs: 500, MaxTBTMs: 10})
	for _, tt := range []struct {
		f    Format
		file string
	}{
		{FormatText, "seeds.txt"},
		{FormatMarkdown, "seeds.md"},
		{FormatCSV, "seeds.csv"},
	} {
		t.Run(string(tt.f), func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteReport(&b, r, tt.f); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.file, b.Bytes())
		})
	}
}

func TestWriteReportContent(t *testing.T) {
	r := NewReport(seedComparison(t), 100, SLO{MaxTTFTMs: 500, MaxTBTMs: 10})
	var b bytes.Buffer
	if err := WriteReport(&b, r, FormatText); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"decode   8K       128  total tok/s        13,000.0   6,091.1  0.4685",
		"prefill  8K         1  prefill tok/s      65,300.0  55,000.0  0.8423",
		"looped in RTX-INT4",
		"over capacity in both",
		NoSpreadNote,
		"USL 8K: λ = ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q", want)
		}
	}
}

func TestWriteDeltasJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteDeltas(&b, seedComparison(t), FormatJSON); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 172 {
		t.Fatalf("%d rows", len(rows))
	}
	want := []string{"phase", "context_label", "concurrency", "metric", "baseline", "value", "ratio", "delta_pct", "better", "baseline_status", "status", "note", "baseline_run_id", "run_id"}
	for _, r := range rows {
		if len(r) != len(want) {
			t.Fatalf("row has %d fields, want %d: %v", len(r), len(want), r)
		}
		for _, k := range want {
			if _, ok := r[k]; !ok {
				t.Fatalf("row lacks %q: %v", k, r)
			}
		}
	}
	var typed []Row
	if err := json.Unmarshal(b.Bytes(), &typed); err != nil {
		t.Fatal(err)
	}
	r := findRow(typed, schema.PhaseDecode, "8K", 16, "total_tok_s")
	if r == nil || r.Ratio != nil || r.Value != nil || r.Note != "looped in RTX-INT4" || *r.Baseline != 3016.8 {
		t.Errorf("8K×16 row %+v", r)
	}
}

func TestGroup(t *testing.T) {
	tests := []struct {
		v    float64
		prec int
		want string
	}{{13000, 1, "13,000.0"}, {6091.1, 1, "6,091.1"}, {3.1, 1, "3.1"}, {-1234567.25, 2, "-1,234,567.25"}, {999.95, 1, "1,000.0"}, {-0.01, 1, "0.0"}, {123, 0, "123"}}
	for _, tt := range tests {
		if got := group(tt.v, tt.prec); got != tt.want {
			t.Errorf("group(%v, %d) = %q, want %q", tt.v, tt.prec, got, tt.want)
		}
	}
}

func TestKeyLoad(t *testing.T) {
	for _, tc := range []struct {
		k    Key
		want string
	}{
		{Key{Concurrency: 16}, "16"},
		{Key{RequestRate: 4}, "4/s"},
		{Key{RequestRate: 0.5}, "0.5/s"},
		{Key{RequestRate: math.Inf(1)}, "∞/s"},
		{Key{Concurrency: 16, RequestRate: 4}, "16 @4/s"},
		{Key{Concurrency: 16, RequestRate: math.Inf(1)}, "16 @∞/s"},
		{Key{}, "—"}, // a summary over all stages: no load recorded, never "0/s"
	} {
		if got := tc.k.Load(); got != tc.want {
			t.Errorf("%+v.Load() = %q, want %q", tc.k, got, tc.want)
		}
	}
	c := ServeCurve{ByRate: true}
	if got := c.LoadLabel(ServePoint{}); got != "—" {
		t.Errorf("LoadLabel of a point without load = %q, want —", got)
	}
	c.ByRate = false
	if got := c.LoadLabel(ServePoint{Key: Key{Concurrency: 16, RequestRate: math.Inf(1)}}); got != "16" {
		t.Errorf("LoadLabel of a closed loop = %q, want 16", got)
	}
}
