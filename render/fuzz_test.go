package render

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"speedmatrix/parse"
	"speedmatrix/schema"
)

// fuzzMatrix builds a small matrix from fuzzed figures: a prefill row and
// a valid decode cell carrying them, a looped cell, and a serve row
// carrying them too (its rate table checked against its full row).
func fuzzMatrix(tok, ttft, tbt, avg float64, out int64, conc uint8, ctxK uint16) *schema.Matrix {
	ctx := int64(ctxK%2048) + 1
	label := strconv.FormatInt(ctx, 10) + "K"
	c := int32(conc%200) + 1
	m := &schema.Matrix{Run: schema.Run{Title: "fuzz-model on Fuzz GPU 80GB", Engine: "sim"}}
	m.Measurements = []schema.Measurement{
		{Phase: schema.PhasePrefill, ContextLabel: label, ContextTokens: schema.I64(ctx * 1024), Concurrency: schema.I32(1),
			Status: schema.StatusValid, TotalTokS: schema.F64(tok), TTFTMs: schema.F64(ttft), CompletedRequests: schema.I64(1)},
		{Phase: schema.PhaseDecode, ContextLabel: label, ContextTokens: schema.I64(ctx * 1024), Concurrency: schema.I32(c),
			Status: schema.StatusValid, TotalTokS: schema.F64(tok), PerRequestTokS: schema.F64(tok / float64(c)),
			TTFTMs: schema.F64(ttft), TBTMs: schema.F64(tbt), AvgActiveRequests: schema.F64(avg),
			CompletedRequests: schema.I64(out / 100), OutputTokens: schema.I64(out), MeasuredS: schema.F64(30)},
		{Phase: schema.PhaseDecode, ContextLabel: label, ContextTokens: schema.I64(ctx * 1024), Concurrency: schema.I32(c + 1),
			Status: schema.StatusLooped, OutputTokens: schema.I64(0), CompletedRequests: schema.I64(0)},
		{Phase: schema.PhaseServe, ContextLabel: label, ContextTokens: schema.I64(ctx * 1024), RequestRate: schema.F64(avg),
			Status: schema.StatusValid, TotalTokS: schema.F64(tok), TTFTMs: schema.F64(ttft), TTFTP99Ms: schema.F64(ttft * 3),
			TBTMs: schema.F64(tbt), E2EP50Ms: schema.F64(ttft + tbt*float64(out%1000)), AvgActiveRequests: schema.F64(avg),
			RequestThroughput: schema.F64(avg), GoodputReqS: schema.F64(avg / 3), CompletedRequests: schema.I64(out),
			ErroredRequests: schema.I64(out % 7), Extra: []schema.Metric{{Name: "achieved_request_rate", Value: tbt},
				{Name: "total_token_throughput", Value: tok * 1.5}}},
	}
	return m
}

// FuzzRoundTrip renders fuzzed figures in one of the three forms (form
// % 3: text, Markdown, HTML) and parses them back: every figure must come
// back exactly, however its digits run into the next figure's in the
// seeds' glued text.
func FuzzRoundTrip(f *testing.F) {
	f.Add(325.2, 41.0, 3.1, 1.0, int64(9756), uint8(1), uint16(8), uint8(0))
	f.Add(6091.1, 783.0, 21.1, 128.0, int64(182670), uint8(128), uint16(8), uint8(0))
	f.Add(5319.4, 1644.0, 24.3, 128.0, int64(159629), uint8(128), uint16(16), uint8(0))
	f.Add(13000.0, 780.0, 9.9, 128.0, int64(389138), uint8(128), uint16(8), uint8(0))
	f.Add(57500.0, 282.0, 3.0, 1.0, int64(1), uint8(1), uint16(16), uint8(0))
	f.Add(325.24137, 41.2, 3.0746, 3.97, int64(650), uint8(4), uint16(123), uint8(0))
	f.Add(6091.1, 783.0, 21.1, 128.0, int64(182670), uint8(128), uint16(8), uint8(1))
	f.Add(325.24137, 41.2, 3.0746, 3.97, int64(650), uint8(4), uint16(123), uint8(2))
	f.Fuzz(func(t *testing.T, tok, ttft, tbt, avg float64, out int64, conc uint8, ctxK uint16, form uint8) {
		for _, v := range []float64{tok, ttft, tbt, avg} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e9 {
				t.Skip("figures are finite, non-negative and below 1e9")
			}
		}
		if out < 0 || out > 1<<40 {
			t.Skip("token counts are non-negative")
		}
		m := fuzzMatrix(tok, ttft, tbt, avg, out, conc, ctxK)
		rt := roundTripForms[int(form)%len(roundTripForms)]
		var b bytes.Buffer
		for _, f := range forms {
			if f.ext == rt.ext {
				if err := f.write(&b, m); err != nil {
					t.Fatal(err)
				}
			}
		}
		back, err := parse.ParseBytes(b.Bytes(), "fuzz."+rt.ext, rt.format)
		if err != nil {
			t.Fatalf("parse(render(m)) as %s: %v\n%s", rt.format, err, b.Bytes())
		}
		for _, d := range rowDiffs(back.Measurements, m.Measurements) {
			t.Errorf("%s\n%s", d, b.Bytes())
		}
	})
}
