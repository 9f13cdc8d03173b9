package runner

import (
	"math"

	"speedmatrix/schema"
)

const msPerNs = 1e-6

// windowFigures holds one cell's figures, computed from what the client
// saw inside the window [ws, we).
type windowFigures struct {
	seconds        float64
	tokens         int64 // output tokens inside the window (failed requests excluded)
	totalTokS      float64
	perRequest     []float64 // each request's decode tok/s inside the window
	tbt            []float64 // each request's TBT, ms
	ttft, ttfc     []float64 // ms, requests whose first token came before we
	gaps           []float64 // chunk gaps inside the window, ms
	e2e            []float64 // ms, requests completed inside the window
	prompt         []float64 // usage.prompt_tokens of requests that reported it
	activeAvg      float64
	completed      int64
	errored        int64
	errSample      string
	samples        []schema.Sample
	requestsInCell int64
	// retries counts requests sent again after the server had closed
	// their reused connection; overran the requests that streamed more
	// than max_tokens, the longest overranMax tokens.
	retries             int64
	overran, overranMax int64
}

// figures computes a cell's figures from its records.
//
// Definitions (docs/schema.md has them too):
//   - window tokens: per request, the tokens of its chunks that arrived
//     inside [ws, we), in-flight requests included, failed requests
//     excluded; total tok/s = window tokens / (we − ws).
//   - per request, from its chunks inside the window: TBT = (t_last −
//     t_first) / (n − n_first), where n counts its window tokens and
//     n_first those of its first chunk in the window; decode tok/s =
//     1/TBT. With one token per chunk this is the (t_last −
//     t_first)/(tokens − 1); with several per chunk it stays the time per
//     token instead of counting the first chunk's extra tokens as gaps.
//   - TTFT: first token of any kind (content or reasoning) − the time
//     the request was fully written, over the cell's requests whose first token came before we;
//     TTFC the same to the first content token.
//   - chunk gaps: time between consecutive token chunks of a request,
//     both inside the window.
//   - average active requests: time-weighted client in-flight count over
//     the window.
//   - completed: requests that finished normally inside the window.
func figures(run *cellRun, keepSamples bool) windowFigures {
	ws, we := run.ws, run.we
	var f windowFigures
	// Requests cut at the window's end by a server that does not send
	// usage with every chunk have only a chunk count; scale it by the
	// tokens per chunk of the cell's finished requests (exact when every
	// chunk carries the same number of tokens).
	var finTokens, finChunks int64
	for qi := range run.recs {
		q := &run.recs[qi]
		if q.done && !q.continuous && !q.failed() && q.t1 > q.t0 {
			finTokens += q.tokens
			finChunks += int64(q.t1 - q.t0)
		}
	}
	perChunk := 1.0
	if finChunks > 0 {
		perChunk = float64(finTokens) / float64(finChunks)
	}
	f.seconds = float64(we-ws) / 1e9
	var activeNs int64
	for qi := range run.recs {
		q := &run.recs[qi]
		if q.start >= we {
			continue // sent after the window closed (during the stop)
		}
		f.requestsInCell++
		f.retries += int64(q.retries)
		if q.overran {
			f.overran++
			f.overranMax = max(f.overranMax, q.tokens)
		}
		end := q.end
		if end < 0 || end > we {
			end = we
		}
		if a, b := max(q.start, ws), end; b > a {
			activeNs += b - a
		}
		var s schema.Sample
		if keepSamples {
			s = schema.Sample{
				Request:      int64(len(f.samples)),
				StartMs:      float64(q.start) * msPerNs,
				PromptTokens: q.prompt,
				InWindow:     q.start < we && end > ws,
				Error:        q.err,
			}
		}
		if q.failed() {
			f.errored++
			if f.errSample == "" {
				f.errSample = q.err
			}
			if keepSamples {
				f.samples = append(f.samples, s)
			}
			continue
		}
		if q.prompt > 0 {
			f.prompt = append(f.prompt, float64(q.prompt))
		}
		if q.first >= 0 && q.first < we {
			v := float64(q.first-q.sent) * msPerNs
			f.ttft = append(f.ttft, v)
			s.TTFTMs = schema.F64(v)
		}
		if q.firstContent >= 0 && q.firstContent < we {
			f.ttfc = append(f.ttfc, float64(q.firstContent-q.sent)*msPerNs)
		}
		if q.done && q.end >= ws && q.end < we {
			f.completed++
			f.e2e = append(f.e2e, float64(q.end-q.start)*msPerNs)
		}
		ticks := run.streams[q.slot].log[q.t0:q.t1]
		var before int64 // tokens before the window
		firstT, lastT := int64(-1), int64(-1)
		var firstCum, lastCum int64
		prevT := int64(-1)
		for _, tk := range ticks {
			if tk.t < ws {
				before = int64(tk.cum)
				continue
			}
			if tk.t >= we {
				break
			}
			if firstT < 0 {
				firstT, firstCum = tk.t, int64(tk.cum)
			}
			if prevT >= 0 {
				f.gaps = append(f.gaps, float64(tk.t-prevT)*msPerNs)
			}
			prevT = tk.t
			lastT, lastCum = tk.t, int64(tk.cum)
		}
		if firstT < 0 {
			if keepSamples {
				f.samples = append(f.samples, s)
			}
			continue
		}
		if !q.done && !q.continuous && perChunk != 1 {
			scale := func(v int64) int64 { return int64(math.Round(float64(v) * perChunk)) }
			lastCum, before, firstCum = scale(lastCum), scale(before), scale(firstCum)
		}
		n := lastCum - before
		f.tokens += n
		s.OutputTokens = n
		if steps := lastCum - firstCum; steps > 0 && lastT > firstT {
			tbt := float64(lastT-firstT) * msPerNs / float64(steps)
			f.tbt = append(f.tbt, tbt)
			f.perRequest = append(f.perRequest, 1000/tbt)
			s.TBTMs = schema.F64(tbt)
			s.DecodeTokS = schema.F64(1000 / tbt)
		}
		if keepSamples {
			f.samples = append(f.samples, s)
		}
	}
	if f.seconds > 0 {
		f.totalTokS = float64(f.tokens) / f.seconds
		f.activeAvg = float64(activeNs) / float64(we-ws)
	}
	return f
}

// fill writes the figures into m.
func (f *windowFigures) fill(m *schema.Measurement) {
	m.MeasuredS = schema.F64(f.seconds)
	m.TotalTokS = schema.F64(f.totalTokS)
	m.OutputTokens = schema.I64(f.tokens)
	m.CompletedRequests = schema.I64(f.completed)
	m.AvgActiveRequests = schema.F64(f.activeAvg)
	m.ErroredRequests = schema.I64(f.errored)
	if len(f.perRequest) > 0 {
		m.PerRequestTokS = schema.F64(median(f.perRequest))
	}
	fillLatencies(m, f.ttft, f.ttfc, f.tbt, f.gaps, f.e2e)
	if len(f.prompt) > 0 {
		m.PromptTokens = schema.I64(int64(median(f.prompt)))
	}
	if f.seconds > 0 {
		m.RequestThroughput = schema.F64(float64(f.completed) / f.seconds)
	}
}

// fillLatencies writes the distributions of per-request TTFT, TTFC, TBT
// and E2E and of chunk gaps (ms, each sorted in place) into m: medians
// in ttft_ms and tbt_ms, then mean, p50, p90 and p99.
func fillLatencies(m *schema.Measurement, ttft, ttfc, tbt, gaps, e2e []float64) {
	if d, ok := summarize(ttft); ok {
		m.TTFTMs, m.TTFTMeanMs, m.TTFTP50Ms, m.TTFTP90Ms, m.TTFTP99Ms = schema.F64(d.p50), schema.F64(d.mean), schema.F64(d.p50), schema.F64(d.p90), schema.F64(d.p99)
	}
	if len(ttfc) > 0 {
		m.TTFCMs = schema.F64(median(ttfc))
	}
	if d, ok := summarize(tbt); ok {
		m.TBTMs, m.TBTMeanMs, m.TBTP50Ms, m.TBTP90Ms, m.TBTP99Ms = schema.F64(d.p50), schema.F64(d.mean), schema.F64(d.p50), schema.F64(d.p90), schema.F64(d.p99)
	}
	if d, ok := summarize(gaps); ok {
		m.ChunkGapMeanMs, m.ChunkGapP50Ms, m.ChunkGapP90Ms, m.ChunkGapP99Ms = schema.F64(d.mean), schema.F64(d.p50), schema.F64(d.p90), schema.F64(d.p99)
	}
	if d, ok := summarize(e2e); ok {
		m.E2EMeanMs, m.E2EP50Ms, m.E2EP90Ms, m.E2EP99Ms = schema.F64(d.mean), schema.F64(d.p50), schema.F64(d.p90), schema.F64(d.p99)
	}
}

// roundSig rounds v to n significant digits.
func roundSig(v float64, n int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// roundTo rounds v to a multiple of step. For decimal steps (0.1, 0.01,
// …) it divides by the integer 1/step rather than multiplying by step, so
// the result is the float nearest the decimal (1413.3, not
// 1413.3000000000002) and prints as such.
func roundTo(v, step float64) float64 {
	if inv := math.Round(1 / step); inv >= 1 && math.Abs(inv*step-1) < 1e-12 {
		return math.Round(v*inv) / inv
	}
	return math.Round(v/step) * step
}

// roundFigures keeps a stored figure to the precision a measurement
// supports, so documents print 1,234.5 tok/s and 3.142 ms rather than
// every float digit: rates to 0.1 tok/s, latencies to 4 significant
// digits (TBTs below 1 ms keep their µs), counts of active requests to
// 0.01, ratios to 1e-4.
func roundFigures(m *schema.Measurement) {
	r := func(p *float64, f func(float64) float64) {
		if p != nil {
			*p = f(*p)
		}
	}
	rate := func(v float64) float64 { return roundTo(v, 0.1) }
	ms := func(v float64) float64 { return roundSig(v, 4) }
	for _, p := range []*float64{m.TotalTokS, m.PerRequestTokS, m.InputTokS} {
		r(p, rate)
	}
	for _, p := range []*float64{m.TTFTMs, m.TBTMs, m.TTFTMeanMs, m.TTFTP50Ms, m.TTFTP90Ms, m.TTFTP99Ms, m.TTFCMs,
		m.TBTMeanMs, m.TBTP50Ms, m.TBTP90Ms, m.TBTP99Ms, m.ChunkGapMeanMs, m.ChunkGapP50Ms, m.ChunkGapP90Ms,
		m.ChunkGapP99Ms, m.E2EMeanMs, m.E2EP50Ms, m.E2EP90Ms, m.E2EP99Ms} {
		r(p, ms)
	}
	r(m.AvgActiveRequests, func(v float64) float64 { return roundTo(v, 0.01) })
	r(m.ServerRunningAvg, func(v float64) float64 { return roundTo(v, 0.01) })
	r(m.MeasuredS, func(v float64) float64 { return roundTo(v, 0.001) })
	r(m.RequestThroughput, func(v float64) float64 { return roundSig(v, 4) })
	r(m.ServerPrefixCacheHits, func(v float64) float64 { return roundTo(v, 1e-4) })
	r(m.ServerSpecAcceptRate, func(v float64) float64 { return roundTo(v, 1e-4) })
}
