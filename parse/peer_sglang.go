package parse

import (
	"math"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// parseSGLangBench reads SGLang's `python -m sglang.bench_serving` output:
// JSON Lines, one object per benchmark (the file is appended to), which
// may hold the bare literal Infinity for an unbounded request rate.
// Every line becomes one serve cell of one run.
//
// Field mapping: median/mean/p90/p99 _ttft_ms → ttft_*; _tpot_ms → tbt_*
// (per request (e2e − ttft)/(tokens − 1)); _itl_ms (gaps between chunks)
// → chunk_gap_*; _e2e_latency_ms → e2e_*; output_throughput →
// total_tok_s; input_throughput → input_tok_s; max_concurrency →
// concurrency; request_rate (Infinity → +Inf); completed,
// total_input_tokens, total_output_tokens, duration; random_input_len /
// random_output_len and every other number → extra (the context is
// random_input_len for the random dataset, else the mean prompt length); backend,
// dataset_name → run metadata. Older lines carry no model name; the run's
// model is then empty.
func parseSGLangBench(b []byte, name string) (*schema.Matrix, error) {
	objs, err := parseFlatObjects(name, b)
	if err != nil {
		return nil, err
	}
	m := peerMatrix("sglang bench_serving", "")
	m.Run.SourceFormat = FormatSGLangBench
	var datasets []string
	for i, f := range objs {
		model := f.str("model_id")
		if model == "" {
			model = f.str("model")
		}
		if i == 0 {
			m.Run.ModelID = model
			m.Run.Model = modelBase(model)
			title := m.Run.Model
			if title == "" {
				title = "model not recorded"
			}
			m.Run.Title = "SGLang bench_serving: " + title
			addField(&m.Run, "Run", "Backend", f.str("backend"))
		} else if model != m.Run.ModelID {
			return nil, errorf(name, f.line, "results of two models in one file (%q and %q): split the file", m.Run.ModelID, model)
		}
		c, err := sglangCell(name, f)
		if err != nil {
			return nil, err
		}
		if d := f.str("dataset_name"); d != "" && !slices.Contains(datasets, d) {
			datasets = append(datasets, d)
		}
		m.Measurements = append(m.Measurements, c)
	}
	// One file may sweep several datasets (the cells' contexts tell them
	// apart); the run names them all.
	m.Run.Dataset = strings.Join(datasets, ", ")
	addField(&m.Run, "Run", "Dataset", m.Run.Dataset)
	if err := checkPeerCells(name, m.Measurements); err != nil {
		return nil, err
	}
	return m, nil
}

// sglangCell maps one SGLang result line to a serve cell.
func sglangCell(name string, f *flatResult) (schema.Measurement, error) {
	s := startServing(name, f, "e2e_latency")
	c := &s.c
	c.InputTokS = s.get("input_throughput").ptr()
	meanIn := math.NaN()
	if s.inTok.Set && s.completed.Set && s.completed.V > 0 {
		meanIn = s.inTok.V / s.completed.V
		c.PromptTokens = num{V: meanIn, Set: true}.int()
	}
	// Note: the context is the configured input length of a random
	// dataset when there is one, so every line of a rate sweep lands in
	// the same context (their measured means differ by a few tokens);
	// the measured mean stays in prompt_tokens.
	if isl := s.get("random_input_len"); isl.Set && isl.V > 0 && f.str("dataset_name") == "random" {
		metric(c, "random_input_len", isl)
		inputContext(c, isl.V)
	} else {
		inputContext(c, meanIn)
	}
	return s.finish("SGLang", "backend", "dataset_name", "model_id", "model", "tokenizer_id")
}
