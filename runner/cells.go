package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"speedmatrix/schema"
)

// prefillCell measures prompt processing at one context: from the scout
// (a cold prompt, first=true) or, in standalone mode, the median of
// unique cold prompts.
func (r *Runner) prefillCell(ctx context.Context, m schema.Measurement, p Prompt, cx planContext, first bool) schema.Measurement {
	var ttfts, rates, prompts []float64
	n := 1
	if r.cfg.PrefillMode == PrefillStandalone || !first {
		n = r.cfg.PrefillRepeats
	}
	var lastErr string
	overran := false
	for i := 0; i < n; i++ {
		text := p.Text
		if r.cfg.PrefillMode == PrefillStandalone || !first {
			// A unique tag makes the prompt cold; the scout that follows
			// warms the shared prompt for decode.
			text = promptHead(NewTag(), cx.label) + p.Text[len(promptHead(r.cfg.Tag, cx.label)):]
		}
		rec := r.c.probe(ctx, text)
		if rec.overran {
			overran = true
		}
		if rec.failed() || rec.first < 0 {
			lastErr = rec.err
			if lastErr == "" {
				lastErr = "no token"
			}
			continue
		}
		ttft := float64(rec.first-rec.sent) * msPerNs
		pt := rec.prompt
		if pt <= 0 {
			pt = p.Tokens
		}
		ttfts = append(ttfts, ttft)
		prompts = append(prompts, float64(pt))
		rates = append(rates, float64(pt)/(ttft/1000))
	}
	if len(ttfts) == 0 {
		m.Status, m.StatusReason = schema.StatusError, "prefill request: "+lastErr
		return m
	}
	m.Status = schema.StatusValid
	m.TotalTokS = schema.F64(median(rates))
	m.TTFTMs = schema.F64(median(ttfts))
	m.PromptTokens = schema.I64(int64(median(prompts)))
	m.CompletedRequests = schema.I64(int64(len(ttfts)))
	if len(ttfts) < n {
		m.ErroredRequests = schema.I64(int64(n - len(ttfts)))
	}
	if overran {
		m.StatusReason = fmt.Sprintf("note: the server ignored max_tokens=1 (the client stopped reading at %d tokens)", probeMaxTokens)
	}
	return m
}

// decodeCell runs one sustained-decode cell and turns it into a
// measurement and samples.
func (r *Runner) decodeCell(ctx context.Context, m schema.Measurement, p Prompt, c, idx, total int) (schema.Measurement, []schema.Sample) {
	cfg := &r.cfg
	base := m
	cell := cellConfig{
		label:                CellRequestLabel(m.ContextLabel, c),
		prompt:               p,
		concurrency:          c,
		duration:             cfg.Duration,
		maxTokens:            cfg.MaxTokens,
		idle:                 cfg.IdleTimeout,
		startTimeout:         cfg.StartTimeout,
		drainTimeout:         cfg.DrainTimeout,
		slots:                r.info.Slots,
		metrics:              r.info.Metrics,
		maxConsecutiveErrors: max(2*c, 8),
		onTokens: func(phase string, tokens int64, elapsed time.Duration) {
			r.progress(Progress{Cell: idx, Cells: total, Phase: phase, Label: m.ContextLabel,
				Concurrency: c, PhaseName: schema.PhaseDecode, Elapsed: elapsed, Tokens: tokens})
		},
	}
	run := r.c.runCell(ctx, cell, r.pool)
	if full, n, why := kvFullRequests(run.recs); full > 0 && run.looped == nil {
		// The server's KV cache overflowed: over capacity, not broken.
		// The figures of a server that dropped requests are not kept; the
		// requests are, as samples.
		m = base
		m.Status = schema.StatusOverCapacity
		m.StatusReason = fmt.Sprintf("the server's KV cache is full: %d of %d requests failed with %q", full, n, why)
		if run.ws < 0 {
			return m, nil
		}
		f := figures(&run, !cfg.NoSamples)
		r.sampleCell(f.samples, m.ContextLabel, c)
		return m, f.samples
	}
	if run.ws < 0 {
		m.Status = schema.StatusError
		m.StatusReason = run.errReason
		if run.looped != nil {
			m.Status = schema.StatusLooped
		}
		r.loopEvidence(&m, run.looped)
		addNotes(&m, run.notes)
		return m, nil
	}
	f := figures(&run, !cfg.NoSamples)
	f.fill(&m)
	if f.retries > 0 {
		m.Extra = append(m.Extra, schema.Metric{Name: "client_retries", Value: float64(f.retries)})
	}
	m.Status = schema.StatusValid
	switch {
	case run.looped != nil:
		m.Status = schema.StatusLooped
		r.loopEvidence(&m, run.looped)
	case run.errReason != "":
		m.Status, m.StatusReason = schema.StatusError, run.errReason
	case f.overran > 0:
		// Note: a cell of a server that ignores max_tokens is invalid, its
		// figures kept but not counted: its streams are not the workload
		// asked for (each request should end at max_tokens and the stream
		// prefill again), and such servers were seen to report usage that
		// is wrong too (100–200K tok/s stored where 1–9K was real).
		// Counting only max_tokens per request would hide the first and
		// keep the second.
		m.Status = schema.StatusError
		m.StatusReason = fmt.Sprintf("the server ignored max_tokens=%d: %d of %d requests streamed past it, up to %d tokens",
			cfg.MaxTokens, f.overran, f.requestsInCell, f.overranMax)
	case f.requestsInCell > 0 && float64(f.errored)/float64(f.requestsInCell) > cfg.MaxErrorRate:
		m.Status = schema.StatusError
		m.StatusReason = fmt.Sprintf("%d of %d requests failed (over %.0f%%); first: %s",
			f.errored, f.requestsInCell, 100*cfg.MaxErrorRate, f.errSample)
	case f.tokens == 0:
		m.Status, m.StatusReason = schema.StatusError, "no tokens inside the window"
	}
	if run.haveMetrics {
		serverFigures(&m, run)
		if m.Status == schema.StatusValid && len(run.running) == 0 && !run.gaugeFailed {
			// A process starved of CPU can end the window before any
			// scrape has finished: the figure is left empty, and the cell
			// says why.
			run.note("%s: no /metrics scrape finished within the window (one every %v)", NoteNoRunningGauge, runningEvery)
		}
	}
	r.cellEnergy(ctx, &m, &run)
	addNotes(&m, run.notes)
	r.sampleCell(f.samples, m.ContextLabel, c)
	return m, f.samples
}

// sampleCell names the cell of a decode cell's samples.
func (r *Runner) sampleCell(samples []schema.Sample, label string, c int) {
	for i := range samples {
		s := &samples[i]
		s.Phase, s.ContextLabel, s.Concurrency = schema.PhaseDecode, label, int32(c)
	}
}

// addNotes appends a cell's notes to its status reason ("note: …" on a
// valid cell).
func addNotes(m *schema.Measurement, notes []string) {
	if len(notes) == 0 {
		return
	}
	s := strings.Join(notes, "; ")
	if m.StatusReason == "" {
		m.StatusReason = "note: " + s
	} else {
		m.StatusReason += "; " + s
	}
}

// kvFullRequests counts the requests that failed because the server's KV
// cache was full, of n requests, with the first such error.
func kvFullRequests(recs []record) (full, n int, first string) {
	for i := range recs {
		if recs[i].cut && !recs[i].failed() && recs[i].first < 0 {
			continue // sent as the cell stopped
		}
		n++
		if kvFull(recs[i].err) {
			if full == 0 {
				first = recs[i].err
			}
			full++
		}
	}
	return full, n, first
}

// slotWarning returns, before any load, a warning when a concurrency
// exceeds the slots the server runs at once ("" when none does): the
// extra requests queue, and the window opens when the slots run and the
// rest wait.
func (r *Runner) slotWarning(info ServerInfo) string {
	if info.Slots <= 0 {
		return ""
	}
	for _, c := range r.cfg.Concurrency {
		if c > info.Slots {
			return fmt.Sprintf("concurrency %d exceeds the server's %d slots (/props total_slots): %d requests of each such cell wait in its queue; the window opens when %d run and %d wait, or after -drain-timeout %v",
				c, info.Slots, c-info.Slots, info.Slots, c-info.Slots, r.cfg.DrainTimeout)
		}
	}
	return ""
}

func (r *Runner) loopEvidence(m *schema.Measurement, q *record) {
	if q == nil {
		return
	}
	kind := "content"
	if q.loop.Reasoning {
		kind = "reasoning"
	}
	m.LoopPeriodChars = schema.I64(q.loop.PeriodChars)
	m.LoopCycles = schema.I64(q.loop.Cycles)
	m.StatusReason = fmt.Sprintf("%s of request %d.%d repeats a %d-character text %d times",
		kind, q.slot, q.seq, q.loop.PeriodChars, q.loop.Cycles)
}

// serverFigures copies what /metrics said about the cell.
func serverFigures(m *schema.Measurement, run cellRun) {
	if d, ok := metricsDelta(run.before, run.after, "generation_tokens"); ok {
		m.ServerGenerationTokens = schema.I64(int64(d))
	}
	if d, ok := metricsDelta(run.before, run.after, "preemptions"); ok {
		m.ServerPreemptions = schema.I64(int64(d))
	}
	hits, ok1 := metricsDelta(run.before, run.after, "prefix_hits")
	queries, ok2 := metricsDelta(run.before, run.after, "prefix_queries")
	if ok1 && ok2 && queries > 0 {
		m.ServerPrefixCacheHits = schema.F64(hits / queries)
	} else if v, ok := run.after.get("cache_hit_rate"); ok {
		m.ServerPrefixCacheHits = schema.F64(v)
	}
	acc, ok1 := metricsDelta(run.before, run.after, "spec_accepted")
	draft, ok2 := metricsDelta(run.before, run.after, "spec_draft")
	if ok1 && ok2 && draft > 0 {
		m.ServerSpecAcceptRate = schema.F64(acc / draft)
	}
	if len(run.running) > 0 {
		sum := 0.0
		for _, v := range run.running {
			sum += v
		}
		m.ServerRunningAvg = schema.F64(sum / float64(len(run.running)))
	}
}

func (r *Runner) progress(p Progress) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(p)
	}
}
