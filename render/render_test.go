package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// forms are the three writers with the extension of their golden files.
var forms = []struct {
	ext   string
	write func(w *bytes.Buffer, m *schema.Matrix) error
}{
	{"txt", func(w *bytes.Buffer, m *schema.Matrix) error { return Text(w, m) }},
	{"md", func(w *bytes.Buffer, m *schema.Matrix) error { return Markdown(w, m) }},
	{"html", func(w *bytes.Buffer, m *schema.Matrix) error { return HTML(w, m) }},
}

// synthRun is a matrix as a measuring run makes it: no printed metadata,
// no launch command, full-precision figures, percentile and error
// columns, an Extra metric, a context whose tokens are not its label ×
// 1024, a cell measured twice (repeats 0 and 1), status reasons and every
// status.
func synthRun() *schema.Matrix {
	start := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	end := start.Add(7*time.Minute + 1500*time.Millisecond)
	f, i, c := schema.F64, schema.I64, schema.I32
	m := &schema.Matrix{Run: schema.Run{
		SchemaVersion: schema.Version, SourceFormat: schema.FormatRun,
		Model: "tiny-sim", ModelID: "sim/tiny-sim", GPU: "Simulated GPU", VRAMGB: f(80),
		HardwareType: "Simulator", OS: "linux",
		Engine: "sim", EngineVersion: "0.1.0", Quantization: "BF16",
		ServedModel: "tiny", BenchTool: "speedmatrix", BenchVersion: "0.1.0",
		DecodeTest: "Fixed duration", PrefillMode: "Measured during decode warm-up",
		MeasureSeconds: f(2), MaxOutputTokens: i(256), MaxModelLen: i(32768),
		GPUCount: c(2), TensorParallel: c(2), GPUMemoryUtilization: f(0.875),
		StartedAt: &start, FinishedAt: &end, Host: "bench-01", ClientVersion: "speedmatrix 0.1.0",
		ServerURL: "http://127.0.0.1:8000", Endpoint: "chat", KVBudgetTokens: i(200000), Dataset: "prose",
	}}
	add := func(x schema.Measurement) { m.Measurements = append(m.Measurements, x) }
	add(schema.Measurement{Phase: schema.PhasePrefill, ContextLabel: "8K", ContextTokens: i(8192), Concurrency: c(1),
		Status: schema.StatusValid, TotalTokS: f(51234.5678), TTFTMs: f(159.90234), CompletedRequests: i(1), PromptTokens: i(8192)})
	add(schema.Measurement{Phase: schema.PhasePrefill, ContextLabel: "15K", ContextTokens: i(16000), Concurrency: c(1),
		Status: schema.StatusValid, TotalTokS: f(48000), TTFTMs: f(333.25), CompletedRequests: i(1), PromptTokens: i(16000)})
	dec := func(ctx string, tokens int64, conc int32, st schema.Status) schema.Measurement {
		return schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: ctx, ContextTokens: i(tokens), Concurrency: c(conc), Status: st}
	}
	x := dec("8K", 8192, 1, schema.StatusValid)
	x.TotalTokS, x.PerRequestTokS, x.TTFTMs, x.TBTMs = f(325.24137), f(326.0), f(41.2), f(3.0746)
	x.AvgActiveRequests, x.CompletedRequests, x.OutputTokens, x.MeasuredS = f(1), i(2), i(650), f(2.0001)
	x.TTFTP90Ms, x.TTFTP99Ms, x.TBTP90Ms, x.TBTP99Ms = f(44.5), f(47.125), f(3.2), f(3.9)
	x.ErroredRequests, x.PromptTokens = i(0), i(8192)
	x.Extra = []schema.Metric{{Name: "ttft_p999_ms", Value: 48.5}}
	x.Repeat = c(0)
	add(x)
	x = dec("8K", 8192, 1, schema.StatusValid)
	x.TotalTokS, x.PerRequestTokS, x.TTFTMs, x.TBTMs = f(32200), f(329.5), f(40.75), f(3.05)
	x.AvgActiveRequests, x.CompletedRequests, x.OutputTokens, x.MeasuredS = f(1), i(2), i(659), f(2.0002)
	x.ErroredRequests, x.PromptTokens, x.Repeat = i(0), i(8192), c(1)
	add(x)
	x = dec("8K", 8192, 4, schema.StatusValid)
	x.TotalTokS, x.PerRequestTokS, x.TTFTMs, x.TBTMs = f(12987.3), f(245.5), f(1388), f(4.1)
	x.AvgActiveRequests, x.CompletedRequests, x.OutputTokens, x.MeasuredS = f(3.97), i(0), i(25975), f(2)
	x.TTFTP90Ms, x.ErroredRequests, x.PromptTokens = f(1501), i(1), i(8192)
	add(x)
	x = dec("15K", 16000, 1, schema.StatusLooped)
	x.TotalTokS, x.OutputTokens, x.CompletedRequests = f(301.5), i(603), i(0)
	x.StatusReason, x.LoopPeriodChars, x.LoopCycles = "period 37 chars, 120 cycles", i(37), i(120)
	add(x)
	x = dec("15K", 16000, 4, schema.StatusError)
	x.ErroredRequests, x.CompletedRequests = i(12), i(3)
	x.StatusReason = "12 of 15 requests failed: HTTP 503 | upstream"
	add(x)
	add(dec("15K", 16000, 8, schema.StatusOverCapacity))
	add(dec("8K", 8192, 8, schema.StatusSkipped))
	return m
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./render -update if the change is right):\n%s", path, firstDiff(got, want))
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b []byte
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if !bytes.Equal(a, b) || i >= len(g) || i >= len(w) {
			return "line " + itoa(i+1) + ":\n got: " + string(a) + "\nwant: " + string(b)
		}
	}
	return "(no line differs)"
}

func itoa(n int) string { return FormatDecimal(float64(n), 0) }

func TestGoldenSynthetic(t *testing.T) {
	m := synthRun()
	for _, f := range forms {
		t.Run(f.ext, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(&b, m); err != nil {
				t.Fatal(err)
			}
			golden(t, "synthetic.golden."+f.ext, b.Bytes())
		})
	}
}

func TestByExtension(t *testing.T) {
	tests := []struct {
		path    string
		want    string // "text", "markdown", "html" or "" for an error
		wantErr bool
	}{
		{"out.txt", "text", false},
		{"dir.v2/OUT.MD", "markdown", false},
		{"x.markdown", "markdown", false},
		{"report.html", "html", false},
		{"report.htm", "html", false},
		{"report.pdf", "", true},
		{"noext", "", true},
		{"dir.md/noext", "", true},
	}
	m := synthRun()
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			w, err := ByExtension(tt.path)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ByExtension(%q): no error", tt.path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got, want strings.Builder
			if err := w(&got, m); err != nil {
				t.Fatal(err)
			}
			map[string]func(){
				"text":     func() { _ = Text(&want, m) },
				"markdown": func() { _ = Markdown(&want, m) },
				"html":     func() { _ = HTML(&want, m) },
			}[tt.want]()
			if got.String() != want.String() {
				t.Errorf("ByExtension(%q) did not pick the %s writer", tt.path, tt.want)
			}
		})
	}
}
