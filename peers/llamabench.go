package peers

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// FormatLlamaBench is llama.cpp's llama-bench output in any of its forms:
// the Markdown table (-o md, the default, also inside a console log),
// -o csv, -o json, -o jsonl and -o sql.
const FormatLlamaBench = "llama-bench"

// llamaBenchReader recognises each output form of llama-bench: the
// Markdown table by its header (model … test | t/s), the CSV by its
// first header names, the SQL by its CREATE TABLE of the test fields,
// and the JSON (array or lines) by the keys every test object carries.
var llamaBenchReader = reader{
	format: FormatLlamaBench,
	parse:  parseLlamaBench,
	shapes: []shape{
		{rank: 60, text: looksLlamaBenchCSV},
		{rank: 61, text: looksLlamaBenchSQL},
		{rank: 62, text: looksLlamaBenchMarkdown},
		{rank: 95, keys: signature{all: []string{"build_commit", "n_prompt", "n_gen"}, any: []string{"avg_ts", "samples_ts"}}},
	},
}

// parseLlamaBench reads any form of llama-bench's output into runs.
func parseLlamaBench(b []byte, name string) ([]*schema.Matrix, error) {
	t := trimLead(b)
	var tests []llamaTest
	var err error
	switch {
	case looksLlamaBenchCSV(t):
		tests, err = llamaBenchCSV(b, name)
	case looksLlamaBenchSQL(t):
		tests, err = llamaBenchSQL(b, name)
	case len(t) > 0 && (t[0] == '[' || t[0] == '{'):
		tests, err = llamaBenchJSON(b, name)
	default:
		return llamaBenchMarkdown(b, name)
	}
	if err != nil {
		return nil, err
	}
	return llamaBenchRuns(tests, name, "")
}

// trimLead drops a byte-order mark and leading blanks.
func trimLead(b []byte) []byte {
	for len(b) > 0 {
		switch {
		case b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n':
			b = b[1:]
		case len(b) >= 3 && string(b[:3]) == "\ufeff":
			b = b[3:]
		default:
			return b
		}
	}
	return b
}

// llamaTest is one result of llama-bench (one test: a pp, tg or pg run
// at a depth, repeated -r times), from any output form.
type llamaTest struct {
	line int
	// fields are the test's fields as printed, in order (machine forms:
	// the field names; Markdown: the column headers).
	fields []schema.KV
	// Parsed from the fields.
	nPrompt, nGen, nDepth int64
	avgTS, stddevTS       *float64
	avgNS, stddevNS       *float64
	samplesTS, samplesNS  []float64
	// printedTS is the Markdown t/s cell ("7340.20 ± 23.45").
	printedTS, printedTest string
	// extra are figures of the row that are not settings (llama-benchy's
	// latencies), already named with their unit.
	extra []schema.Metric
	// tool names who wrote the test ("llama-bench", "llama-benchy").
	tool string
	// conc is llama-benchy's concurrency when its test names one ("(c4)").
	conc int32
	// reqTS and reqSamplesTS are llama-benchy's tokens per second of one
	// request at a concurrency above 1 (t/s (req)); t/s is then the total.
	reqTS        *float64
	reqSamplesTS []float64
	// ttftSamples are llama-benchy's e2e_ttft of each run (ms), beside
	// samplesTS.
	ttftSamples []float64
	// build is the build line that follows a Markdown table.
	buildCommit, buildNumber string
	// gpus are GPU names a console log printed above the table.
	gpus []string
}

// get returns a field's text, or "".
func (t *llamaTest) get(k string) string {
	for _, f := range t.fields {
		if f.Key == k {
			return f.Value
		}
	}
	return ""
}

// llamaPerTest are the fields that describe one test rather than the
// configuration it ran under: they never split runs.
var llamaPerTest = map[string]bool{
	"n_prompt": true, "n_gen": true, "n_depth": true, "test_time": true, "avg_ns": true, "stddev_ns": true,
	"avg_ts": true, "stddev_ts": true, "samples_ns": true, "samples_ts": true,
	// Markdown columns.
	"test": true, "t/s": true, "t/s (total)": true,
}

// llamaRunMeta maps the fields that go to their own column or section.
var llamaSections = map[string]string{
	"build_commit": "Engine", "build_number": "Engine", "backends": "Engine", "backend": "Engine",
	"cpu_info": "Hardware", "gpu_info": "Hardware",
	"model_filename": "Model", "model_type": "Model", "model_size": "Model", "model_n_params": "Model",
	"model": "Model", "size": "Model", "params": "Model",
}

// llamaTestName matches the test column of llama-bench's Markdown
// ("pp512", "pp 512", "tg128 @ d4096", "pp512+tg128", "pg512,128") and
// llama-benchy's ("ctx_pp @ d4096" is its context-loading phase).
var llamaTestName = regexp.MustCompile(`^(pp|tg|pg|ctx_pp|ctx_tg)\s*(\d*)(?:\s*[+,]\s*(?:tg)?\s*(\d+))?(?:\s*@\s*d\s*(\d+))?(?:\s*\(c(\d+)\))?$`)

// parseLlamaTestName reads a Markdown test name into its prompt,
// generation and depth tokens.
func parseLlamaTestName(s string) (kind string, nPrompt, nGen, nDepth int64, ok bool) {
	kind, nPrompt, nGen, nDepth, _, ok = parseLlamaTest(s)
	return
}

// parseLlamaTest is parseLlamaTestName with llama-benchy's concurrency
// suffix ("(c4)"; 0 when none).
func parseLlamaTest(s string) (kind string, nPrompt, nGen, nDepth, conc int64, ok bool) {
	m := llamaTestName.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", 0, 0, 0, 0, false
	}
	atoi := func(x string) int64 { v, _ := strconv.ParseInt(x, 10, 64); return v }
	conc = atoi(m[5])
	kind = m[1]
	switch kind {
	case "pp":
		nPrompt = atoi(m[2])
		if m[3] != "" {
			kind, nGen = "pg", atoi(m[3])
		}
	case "tg":
		nGen = atoi(m[2])
	case "pg":
		nPrompt, nGen = atoi(m[2]), atoi(m[3])
	default:
		return kind, 0, 0, atoi(m[4]), conc, m[2] == "" && m[3] == ""
	}
	if m[2] == "" || conc > math.MaxInt32 {
		return "", 0, 0, 0, 0, false
	}
	return kind, nPrompt, nGen, atoi(m[4]), conc, true
}

// llamaCtxLabel labels a token count as the seed documents do where it is
// a multiple of 1,024 ("4K"), else by the count ("512", "1000").
func llamaCtxLabel(n int64) string {
	if n >= 1024 && n%1024 == 0 {
		return strconv.FormatInt(n/1024, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}

// llamaBenchRuns groups tests into runs: one per build, model file and
// configuration (every field that is not the test's own).
func llamaBenchRuns(tests []llamaTest, name, _ string) ([]*schema.Matrix, error) {
	if len(tests) == 0 {
		return nil, errorf(name, 1, "llama-bench output with no test results")
	}
	var order []string
	groups := map[string][]int{}
	for i := range tests {
		t := &tests[i]
		var key strings.Builder
		key.WriteString(t.tool + "\x00" + t.buildCommit + "\x00" + t.buildNumber + "\x00" + strings.Join(t.gpus, ",") + "\x00")
		for _, f := range t.fields {
			if !llamaPerTest[f.Key] {
				key.WriteString(f.Key + "=" + f.Value + "\x00")
			}
		}
		k := key.String()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var ms []*schema.Matrix
	for _, k := range order {
		m, err := llamaBenchRun(tests, groups[k], name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// llamaBenchRun builds one run from the tests at idx.
func llamaBenchRun(tests []llamaTest, idx []int, name string) (*schema.Matrix, error) {
	first := &tests[idx[0]]
	tool := firstNonEmpty(first.tool, "llama-bench")
	commit := firstNonEmpty(first.get("build_commit"), first.buildCommit)
	number := firstNonEmpty(first.get("build_number"), first.buildNumber)
	m := peerMatrix(tool, "")
	r := &m.Run
	if tool == "llama-bench" {
		r.Engine = "llama.cpp"
		r.EngineCommit = commit
		if number != "" {
			r.EngineVersion = "b" + number // llama.cpp's releases are tagged b<build number>
			r.BenchVersion = r.EngineVersion
		}
	}
	file := first.get("model_filename")
	modelType := firstNonEmpty(first.get("model_type"), first.get("model"))
	r.Model = firstNonEmpty(path.Base(strings.ReplaceAll(file, `\`, "/")), modelType)
	if file == "" {
		r.Model = modelType
	}
	r.ModelID = file
	r.Quantization = llamaQuant(modelType, file)
	backend := firstNonEmpty(first.get("backends"), first.get("backend"))
	r.Backend = strings.ToLower(backend)
	gpuInfo := first.get("gpu_info")
	gpus := first.gpus
	if gpuInfo != "" {
		gpus = strings.Split(gpuInfo, ", ")
	}
	if len(gpus) > 0 {
		r.GPU = gpus[0]
		if !slices.ContainsFunc(gpus, func(g string) bool { return g != gpus[0] }) {
			r.GPUCount = schema.I32(int32(len(gpus)))
		} else {
			r.GPU = strings.Join(gpus, ", ")
		}
	}
	on := firstNonEmpty(r.GPU, first.get("cpu_info"), backend)
	r.Title = tool + ": " + firstNonEmpty(r.Model, "model not recorded")
	if on != "" {
		r.Title += " on " + on
	}
	// The run's fields, in the order the output gives them.
	for i, g := range first.gpus {
		addField(r, "Hardware", fmt.Sprintf("Device %d", i), g)
	}
	if first.buildCommit != "" && first.get("build_commit") == "" {
		addField(r, "Engine", "build", first.buildCommit+" ("+first.buildNumber+")")
	}
	for _, f := range first.fields {
		if llamaPerTest[f.Key] {
			continue
		}
		sec := llamaSections[f.Key]
		if sec == "" {
			sec = "Settings"
		}
		addField(r, sec, f.Key, f.Value)
	}
	if q := llamaQuant("", file); q != "" && q != r.Quantization {
		addField(r, "Model", "quantization in the file name", q)
	}

	gens := map[int64]bool{}
	for _, i := range idx {
		if t := &tests[i]; t.nPrompt == 0 && t.nGen > 0 {
			gens[t.nGen] = true
		}
	}
	var started *time.Time
	for _, i := range idx {
		t := &tests[i]
		if tt, err := time.Parse(time.RFC3339, t.get("test_time")); err == nil {
			if started == nil || tt.Before(*started) {
				tt := tt.UTC()
				started = &tt
			}
		}
		rows, err := llamaRows(t, len(gens) > 1, name)
		if err != nil {
			return nil, err
		}
		if rows == nil { // a pg test: no phase of its own
			label := llamaTestLabel(t)
			if t.avgTS != nil {
				addField(r, "Prompt and generation tests", label+" t/s", strconv.FormatFloat(*t.avgTS, 'f', -1, 64))
			}
			if t.stddevTS != nil {
				addField(r, "Prompt and generation tests", label+" t/s stddev", strconv.FormatFloat(*t.stddevTS, 'f', -1, 64))
			}
			continue
		}
		if tt := t.get("test_time"); tt != "" {
			addField(r, "Test times", llamaTestLabel(t), tt)
		}
		m.Measurements = append(m.Measurements, rows...)
	}
	r.StartedAt = started
	if len(m.Measurements) == 0 {
		return nil, errorf(name, first.line, "%s output with no pp or tg test (only prompt-and-generation tests, which have no phase of their own)", tool)
	}
	if err := checkPeerCells(name, dedupRepeats(m.Measurements)); err != nil {
		return nil, err
	}
	sortMeasurements(m.Measurements)
	return m, nil
}

// dedupRepeats returns the first row of each repeated cell, for the
// duplicate check (repeats share a cell by design).
func dedupRepeats(ms []schema.Measurement) []schema.Measurement {
	var out []schema.Measurement
	for _, m := range ms {
		if m.Repeat == nil || *m.Repeat == 0 {
			out = append(out, m)
		}
	}
	return out
}

// llamaTestLabel names a test as llama-bench's Markdown does.
func llamaTestLabel(t *llamaTest) string {
	if t.printedTest != "" {
		return strings.TrimSpace(t.printedTest)
	}
	var s string
	switch {
	case t.nPrompt > 0 && t.nGen == 0:
		s = fmt.Sprintf("pp%d", t.nPrompt)
	case t.nGen > 0 && t.nPrompt == 0:
		s = fmt.Sprintf("tg%d", t.nGen)
	default:
		s = fmt.Sprintf("pp%d+tg%d", t.nPrompt, t.nGen)
	}
	if t.nDepth > 0 {
		s += fmt.Sprintf(" @ d%d", t.nDepth)
	}
	return s
}

// llamaRows turns one test into its cells: a prefill cell for pp<N> (at
// depth d: "N @ dD"), a decode cell at concurrency 1 for tg<N> whose
// context is the depth; one row per repetition when the output lists
// them (samples_ts), else one row of the mean. nil for a pg test.
func llamaRows(t *llamaTest, manyGens bool, name string) ([]schema.Measurement, error) {
	var base schema.Measurement
	base.Concurrency = schema.I32(max(1, t.conc))
	base.Status = schema.StatusValid
	base.SourceLine = int64(t.line)
	switch {
	case t.nPrompt > 0 && t.nGen == 0:
		base.Phase = schema.PhasePrefill
		base.ContextLabel = llamaCtxLabel(t.nPrompt)
		if t.nDepth > 0 {
			base.ContextLabel += " @ d" + llamaCtxLabel(t.nDepth)
		}
		base.ContextTokens = schema.I64(t.nPrompt + t.nDepth)
		base.PromptTokens = schema.I64(t.nPrompt)
	case t.nGen > 0 && t.nPrompt == 0:
		base.Phase = schema.PhaseDecode
		base.ContextLabel = llamaCtxLabel(t.nDepth)
		if manyGens {
			base.ContextLabel += fmt.Sprintf(" tg%d", t.nGen)
		}
		base.ContextTokens = schema.I64(t.nDepth)
		base.OutputTokens = schema.I64(t.nGen)
	case t.nPrompt > 0 && t.nGen > 0:
		return nil, nil
	default:
		return nil, errorf(name, t.line, "a test with neither prompt nor generated tokens (n_prompt %d, n_gen %d)", t.nPrompt, t.nGen)
	}
	if t.printedTest != "" {
		base.Printed = append(base.Printed, schema.KV{Key: "test", Value: t.printedTest})
	}
	if t.printedTS != "" {
		base.Printed = append(base.Printed, schema.KV{Key: "t/s", Value: t.printedTS})
	}
	add := func(row *schema.Measurement, name string, p *float64, k float64) {
		if p != nil {
			row.Extra = append(row.Extra, schema.Metric{Name: name, Value: *p * k})
		}
	}
	fill := func(row *schema.Measurement, ts float64, i int) {
		row.TotalTokS = schema.F64(ts)
		if ts <= 0 {
			return
		}
		// One request's rate: the total at concurrency 1, else
		// llama-benchy's per-request figure when it gave one.
		per := &ts
		if t.conc > 1 {
			per = t.reqTS
			if i >= 0 && i < len(t.reqSamplesTS) {
				per = &t.reqSamplesTS[i]
			}
		}
		if row.Phase == schema.PhasePrefill {
			// llama-benchy measured the time to first token; llama-bench's
			// is the prompt's tokens at the rate measured.
			row.TTFTMs = schema.F64(1000 * float64(t.nPrompt) / ts)
			for _, e := range t.extra {
				if e.Name == "e2e_ttft_ms_mean" {
					row.TTFTMs = schema.F64(e.Value)
				}
			}
			if i >= 0 && i < len(t.ttftSamples) {
				row.TTFTMs = schema.F64(t.ttftSamples[i])
			}
		} else if per != nil && *per > 0 {
			row.PerRequestTokS = schema.F64(*per)
			row.TBTMs = schema.F64(1000 / *per)
		}
	}
	stats := func(row *schema.Measurement) {
		add(row, "tok_s_mean", t.avgTS, 1)
		add(row, "tok_s_stddev", t.stddevTS, 1)
		add(row, "test_ms_mean", t.avgNS, 1e-6)
		add(row, "test_ms_stddev", t.stddevNS, 1e-6)
		row.Extra = append(row.Extra, t.extra...)
	}
	if len(t.samplesTS) > 0 {
		if len(t.samplesNS) > 0 && len(t.samplesNS) != len(t.samplesTS) {
			return nil, errorf(name, t.line, "samples_ns has %d repetitions, samples_ts %d", len(t.samplesNS), len(t.samplesTS))
		}
		rows := make([]schema.Measurement, len(t.samplesTS))
		for i, ts := range t.samplesTS {
			row := base
			row.Printed = slices.Clone(base.Printed)
			if len(t.samplesTS) > 1 {
				row.Repeat = schema.I32(int32(i))
			}
			fill(&row, ts, i)
			if len(t.samplesNS) > 0 {
				row.MeasuredS = schema.F64(t.samplesNS[i] / 1e9)
				row.Extra = append(row.Extra, schema.Metric{Name: "test_ms", Value: t.samplesNS[i] / 1e6})
			}
			stats(&row)
			rows[i] = row
		}
		return rows, nil
	}
	if t.avgTS == nil {
		return nil, errorf(name, t.line, "test %s has no tokens per second", llamaTestLabel(t))
	}
	row := base
	fill(&row, *t.avgTS, -1)
	if t.avgNS != nil {
		row.MeasuredS = schema.F64(*t.avgNS / 1e9)
	}
	add(&row, "tok_s_stddev", t.stddevTS, 1)
	add(&row, "test_ms_mean", t.avgNS, 1e-6)
	add(&row, "test_ms_stddev", t.stddevNS, 1e-6)
	row.Extra = append(row.Extra, t.extra...)
	return []schema.Measurement{row}, nil
}

// llamaFtype maps the file-type names llama.cpp prints in a model's
// description ("qwen2 7B Q4_K - Medium") to the names its quantized files
// carry (Q4_K_M).
var llamaFtype = regexp.MustCompile(`(?i)\b(?:mostly\s+)?((?:I?Q\d+_[A-Z0-9]+|Q\d+_\d|TQ\d_\d|MXFP4|NVFP4|BF16|F16|F32))(?:\s*-\s*(Small|Medium|Large|[\d.]+ bpw[^,]*))?`)

// llamaFileQuant matches a quantization in a GGUF file name.
var llamaFileQuant = regexp.MustCompile(`(?i)(?:^|[-_.])((?:UD-)?(?:I?Q\d+_[A-Z0-9]+(?:_[SMLX]{1,2})?|Q\d+_\d|TQ\d_\d|MXFP4(?:_MOE)?|NVFP4|BF16|F16|F32))(?:[-_.]|$)`)

// llamaQuant returns the weights' quantization: from the model's
// description when it names a file type, else from the file name.
func llamaQuant(modelType, file string) string {
	if m := llamaFtype.FindStringSubmatch(modelType); m != nil {
		q := strings.ToUpper(m[1])
		switch strings.ToLower(m[2]) {
		case "small":
			q += "_S"
		case "medium":
			q += "_M"
		case "large":
			q += "_L"
		}
		return q
	}
	if m := llamaFileQuant.FindStringSubmatch(path.Base(strings.ReplaceAll(file, `\`, "/"))); m != nil {
		return strings.ToUpper(m[1])
	}
	return ""
}

// llamaFloat parses a number as printed, nil when it is none.
func llamaFloat(s string) *float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) {
		return nil
	}
	return &v
}

// llamaInt parses a count as printed, 0 when it is none.
func llamaInt(s string) (int64, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return v, err == nil
}

// fromFields fills a machine-form test's parsed figures from its fields.
func (t *llamaTest) fromFields(name string) error {
	var ok bool
	for _, k := range []string{"n_prompt", "n_gen"} {
		if t.get(k) == "" {
			return errorf(name, t.line, "llama-bench result without %s", k)
		}
	}
	if t.nPrompt, ok = llamaInt(t.get("n_prompt")); !ok {
		return errorf(name, t.line, "n_prompt %q is not a count", t.get("n_prompt"))
	}
	if t.nGen, ok = llamaInt(t.get("n_gen")); !ok {
		return errorf(name, t.line, "n_gen %q is not a count", t.get("n_gen"))
	}
	if d := t.get("n_depth"); d != "" {
		if t.nDepth, ok = llamaInt(d); !ok {
			return errorf(name, t.line, "n_depth %q is not a count", d)
		}
	}
	if t.nPrompt < 0 || t.nGen < 0 || t.nDepth < 0 {
		return errorf(name, t.line, "negative token counts (n_prompt %d, n_gen %d, n_depth %d)", t.nPrompt, t.nGen, t.nDepth)
	}
	t.avgTS, t.stddevTS = llamaFloat(t.get("avg_ts")), llamaFloat(t.get("stddev_ts"))
	t.avgNS, t.stddevNS = llamaFloat(t.get("avg_ns")), llamaFloat(t.get("stddev_ns"))
	return nil
}
