package runner

import (
	"fmt"
	"math"

	"speedmatrix/schema"
)

// lateAfter is the send lag past which a request counts as late: the
// client could not send it on time (late_requests).
const lateAfter = 10 * 1e6 // ns

// loadFigures are one load's figures, over its span: from the first
// request handed to the transport to the last one's end.
//
// Definitions (docs/schema.md has them too), as vLLM's bench serve
// computes them where it has the figure:
//   - duration: last end − first start; request throughput = completed /
//     duration; output tok/s = output tokens of all requests (failed ones
//     excluded) / duration; total tok/s adds their prompt tokens.
//   - achieved request rate: (sent − 1) / (last start − first start),
//     what the client actually offered.
//   - per request TTFT = first token − request written; TBT = (t_last −
//     t_first) / (tokens after the first chunk), as decode cells compute
//     it (vLLM's TPOT with its end at the last token); chunk gaps =
//     times between consecutive token chunks (vLLM's ITL); E2E = end −
//     start, of completed requests.
//   - goodput: completed requests meeting every bound of the SLO /
//     duration (vLLM's --goodput, inference-perf's goodput).
//   - in flight: the number of requests between their start and end at
//     each moment; average active requests is its time average over the
//     span, max_active_requests its peak, in_flight_p50 and _p90 the
//     count it spent half (90%) of the span at or below, in_flight_t01 …
//     _t10 its mean over each tenth of the span (inflight.go).
type loadFigures struct {
	sent, completed, errored, incomplete, late, good int64
	firstStart, lastStart, lastEnd                   int64
	outTokens, inTokens                              int64
	ttft, ttfc, tbt, gaps, e2e, lag, prompts         []float64
	inFlight                                         inFlight
	errSample                                        string
	samples                                          []schema.Sample

	// retries counts requests sent again after the server had closed
	// their reused connection; overran the requests that streamed past
	// their max_tokens (cut there, neither completed nor incomplete), the
	// longest overranMax tokens.
	retries, overran, overranMax int64
}

// figuresOf computes a load's figures; slo decides goodput.
func figuresOf(run *loadRun, slo SLO, keepSamples bool) loadFigures {
	f := loadFigures{firstStart: -1}
	var edges []inFlightEdge
	for i := range run.recs {
		q := &run.recs[i]
		f.sent++
		f.retries += int64(q.retries)
		if f.firstStart < 0 || q.start < f.firstStart {
			f.firstStart = q.start
		}
		f.lastStart = max(f.lastStart, q.start)
		lag := run.lag[i]
		f.lag = append(f.lag, float64(lag)*msPerNs)
		if lag > lateAfter {
			f.late++
		}
		end := q.end
		if end < 0 { // cut when the load stopped
			end = max(q.start, run.stoppedAt)
		}
		f.lastEnd = max(f.lastEnd, end)
		edges = append(edges, inFlightEdge{q.start, 1}, inFlightEdge{end, -1})
		s := schema.Sample{Request: int64(i), StartMs: float64(q.start) * msPerNs, PromptTokens: q.prompt, InWindow: true, Error: q.err}
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
			f.inTokens += q.prompt
			f.prompts = append(f.prompts, float64(q.prompt))
		}
		ttft := -1.0
		if q.first >= 0 {
			ttft = float64(q.first-q.sent) * msPerNs
			f.ttft = append(f.ttft, ttft)
			s.TTFTMs = schema.F64(ttft)
		}
		if q.firstContent >= 0 {
			f.ttfc = append(f.ttfc, float64(q.firstContent-q.sent)*msPerNs)
		}
		ticks := run.streams[q.slot].log[q.t0:q.t1]
		tbt := -1.0
		if len(ticks) > 0 {
			for j := 1; j < len(ticks); j++ {
				f.gaps = append(f.gaps, float64(ticks[j].t-ticks[j-1].t)*msPerNs)
			}
			first, last := ticks[0], ticks[len(ticks)-1]
			if steps := int64(last.cum) - int64(first.cum); steps > 0 && last.t > first.t {
				tbt = float64(last.t-first.t) * msPerNs / float64(steps)
				f.tbt = append(f.tbt, tbt)
				s.TBTMs, s.DecodeTokS = schema.F64(tbt), schema.F64(1000/tbt)
			}
		}
		f.outTokens += q.tokens
		s.OutputTokens = q.tokens
		if keepSamples {
			f.samples = append(f.samples, s)
		}
		if q.overran {
			f.overran++
			f.overranMax = max(f.overranMax, q.tokens)
		}
		if !q.done {
			if !q.overran {
				f.incomplete++
			}
			continue
		}
		f.completed++
		e2e := float64(q.end-q.start) * msPerNs
		f.e2e = append(f.e2e, e2e)
		if ttft >= 0 && slo.meets(ttft, tbt, e2e) {
			f.good++
		}
	}
	f.inFlight = inFlightOver(edges, f.firstStart, f.lastEnd)
	return f
}

// overranReason says that the server ignored the requests' max_tokens.
func (f *loadFigures) overranReason() string {
	return fmt.Sprintf("the server ignored max_tokens: %d of %d requests streamed past theirs (the client stopped reading each there, at up to %d tokens)",
		f.overran, f.sent, f.overranMax)
}

// seconds returns the span in seconds.
func (f *loadFigures) seconds() float64 {
	if f.firstStart < 0 || f.lastEnd <= f.firstStart {
		return 0
	}
	return float64(f.lastEnd-f.firstStart) / 1e9
}

// fill writes the figures into a serve row.
func (f *loadFigures) fill(m *schema.Measurement) {
	sec := f.seconds()
	m.CompletedRequests = schema.I64(f.completed)
	m.ErroredRequests = schema.I64(f.errored)
	m.OutputTokens = schema.I64(f.outTokens)
	if f.inTokens > 0 {
		m.InputTokensTotal = schema.I64(f.inTokens)
		m.PromptTokens = schema.I64(int64(math.Round(float64(f.inTokens) / float64(len(f.prompts)))))
	}
	if sec > 0 {
		m.MeasuredS = schema.F64(sec)
		m.TotalTokS = schema.F64(float64(f.outTokens) / sec)
		m.RequestThroughput = schema.F64(float64(f.completed) / sec)
		if f.inTokens > 0 {
			m.InputTokS = schema.F64(float64(f.inTokens) / sec)
		}
	}
	fillLatencies(m, f.ttft, f.ttfc, f.tbt, f.gaps, f.e2e)
	if m.TBTMs != nil && *m.TBTMs > 0 {
		m.PerRequestTokS = schema.F64(1000 / *m.TBTMs) // the median of per-request rates: 1000/x is monotone
	}
	extra := func(name string, v float64) { m.Extra = append(m.Extra, schema.Metric{Name: name, Value: v}) }
	if f.sent > 1 && f.lastStart > f.firstStart {
		extra("achieved_request_rate", roundSig(float64(f.sent-1)/(float64(f.lastStart-f.firstStart)/1e9), 6))
	}
	if sec > 0 && f.inTokens > 0 {
		extra("total_token_throughput", roundTo(float64(f.outTokens+f.inTokens)/sec, 0.1))
	}
	extra("requests_sent", float64(f.sent))
	if f.incomplete > 0 {
		extra("incomplete_requests", float64(f.incomplete))
	}
	extra("late_requests", float64(f.late))
	if f.retries > 0 {
		extra("client_retries", float64(f.retries))
	}
	if d, ok := summarize(f.lag); ok {
		extra("send_lag_p50_ms", roundSig(d.p50, 4))
		extra("send_lag_p99_ms", roundSig(d.p99, 4))
		extra("send_lag_max_ms", roundSig(f.lag[len(f.lag)-1], 4))
	}
	f.inFlight.fill(m, sec)
}
