package peers

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// FormatLMBench is the per-request CSV of LMCache's LMBench multi-round
// QA workloads (3-workloads/*/multi-round-qa.py, also vLLM's production
// stack benchmarks): one row per request, written by pandas at the end
// of a run (--output, summary.csv by default).
const FormatLMBench = "lmbench-csv"

// lmbenchColumns are the columns multi-round-qa.py writes, in order.
var lmbenchColumns = []string{"prompt_tokens", "generation_tokens", "ttft", "generation_time", "user_id", "question_id", "launch_time", "finish_time"}

// lmbenchReader aggregates LMBench's per-request CSV into one serving
// cell, as the tool's own summary does, and keeps each request as a
// sample.
var lmbenchReader = reader{
	format: FormatLMBench,
	parse:  one(parseLMBench),
	shapes: []shape{{rank: 66, text: looksLMBench}},
}

// looksLMBench reports whether t's header names every column of
// LMBench's per-request CSV.
func looksLMBench(t []byte) bool {
	header, _, _ := bytes.Cut(t, []byte("\n"))
	cols := strings.Split(strings.TrimSpace(string(header)), ",")
	for _, c := range lmbenchColumns {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// lmbenchRequest is one row: times in seconds, as the tool writes them.
type lmbenchRequest struct {
	line           int
	prompt, gen    float64
	ttft, genTime  float64
	user, question string
	launch, finish float64
}

// parseLMBench reads the CSV into one serve cell over the file's span
// (first launch to last finish), with the tool's summary figures
// (multi-round-qa.py ProcessSummary over the whole file) and the
// percentiles speedmatrix's serve rows carry.
//
// Note: the offered QPS and the number of simulated users are flags of
// the run and not in the file, so the cell has neither a request rate
// nor a concurrency; the run's metadata says so rather than guess them
// from the file name.
func parseLMBench(b []byte, name string) (*schema.Matrix, error) {
	var col map[string]int
	var reqs []lmbenchRequest
	err := csvRows(b, name, func(header []string, line int, rec []string) error {
		if col == nil {
			var extraCols []string
			col = map[string]int{}
			for i, h := range header {
				h = strings.TrimSpace(h)
				col[h] = i
				if !slices.Contains(lmbenchColumns, h) {
					extraCols = append(extraCols, h)
				}
			}
			if len(extraCols) > 0 {
				return errorf(name, 1, "columns %s are not LMBench's (%s)", strings.Join(extraCols, ", "), strings.Join(lmbenchColumns, ", "))
			}
		}
		if len(rec) != len(col) {
			return errorf(name, line, "%d fields where the header names %d", len(rec), len(col))
		}
		q := lmbenchRequest{line: line, user: rec[col["user_id"]], question: rec[col["question_id"]]}
		for _, f := range []struct {
			k string
			p *float64
		}{{"prompt_tokens", &q.prompt}, {"generation_tokens", &q.gen}, {"ttft", &q.ttft}, {"generation_time", &q.genTime}, {"launch_time", &q.launch}, {"finish_time", &q.finish}} {
			s := strings.TrimSpace(rec[col[f.k]])
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return errorf(name, line, "%s %q is not a non-negative number", f.k, s)
			}
			*f.p = v
		}
		if q.finish < q.launch {
			return errorf(name, line, "finish_time %v before launch_time %v", q.finish, q.launch)
		}
		reqs = append(reqs, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, errorf(name, 1, "an LMBench CSV without requests")
	}
	start, end := reqs[0].launch, reqs[0].finish
	var prompt, gen float64
	var ttfts, tbts, e2es, genRates []float64
	silent := 0 // requests that returned no content token: ttft 0 in the file
	for _, q := range reqs {
		start, end = min(start, q.launch), max(end, q.finish)
		prompt += q.prompt
		gen += q.gen
		e2es = append(e2es, 1000*(q.finish-q.launch))
		if q.ttft == 0 && q.genTime == 0 {
			silent++
			continue
		}
		ttfts = append(ttfts, 1000*q.ttft)
		if q.gen > 1 && q.genTime > 0 {
			tbts = append(tbts, 1000*q.genTime/(q.gen-1))
		}
		if q.genTime > 0 {
			genRates = append(genRates, q.gen/q.genTime)
		}
	}
	span := end - start
	if span <= 0 {
		return nil, errorf(name, reqs[0].line, "the requests span no time (first launch %v, last finish %v)", start, end)
	}
	m := peerMatrix("lmbench", "")
	run := &m.Run
	run.Title = "LMBench multi-round QA"
	addField(run, "Not recorded", "request rate and users", "the offered QPS (--qps) and the number of users (--num-users) are flags of the run, not in the file")
	n := float64(len(reqs))
	meanPrompt := prompt / n
	c := schema.Measurement{
		Phase:             schema.PhaseServe,
		Status:            schema.StatusValid,
		ContextLabel:      tokenLabel(int64(math.Round(meanPrompt))),
		ContextTokens:     schema.I64(int64(math.Round(meanPrompt))),
		PromptTokens:      schema.I64(int64(math.Round(meanPrompt))),
		InputTokensTotal:  schema.I64(int64(prompt)),
		OutputTokens:      schema.I64(int64(gen)),
		CompletedRequests: schema.I64(int64(len(reqs))),
		MeasuredS:         schema.F64(span),
		RequestThroughput: schema.F64(n / span),
		TotalTokS:         schema.F64(gen / span),
		InputTokS:         schema.F64(prompt / span),
		SourceLine:        int64(reqs[0].line),
	}
	setStats := func(xs []float64, mean, p50, p90, p99 **float64) {
		if len(xs) == 0 {
			return
		}
		s := slices.Sorted(slices.Values(xs))
		var sum float64
		for _, x := range s {
			sum += x
		}
		*mean = schema.F64(sum / float64(len(s)))
		*p50, *p90, *p99 = schema.F64(numpyQuantile(s, 0.5)), schema.F64(numpyQuantile(s, 0.9)), schema.F64(numpyQuantile(s, 0.99))
	}
	setStats(ttfts, &c.TTFTMeanMs, &c.TTFTP50Ms, &c.TTFTP90Ms, &c.TTFTP99Ms)
	setStats(tbts, &c.TBTMeanMs, &c.TBTP50Ms, &c.TBTP90Ms, &c.TBTP99Ms)
	setStats(e2es, &c.E2EMeanMs, &c.E2EP50Ms, &c.E2EP90Ms, &c.E2EP99Ms)
	c.TTFTMs, c.TBTMs = c.TTFTP50Ms, c.TBTP50Ms
	if c.TBTMs != nil && *c.TBTMs > 0 {
		c.PerRequestTokS = schema.F64(1000 / *c.TBTMs)
	}
	if len(genRates) > 0 {
		var s float64
		for _, x := range genRates {
			s += x
		}
		// The tool's "Average generation throughput (per request)".
		c.Extra = append(c.Extra, schema.Metric{Name: "request_generation_tok_s_mean", Value: s / float64(len(genRates))})
	}
	if silent > 0 {
		c.Extra = append(c.Extra, schema.Metric{Name: "requests_without_tokens", Value: float64(silent)})
	}
	m.Measurements = []schema.Measurement{c}
	for i, q := range reqs {
		s := schema.Sample{
			Phase: schema.PhaseServe, ContextLabel: c.ContextLabel, Request: int64(i),
			StartMs: 1000 * (q.launch - start), PromptTokens: int64(q.prompt), OutputTokens: int64(q.gen), InWindow: true,
		}
		if q.ttft > 0 || q.genTime > 0 {
			s.TTFTMs = schema.F64(1000 * q.ttft)
		}
		if q.gen > 1 && q.genTime > 0 {
			s.TBTMs = schema.F64(1000 * q.genTime / (q.gen - 1))
			s.DecodeTokS = schema.F64((q.gen - 1) / q.genTime)
		}
		m.Samples = append(m.Samples, s)
	}
	addField(run, "Requests", "users", strconv.Itoa(countDistinct(reqs, func(q lmbenchRequest) string { return q.user })))
	return m, nil
}

// countDistinct counts the distinct keys of xs.
func countDistinct[T any](xs []T, key func(T) string) int {
	seen := map[string]bool{}
	for _, x := range xs {
		seen[key(x)] = true
	}
	return len(seen)
}

// numpyQuantile is numpy's default (linear) percentile of sorted xs.
func numpyQuantile(sorted []float64, q float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	h := q * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
