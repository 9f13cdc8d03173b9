package render

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"speedmatrix/schema"
)

func decodeCell(ctx string, tokens int64, conc int32, st schema.Status) schema.Measurement {
	x := schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: ctx, ContextTokens: schema.I64(tokens),
		Concurrency: schema.I32(conc), Status: st}
	if st == schema.StatusValid {
		x.TotalTokS, x.TTFTMs = schema.F64(100), schema.F64(10)
	}
	return x
}

func TestViewLayout(t *testing.T) {
	valid8K := decodeCell("8K", 8192, 1, schema.StatusValid)
	tests := []struct {
		name  string
		m     schema.Matrix
		check func(t *testing.T, v *view, text string)
	}{
		{
			name: "title from model and hardware when the run has none",
			m:    schema.Matrix{Run: schema.Run{Model: "m", GPU: "H200 NVL", VRAMGB: schema.F64(141)}, Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, _ string) {
				if v.Title != "m on H200 NVL 141GB" {
					t.Errorf("title %q", v.Title)
				}
			},
		},
		{
			name: "a measuring run's notes join the sections built from its fields",
			m: schema.Matrix{Run: schema.Run{Title: "t", SourceFormat: schema.FormatRun, GPU: "H200", Engine: "vllm",
				ServedModel: "m", Metadata: []schema.Field{
					{Section: "Hardware", Key: "GPU", Value: "H200"}, // as printed: once
					{Section: "Run", Key: "POST /tokenize", Value: "form content: 0 tokens"},
					{Section: "Notes", Key: "Operator", Value: "ann"},
				}}, Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, _ string) {
				var got []string
				for _, s := range v.Sections {
					for _, f := range s.Fields {
						got = append(got, s.Name+"/"+f.Key)
					}
				}
				want := []string{"Hardware/GPU", "Engine/Engine", "Run/Served model", "Run/POST /tokenize", "Notes/Operator"}
				if !slices.Equal(got, want) {
					t.Errorf("pairs %q, want %q", got, want)
				}
			},
		},
		{
			name: "no footnotes when every cell is valid",
			m:    schema.Matrix{Run: schema.Run{Title: "t"}, Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, text string) {
				if len(v.GridNotes)+len(v.TableNotes) > 0 || !strings.HasSuffix(text, "|") {
					t.Errorf("notes %q %q; text ends %q", v.GridNotes, v.TableNotes, text[len(text)-20:])
				}
			},
		},
		{
			name: "footnotes of the statuses present, in the seeds' order",
			m: schema.Matrix{Run: schema.Run{Title: "t"}, Measurements: []schema.Measurement{
				decodeCell("8K", 8192, 2, schema.StatusOverCapacity), decodeCell("8K", 8192, 1, schema.StatusLooped),
			}},
			check: func(t *testing.T, v *view, _ string) {
				if len(v.GridNotes) != 2 || !strings.HasPrefix(v.GridNotes[0], "Looped:") || !strings.HasPrefix(v.GridNotes[1], "Over capacity:") {
					t.Errorf("notes %q", v.GridNotes)
				}
			},
		},
		{
			name: "matrix rows by context tokens, columns by concurrency, missing cells as none",
			m: schema.Matrix{Run: schema.Run{Title: "t"}, Measurements: []schema.Measurement{
				decodeCell("32K", 32768, 4, schema.StatusValid), decodeCell("8K", 8192, 1, schema.StatusValid),
				decodeCell("8K", 8192, 4, schema.StatusSkipped),
			}},
			check: func(t *testing.T, v *view, _ string) {
				g := v.Grid
				if g.Rows[0].Context != "8K" || g.Rows[1].Context != "32K" || !slices.Equal(g.Cols, []string{"1", "4"}) {
					t.Fatalf("grid %+v", g)
				}
				if g.Rows[1].Cells[0].Status != None || g.Rows[0].Cells[1].Status != "Skipped" || g.Rows[0].Cells[0].TokS != "100.0" {
					t.Errorf("cells %+v", g.Rows)
				}
				if v.SubtitleTail[0] != "2 contexts (8K–32K) × 2 concurrency levels (1–4)" {
					t.Errorf("subtitle %q", v.SubtitleTail)
				}
			},
		},
		{
			name: "one context and one level in the singular",
			m:    schema.Matrix{Run: schema.Run{Title: "t", Engine: "vllm"}, Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, text string) {
				// One value is not a range, and the engine part is not glued
				// to the count after it ("vllm1 context").
				if !strings.Contains(text, "\nvllm · 1 context (8K) × 1 concurrency level (1)\n") {
					t.Errorf("subtitle line missing in\n%s", text)
				}
			},
		},
		{
			name: "a document that glued its subtitle keeps it glued",
			m: schema.Matrix{Run: schema.Run{Title: "t", Engine: "vllm", Subtitle: "vllm1 context (8K) × 1 concurrency level (1)"},
				Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, text string) {
				if !strings.Contains(text, "\nvllm1 context (8K) × 1 concurrency level (1)\n") {
					t.Errorf("subtitle line missing in\n%s", text)
				}
			},
		},
		{
			name: "only the seeds' columns when no row has more",
			m:    schema.Matrix{Run: schema.Run{Title: "t"}, Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, _ string) {
				if len(v.Table.Header) != 12 {
					t.Errorf("header %q", v.Table.Header)
				}
			},
		},
		{
			name: "a column per figure some row has, Extra metrics last",
			m: schema.Matrix{Run: schema.Run{Title: "t"}, Measurements: []schema.Measurement{
				valid8K,
				func() schema.Measurement {
					x := decodeCell("8K", 8192, 2, schema.StatusValid)
					x.TTFTP99Ms, x.Repeat = schema.F64(12.5), schema.I32(0)
					x.Extra = []schema.Metric{{Name: "itl_p999_ms", Value: 7}}
					return x
				}(),
			}},
			check: func(t *testing.T, v *view, _ string) {
				if got := v.Table.Header[12:]; !slices.Equal(got, []string{"repeat", "ttft_p99_ms", "itl_p999_ms"}) {
					t.Errorf("extra columns %q", got)
				}
				if got := v.Table.Rows[0][12:]; !slices.Equal(got, []string{None, None, None}) {
					t.Errorf("first row's extra cells %q", got)
				}
				if got := v.Table.Rows[1][12:]; !slices.Equal(got, []string{"0", "12.5", "7"}) {
					t.Errorf("second row's extra cells %q", got)
				}
			},
		},
		{
			name: "a label made from tokens when the row has none",
			m: schema.Matrix{Run: schema.Run{Title: "t"}, Measurements: []schema.Measurement{
				{Phase: schema.PhasePrefill, ContextTokens: schema.I64(126000), Concurrency: schema.I32(1), Status: schema.StatusValid, TotalTokS: schema.F64(1)},
			}},
			check: func(t *testing.T, v *view, _ string) {
				if v.Prefill[0].Context != "123K" || v.Table.Rows[0][1] != "123K" || v.Table.Header[12] != "context_tokens" || v.Table.Rows[0][12] != "126,000" {
					t.Errorf("prefill %+v, row %q", v.Prefill, v.Table.Rows[0])
				}
			},
		},
		{
			name: "printed pairs in order, Commit without a dash",
			m: schema.Matrix{Run: schema.Run{Title: "t", Engine: "ignored when pairs are printed", Metadata: []schema.Field{
				{Section: "Engine", Key: "Engine", Value: "vllm"}, {Section: "Engine", Key: "Commit", Value: "abc"},
				{Section: "Lab", Key: "Room", Value: "7"},
			}}, Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, text string) {
				if !strings.Contains(text, "\nEngine\n- Engine\n- vllm\n- Commit\nabc\nLab\n- Room\n- 7\n") {
					t.Errorf("sections in\n%s", text)
				}
			},
		},
		{
			name: "a run's own facts, and the server's when there is no launch command",
			m: schema.Matrix{Run: schema.Run{Title: "t", Host: "h1", ServerURL: "http://127.0.0.1:9", ModelID: "org/m",
				MaxModelLen: schema.I64(131072), TensorParallel: schema.I32(2), GPUMemoryUtilization: schema.F64(0.9)},
				Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, _ string) {
				var got []string
				for _, s := range v.Sections {
					for _, f := range s.Fields {
						got = append(got, s.Name+"/"+f.Key+"="+f.Value)
					}
				}
				want := []string{"Run/Server URL=http://127.0.0.1:9", "Run/Host=h1", "Server/Model id=org/m",
					"Server/Tensor parallel=2", "Server/Max model length=131,072 tokens", "Server/GPU memory utilization=0.9"}
				if !slices.Equal(got, want) {
					t.Errorf("pairs %q, want %q", got, want)
				}
			},
		},
		{
			name: "no server section when the launch command says it",
			m: schema.Matrix{Run: schema.Run{Title: "t", LaunchCommand: "vllm serve org/m", ModelID: "org/m"},
				Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, text string) {
				if len(v.Sections) != 0 || !strings.Contains(text, "\nLaunch command\nvllm serve org/m\n") {
					t.Errorf("sections %+v in\n%s", v.Sections, text)
				}
			},
		},
		{
			name: "an unbounded rate prints as inf; an Extra named like a printed column is not a second column",
			m: schema.Matrix{Run: schema.Run{Title: "t"}, Measurements: []schema.Measurement{{
				Phase: schema.PhaseServe, ContextLabel: "1K", Status: schema.StatusValid, TotalTokS: schema.F64(9),
				RequestRate: schema.F64(math.Inf(1)), TTFTP90Ms: schema.F64(4), Extra: []schema.Metric{{Name: "ttft_p90_ms", Value: 4}},
			}}},
			check: func(t *testing.T, v *view, _ string) {
				h, r := v.Table.Header, v.Table.Rows[0]
				if n := len(slices.DeleteFunc(slices.Clone(h), func(s string) bool { return s != "ttft_p90_ms" })); n != 1 {
					t.Errorf("%d ttft_p90_ms columns in %q", n, h)
				}
				if i := slices.Index(h, "request_rate"); i < 0 || r[i] != "inf" {
					t.Errorf("header %q row %q", h, r)
				}
			},
		},
		{
			name: "the server's facts the launch command does not say",
			m: schema.Matrix{Run: schema.Run{Title: "t", LaunchCommand: "vllm serve org/m -tp 2 --max-model-len 4096", ModelID: "org/m",
				TensorParallel: schema.I32(2), MaxModelLen: schema.I64(8192), GPUMemoryUtilization: schema.F64(0.9)},
				Measurements: []schema.Measurement{valid8K}},
			check: func(t *testing.T, v *view, _ string) {
				var got []string
				for _, s := range v.Sections {
					for _, f := range s.Fields {
						got = append(got, s.Name+"/"+f.Key+"="+f.Value)
					}
				}
				want := []string{"Server/Max model length=8,192 tokens", "Server/GPU memory utilization=0.9"}
				if !slices.Equal(got, want) {
					t.Errorf("pairs %q, want %q", got, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, &tt.m); err != nil {
				t.Fatal(err)
			}
			tt.check(t, newView(&tt.m), b.String())
		})
	}
}

func TestWriteErrors(t *testing.T) {
	m := synthRun()
	for name, w := range map[string]func() error{
		"text":     func() error { return Text(errWriter{}, m) },
		"markdown": func() error { return Markdown(errWriter{}, m) },
		"html":     func() error { return HTML(errWriter{}, m) },
	} {
		if err := w(); err == nil {
			t.Errorf("%s: a failed write returned no error", name)
		}
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, bytes.ErrTooLarge }
