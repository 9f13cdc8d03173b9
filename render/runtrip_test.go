package render

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"speedmatrix/docspec"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// notFromDocument are the Run fields a document does not carry: where and
// when it was read, its id (compared apart), and what parse derives from
// the printed text (the subtitle, the printed pairs, the launch command's
// flags, checked on their own).
var notFromDocument = map[string]bool{
	"RunID": true, "SchemaVersion": true, "SourcePath": true, "SourceSHA256": true, "SourceFormat": true,
	"IngestedAt": true, "Subtitle": true, "Metadata": true,
}

// runDiffs lists every Run field of got that is not want's: all fields a
// document prints, the title compared with the one render prints when the
// run has none, times by instant, an empty list equal to none.
func runDiffs(got, want *schema.Run) []string {
	w := *want
	w.Title = title(want)
	gv, wv := reflect.ValueOf(*got), reflect.ValueOf(w)
	var out []string
	for i := 0; i < gv.NumField(); i++ {
		name := gv.Type().Field(i).Name
		if notFromDocument[name] {
			continue
		}
		g, x := gv.Field(i), wv.Field(i)
		switch {
		case g.Kind() == reflect.Slice && g.Len() == 0 && x.Len() == 0:
			continue
		case g.Type() == reflect.TypeFor[*time.Time]():
			gt, wt := g.Interface().(*time.Time), x.Interface().(*time.Time)
			if gt == nil && wt == nil || gt != nil && wt != nil && gt.Equal(*wt) {
				continue
			}
		case reflect.DeepEqual(g.Interface(), x.Interface()):
			continue
		}
		out = append(out, "run."+name+" = "+js(g.Interface())+", want "+js(x.Interface()))
	}
	return out
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// rowOnly is a measurement without what depends on where it was read
// (its run id, its line, its printed text).
func rowOnly(x schema.Measurement) schema.Measurement {
	x.RunID, x.SourceLine, x.Printed = "", 0, nil
	return x
}

// rowDiffs lists every measurement of got that is not exactly want's.
func rowDiffs(got, want []schema.Measurement) []string {
	if len(got) != len(want) {
		return []string{"measurement count " + itoa(len(got)) + ", want " + itoa(len(want))}
	}
	var out []string
	for i := range got {
		g, w := rowOnly(got[i]), rowOnly(want[i])
		if !reflect.DeepEqual(g, w) {
			out = append(out, "row "+itoa(i)+":\n got: "+js(g)+"\nwant: "+js(w))
		}
	}
	return out
}

// withServe adds serve rows as another tool's rate sweep prints them: no
// concurrency, a request rate (one unbounded), contexts without K.
func withServe(m *schema.Matrix) *schema.Matrix {
	f, i, c := schema.F64, schema.I64, schema.I32
	for k, rate := range []float64{1, 2.5, math.Inf(1)} {
		m.Measurements = append(m.Measurements, schema.Measurement{
			Phase: schema.PhaseServe, ContextLabel: "509", ContextTokens: i(509), Status: schema.StatusValid,
			RequestRate: f(rate), TotalTokS: f(float64(k+1) * 301.25), TTFTMs: f(88.125), TBTMs: f(9.5),
			TTFTP99Ms: f(140.0625), E2EMeanMs: f(2401.5), RequestThroughput: f(0.99), CompletedRequests: i(200),
		})
	}
	m.Measurements = append(m.Measurements, schema.Measurement{
		Phase: schema.PhaseServe, ContextLabel: "0", ContextTokens: i(0), Concurrency: c(16), Status: schema.StatusError,
		StatusReason: "connection refused", ErroredRequests: i(16),
	})
	return m
}

// withEveryColumn sets every nullable field of one decode row to a value
// that needs all its digits, so a column added to the schema is covered.
func withEveryColumn(m *schema.Matrix) *schema.Matrix {
	x := &m.Measurements[2]
	v := reflect.ValueOf(x).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Type() {
		case reflect.TypeFor[*float64]():
			val := float64(i) + 0.123456789012
			if n := v.Type().Field(i).Name; n == "ServerPrefixCacheHits" || n == "ServerSpecAcceptRate" {
				val = float64(i)/100 + 0.000123456789 // a fraction (0–1): parse refuses more
			}
			f.Set(reflect.ValueOf(schema.F64(val)))
		case reflect.TypeFor[*int64]():
			if v.Type().Field(i).Name != "ContextTokens" {
				f.Set(reflect.ValueOf(schema.I64(int64(1000003 * i))))
			}
		}
	}
	return m
}

// withLaunch gives the run a launch command that says some of the
// server's facts, while the run knows others (or other values) from the
// server itself.
func withLaunch(m *schema.Matrix) *schema.Matrix {
	l := docspec.ParseLaunch(`vllm serve org/tiny-sim --served-model-name tiny -tp 2 --gpu-memory-utilization 0.875 --dtype bfloat16 --api-key <redacted>`)
	r := &m.Run
	r.LaunchCommand, r.LaunchFlags, r.LaunchDType, r.LaunchQuantization = l.Command, l.Flags, l.DType, l.Quantization
	r.ModelID, r.TensorParallel, r.GPUMemoryUtilization = l.ModelID, l.TensorParallel, l.GPUMemoryUtilization
	r.MaxModelLen = schema.I64(40960) // from /v1/models: the command does not say
	return m
}

// withFailedPrefill adds prefill cells of every status a run stores: a
// request answered 500 (no figures), a server that died before a later
// context, a cell over capacity, one skipped, and a valid one without
// its TTFT.
func withFailedPrefill(m *schema.Matrix) *schema.Matrix {
	i, c := schema.I64, schema.I32
	pre := func(label string, tokens int64, st schema.Status, reason string) schema.Measurement {
		return schema.Measurement{Phase: schema.PhasePrefill, ContextLabel: label, ContextTokens: i(tokens), Concurrency: c(1),
			Status: st, StatusReason: reason}
	}
	m.Measurements = append([]schema.Measurement{
		pre("1K", 1024, schema.StatusError, "prefill request: HTTP 500: boom"),
		pre("2K", 2048, schema.StatusError, "server unreachable: connection refused"),
		pre("4K", 4096, schema.StatusOverCapacity, ""),
		pre("6K", 6144, schema.StatusSkipped, ""),
		pre("7K", 7168, schema.StatusLooped, "looped"),
	}, m.Measurements...)
	x := pre("32K", 32768, schema.StatusValid, "")
	x.TotalTokS, x.CompletedRequests = schema.F64(40000), i(1)
	m.Measurements = append(m.Measurements, x)
	return m
}

// failedOnly is a run in which every cell failed: the server died at once.
func failedOnly() *schema.Matrix {
	m := synthRun()
	i, c := schema.I64, schema.I32
	m.Measurements = []schema.Measurement{
		{Phase: schema.PhasePrefill, ContextLabel: "1K", ContextTokens: i(1024), Concurrency: c(1), Status: schema.StatusError, StatusReason: "prefill request: EOF"},
		{Phase: schema.PhaseDecode, ContextLabel: "1K", ContextTokens: i(1024), Concurrency: c(1), Status: schema.StatusError, StatusReason: "server unreachable: EOF"},
	}
	return m
}

// runVariants are matrices as a measuring run makes them.
var runVariants = []struct {
	name string
	make func() *schema.Matrix
}{
	{"run", synthRun},
	{"serve rows", func() *schema.Matrix { return withServe(synthRun()) }},
	{"rate run", rateRun},
	{"every column", func() *schema.Matrix { return withEveryColumn(synthRun()) }},
	{"launch command", func() *schema.Matrix { return withLaunch(synthRun()) }},
	{"failed prefill cells", func() *schema.Matrix { return withFailedPrefill(synthRun()) }},
	{"failed cells only", failedOnly},
	{"with energy", func() *schema.Matrix {
		m := synthRun()
		m.Run.PowerSource, m.Run.IdlePowerW = "dcgm http://gpu1:9400/metrics", schema.F64(143.27)
		x := &m.Measurements[2]
		x.EnergyJ, x.AvgPowerW, x.OutputTokPerJ = schema.F64(21873.512), schema.F64(729.12), schema.F64(2.18734)
		return m
	}},
	{"titled", func() *schema.Matrix { m := synthRun(); m.Run.Title = "tiny-sim on Simulated GPU"; return m }},
	{"with the run's notes", func() *schema.Matrix {
		m := synthRun()
		m.Run.Metadata = []schema.Field{
			{Section: "Run", Key: "Request fields the server rejected", Value: "stream_options.continuous_usage_stats"},
			{Section: "Run", Key: "POST /tokenize", Value: "form content: HTTP 404"},
		}
		return m
	}},
}

// TestRunDocumentStable renders each run variant, parses it back as
// cmd/run does before archiving (source format run), and renders that
// again: the two documents must be the same bytes, so the document a run
// writes is the one its archived form prints.
func TestRunDocumentStable(t *testing.T) {
	for _, v := range runVariants {
		for _, f := range roundTripForms {
			t.Run(v.name+"/"+f.ext, func(t *testing.T) {
				m := v.make()
				var first, second bytes.Buffer
				write := formWriter(t, f.ext)
				if err := write(&first, m); err != nil {
					t.Fatal(err)
				}
				back := renderParse(t, m, f.ext, f.format)
				back.Run.SourceFormat = schema.FormatRun
				if err := write(&second, back); err != nil {
					t.Fatal(err)
				}
				if first.String() != second.String() {
					t.Errorf("documents differ:\n%s\n---\n%s", first.String(), second.String())
				}
			})
		}
	}
}

// TestRunRoundTrip renders matrices as a measuring run makes them and
// parses them back in every form: every measurement field (but its line
// and printed text) and every run field the document prints must come
// back exactly, and every printed pair must be kept in Run.Metadata.
func TestRunRoundTrip(t *testing.T) {
	for _, v := range runVariants {
		for _, f := range roundTripForms {
			t.Run(v.name+"/"+f.ext, func(t *testing.T) {
				want := v.make()
				back := renderParse(t, want, f.ext, f.format)
				for _, d := range rowDiffs(back.Measurements, want.Measurements) {
					t.Error(d)
				}
				for _, d := range runDiffs(&back.Run, &want.Run) {
					t.Error(d)
				}
				var printed []schema.Field
				for _, s := range newView(want).Sections {
					for _, kv := range s.Fields {
						printed = append(printed, schema.Field{Section: s.Name, Key: kv.Key, Value: kv.Value})
					}
				}
				if !reflect.DeepEqual(back.Run.Metadata, printed) {
					t.Errorf("metadata %s, want the printed pairs %s", js(back.Run.Metadata), js(printed))
				}
			})
		}
	}
}

// TestRunRoundTripDetects makes sure the comparison above fails on a
// figure, a run fact or a reason that does not come back.
func TestRunRoundTripDetects(t *testing.T) {
	want := synthRun()
	back := renderParse(t, want, "txt", schema.FormatText)
	back.Measurements[2].TBTP99Ms = schema.F64(*back.Measurements[2].TBTP99Ms + 1e-12)
	back.Measurements[6].StatusReason = ""
	back.Run.KVBudgetTokens = nil
	started := want.Run.StartedAt.Add(time.Nanosecond)
	back.Run.StartedAt = &started
	if n := len(rowDiffs(back.Measurements, want.Measurements)); n != 2 {
		t.Errorf("%d row differences, want 2", n)
	}
	if d := runDiffs(&back.Run, &want.Run); len(d) != 2 || !strings.HasPrefix(d[0], "run.StartedAt") || !strings.HasPrefix(d[1], "run.KVBudgetTokens") {
		t.Errorf("run differences %q, want StartedAt and KVBudgetTokens", d)
	}
}

// TestPeerRoundTrip parses other tools' result files, writes each as
// text and parses that back: the rows must be the same.
func TestPeerRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../parse/testdata/peers/*/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range files {
		if strings.Contains(p, "/bad/") || filepath.Ext(p) == ".md" {
			continue
		}
		n++
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := parse.ParseAllBytes(b, filepath.Base(p), "")
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms { // a file of several configurations holds several runs
				var out bytes.Buffer
				if err := Text(&out, m); err != nil {
					t.Fatal(err)
				}
				back, err := parse.ParseBytes(out.Bytes(), "peer.txt", schema.FormatText)
				if err != nil {
					t.Fatalf("parse(Text(m)): %v\n%s", err, out.Bytes())
				}
				for _, d := range rowDiffs(back.Measurements, m.Measurements) {
					t.Error(d)
				}
			}
		})
	}
	if n < 10 {
		t.Errorf("%d peer files, want the 10 or more under parse/testdata/peers", n)
	}
}

// formWriter returns the writer of forms with extension ext.
func formWriter(t *testing.T, ext string) func(w *bytes.Buffer, m *schema.Matrix) error {
	t.Helper()
	for _, f := range forms {
		if f.ext == ext {
			return f.write
		}
	}
	t.Fatalf("no form %q", ext)
	return nil
}
