package peers

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

// peerFixtures lists every result file of another tool under
// parse/testdata/peers (bad ones excluded).
func peerFixtures(t *testing.T) []string {
	t.Helper()
	var out []string
	dirs, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "bad" {
			continue
		}
		ps, _ := filepath.Glob(filepath.Join(fixtures, d.Name(), "*"))
		out = append(out, ps...)
	}
	if len(out) < 30 {
		t.Fatalf("only %d fixtures", len(out))
	}
	return out
}

// storedNumbers returns every number a parse stored: the numeric columns
// of runs and cells and the extra figures.
func storedNumbers(ms []*schema.Matrix) []float64 {
	var out []float64
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			if t, ok := v.Interface().(time.Time); ok {
				out = append(out, float64(t.Unix()))
				return
			}
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Float64:
			out = append(out, v.Float())
		case reflect.Int64, reflect.Int32:
			out = append(out, float64(v.Int()))
		case reflect.String:
			if f, err := strconv.ParseFloat(v.String(), 64); err == nil {
				out = append(out, f)
			}
		}
	}
	for _, m := range ms {
		walk(reflect.ValueOf(m).Elem())
	}
	return out
}

// keptAs reports whether the source number v is among stored, as is, in
// another unit (s ↔ ms, ns → ms, µs → ms) or rounded to a count.
func keptAs(v float64, stored []float64) bool {
	for _, s := range stored {
		// s ↔ ms, µs → ms, ns → ms, per minute → per second.
		for _, k := range []float64{1, 1000, 1e-3, 1e-6, 1.0 / 60} {
			if math.Abs(s-v*k) <= 1e-9*math.Max(1, math.Abs(v*k)) {
				return true
			}
		}
		if s == math.Round(v) && math.Abs(v) >= 1 {
			return true
		}
	}
	return false
}

// notFigures are the parts of the tools' files that hold configuration,
// per-request lists or repeats rather than measured figures, by path
// (keys joined with "/", array elements as "*"). What each reader keeps of
// a guidellm distribution is documented in guidellmKept; AIPerf's GPU
// telemetry keeps each GPU's average.
var notFigures = regexp.MustCompile(`(^|/)(input_lens|output_lens|ttfts|itls|start_times|errors|generated_texts|request_samples|requests|individual_request_metrics|input_config|server_info|error_summary|summary_table|target_launch_config|scheduler_state|scheduler_metrics|worker|run_stats|pdf)(/|$)` +
	`|^(metadata|args|config|system|run_info)(/|$)` + // run configuration (read where it names the run)
	`|^benchmarks/\*/(config|args|start_time|end_time|warmup_duration|cooldown_duration|warmup_number|cooldown_number)(/|$)` +
	`|^benchmarks/\*/metrics/.+/(errored|incomplete|total)/` +
	`|^benchmarks/\*/metrics/.+/successful/(mode|variance|count|total_sum|percentiles/p(001|01|05|10|25|50|75))$` +
	`|^telemetry_data/.*/(min|max|std|p[0-9]+|sum|count)$`)

// sourceNumbers returns the numbers of a fixture that are figures, by
// path.
func sourceNumbers(t *testing.T, path string, b []byte) map[string]float64 {
	out := map[string]float64{}
	if f, _ := Detect(b); f == FormatLlamaBench || f == FormatLlamaBenchy {
		return llamaSourceNumbers(t, path, b) // llamabench_test.go
	}
	if looksVLLMSweepCSV(b) { // vllm bench sweep's summary.csv: its JSON
		j, err := vllmSweepCSVToJSON(path, b)
		if err != nil {
			t.Fatal(err)
		}
		b, path = j, path+".json"
	}
	if strings.HasSuffix(path, ".csv") {
		r := csv.NewReader(bytes.NewReader(b))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var header []string
		for i, rec := range recs {
			if len(rec) > 0 && (rec[0] == "Metric" || slices.Contains(rec, "Metric")) {
				header = rec
				continue
			}
			telemetry := slices.Contains(header, "GPU_Index")
			for j, cell := range rec {
				if j >= len(header) || telemetry && header[j] != "avg" {
					continue
				}
				if v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(cell), ",", ""), 64); err == nil {
					out[strconv.Itoa(i+1)+":"+header[j]+":"+rec[0]] = v
				}
			}
		}
		return out
	}
	if strings.HasSuffix(path, ".yaml") { // guidellm's YAML report: its JSON
		j, err := yamlToJSON(path, b)
		if err != nil {
			t.Fatal(err)
		}
		b = j
	}
	lines := [][]byte{sanitizeJSON(b)}
	if strings.HasSuffix(path, ".jsonl") {
		lines, _ = jsonLines(lines[0])
	}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		if notFigures.MatchString(strings.TrimPrefix(p, "/")) {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(p+"/"+k, c)
			}
		case []any:
			for _, c := range x {
				walk(p+"/*", c)
			}
		case json.Number:
			if f, err := x.Float64(); err == nil {
				out[p] = f
			}
		}
	}
	for _, l := range lines {
		dec := json.NewDecoder(bytes.NewReader(l))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if obj, ok := v.(map[string]any); ok { // inference-benchmarker's warm-up is no measurement
			if rs, ok := obj["results"].([]any); ok {
				obj["results"] = slices.DeleteFunc(rs, func(r any) bool {
					o, _ := r.(map[string]any)
					return o != nil && o["id"] == "warmup"
				})
			}
		}
		if arr, ok := v.([]any); ok { // a sweep: one result per element
			for _, e := range arr {
				walk("", e)
			}
			continue
		}
		walk("", v)
	}
	return out
}

// TestPeerNothingDropped checks, for every fixture of every reader, that
// each number the file reports as a figure lands in a column or in extra
// (in its unit or converted to milliseconds, counts rounded). A figure of
// 0 may be stored as null (the tools print 0 for latencies they did not
// measure), so zeros are not required.
func TestPeerNothingDropped(t *testing.T) {
	for _, path := range peerFixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			stored := storedNumbers(mustReadAll(t, path))
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var missing []string
			src := sourceNumbers(t, path, b)
			for _, p := range slices.Sorted(maps.Keys(src)) {
				v := src[p]
				if v == 0 || math.IsInf(v, 0) && slices.Contains(stored, v) {
					continue
				}
				if strings.HasSuffix(p, "/aggregate_tps") && v < 0 {
					continue // llm_decode_bench's sentinels are statuses
				}
				if !keptAs(v, stored) {
					missing = append(missing, p+"="+strconv.FormatFloat(v, 'g', -1, 64))
				}
			}
			if len(missing) > 0 {
				t.Errorf("%d figures of the file are in no column and not in extra: %s", len(missing), strings.Join(missing, ", "))
			}
		})
	}
}

// durationName matches the names of figures that are durations.
var durationName = regexp.MustCompile(`(^|_)(ttft|ttfc|tpot|tbt|itl|e2e|e2el|latency|gap|duration|wall_time|time_to|ttst|waiting|blocked|connecting|sending|receiving|lookup|overhead)(_|$)`)

// rateName matches the names of figures that are rates or shares although
// they name a duration family (llm_decode_bench's e2e_output_tps_per_user,
// inference-perf's ttft_attainment_percentage).
var rateName = regexp.MustCompile(`(^|_)(tps|tok_s|throughput|percentage|pct)(_|$)`)

// dimensionless matches statistics that have no unit whatever they
// describe: a coefficient of variation and a t-distribution critical
// value (AIPerf's aggregates across runs).
var dimensionless = regexp.MustCompile(`_(cv|t_critical)$`)

// unitName matches a unit word in a figure's name.
var unitName = regexp.MustCompile(`(^|_)(ms|s|sec|seconds|us|ns)(_|$)`)

// TestPeerDurationsHaveUnits checks that no extra figure that is a
// duration is stored without its unit in its name, in any fixture.
func TestPeerDurationsHaveUnits(t *testing.T) {
	for _, path := range peerFixtures(t) {
		for _, m := range mustReadAll(t, path) {
			for _, c := range m.Measurements {
				for _, e := range c.Extra {
					if durationName.MatchString(e.Name) && !rateName.MatchString(e.Name) && !unitName.MatchString(e.Name) && !strings.HasSuffix(e.Name, "_count") && !dimensionless.MatchString(e.Name) {
						t.Errorf("%s: extra %s = %g is a duration without a unit", filepath.Base(path), e.Name, e.Value)
					}
					if rateName.MatchString(e.Name) && unitName.MatchString(e.Name) && durationName.MatchString(e.Name) && !strings.Contains(e.Name, "per_token") {
						t.Errorf("%s: extra %s = %g is a rate named as a duration", filepath.Base(path), e.Name, e.Value)
					}
				}
			}
		}
	}
}
