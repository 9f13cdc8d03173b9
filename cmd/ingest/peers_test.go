package ingestcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"speedmatrix/internal/testtool"
)

// peerPaths returns every result file of another tool in the parse
// fixtures (real files and written ones), bad ones excluded.
func peerPaths(t testing.TB) []string {
	t.Helper()
	root := filepath.Join(testtool.RepoRoot(t), "parse", "testdata", "peers")
	var out []string
	for _, dir := range []string{"llm-inference-bench", "vllm", "sglang", "guidellm", "aiperf", "genai-perf", "llmperf", "genai-bench", "inference-perf", "hf-inference-benchmarker"} {
		ps, err := filepath.Glob(filepath.Join(root, dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ps...)
	}
	sort.Strings(out)
	if len(out) < 12 {
		t.Fatalf("found only %d peer fixtures under %s", len(out), root)
	}
	return out
}

// TestIngestPeerFiles ingests other tools' result files beside the seeds
// into one archive, re-ingests them as duplicates, and reads the serve
// rows back with DuckDB, +Inf request rates and extra figures included.
func TestIngestPeerFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	paths := append(peerPaths(t), testtool.SeedPaths(t)...)
	code, out, errOut := runIngest(t, "", append([]string{"-archive", dir}, paths...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	// A line per run: four files hold two runs each (vLLM results of two
	// --metadata deployments and of two --serve-params combinations, the
	// same sweep's summary.csv, SGLang results of two output lengths).
	ls := lines(t, out)
	if len(ls) != len(paths)+4 {
		t.Fatalf("%d lines for %d files, want %d:\n%s", len(ls), len(paths), len(paths)+4, out)
	}
	// Three runs come again from another export of a run already read
	// (guidellm's YAML report, the vLLM sweep's summary.csv): the same
	// run, a duplicate.
	added := map[string]bool{}
	dups := 0
	for _, l := range ls {
		switch {
		case l.outcome == "added":
			added[l.id] = true
		case l.outcome == "duplicate" && added[l.id]:
			dups++
		default:
			t.Errorf("%s: %s, want added (or a duplicate of a run added before)", l.title, l.outcome)
		}
	}
	if dups != 3 {
		t.Errorf("%d duplicates, want the 3 runs of the YAML and CSV exports", dups)
	}
	before := treeHash(t, dir)
	code, out, _ = runIngest(t, "", append([]string{"-archive", dir}, paths...)...)
	if code != 0 {
		t.Fatalf("re-ingest exit %d", code)
	}
	for _, l := range lines(t, out) {
		if l.outcome != "duplicate" {
			t.Errorf("re-ingest %s: %s, want duplicate", l.title, l.outcome)
		}
	}
	if after := treeHash(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("re-ingesting duplicates changed the archive")
	}

	runs := fmt.Sprintf("read_parquet('%s/runs/**/*.parquet', union_by_name=true)", dir)
	meas := fmt.Sprintf("read_parquet('%s/measurements/**/*.parquet', union_by_name=true)", dir)
	tests := []struct{ name, sql, want string }{
		{"serve cells per tool",
			`SELECT r.source_format, count(*) AS n FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id)
			 WHERE m.phase = 'serve' GROUP BY ALL ORDER BY ALL`,
			`[{"source_format":"aiperf","n":"12"},{"source_format":"aiperf-csv","n":"5"},{"source_format":"genai-bench","n":"3"},{"source_format":"genai-perf","n":"4"},{"source_format":"genai-perf-csv","n":"1"},` +
				`{"source_format":"guidellm","n":"4"},{"source_format":"hf-inference-benchmarker","n":"4"},{"source_format":"inference-perf","n":"8"},{"source_format":"llmperf","n":"5"},{"source_format":"sglang-bench-serving","n":"14"},{"source_format":"vllm-bench-serve","n":"26"}]`},
		{"repeats numbered, a benchmark with nothing completed is an error without figures",
			`SELECT m.status, m.repeat, m.completed_requests, m.ttft_ms, m.total_tok_s FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id)
			 WHERE r.source_format = 'vllm-bench-serve' AND (m.status <> 'valid' OR m.repeat IS NOT NULL) ORDER BY ALL`,
			`[{"status":"error","repeat":null,"completed_requests":"0","ttft_ms":null,"total_tok_s":null},` +
				`{"status":"valid","repeat":0,"completed_requests":"100","ttft_ms":20.5,"total_tok_s":610.5},` +
				`{"status":"valid","repeat":1,"completed_requests":"100","ttft_ms":21.25,"total_tok_s":598.25}]`},
		{"unbounded request rate is +Inf",
			`SELECT m.request_rate = 'infinity'::DOUBLE AS inf, m.concurrency, round(m.tbt_ms, 3) AS tbt_ms,
			 round([e.value FOR e IN m.extra IF e.name = 'p99_9_ttft_ms'][1], 3) AS ttft_p999
			 FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id) WHERE r.model = 'gpt-oss-120b'`,
			`[{"inf":true,"concurrency":16,"tbt_ms":9.039,"ttft_p999":698.208}]`},
		{"energy of AIPerf's GPU telemetry",
			`SELECT r.gpu_count, r.power_source, round(m.energy_j, 3) AS energy_j, round(m.avg_power_w, 3) AS avg_power_w,
			 round(m.output_tok_per_j, 6) AS output_tok_per_j FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id)
			 WHERE r.source_format = 'aiperf' AND m.energy_j IS NOT NULL`,
			`[{"gpu_count":1,"power_source":"aiperf gpu telemetry","energy_j":26114.932,"avg_power_w":102.187,"output_tok_per_j":0.490103}]`},
		{"seconds became milliseconds",
			`SELECT round(m.ttft_ms, 2) AS ttft_ms, m.tbt_ms IS NULL AS no_tbt FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id)
			 WHERE r.source_format = 'llmperf' ORDER BY ttft_ms`,
			`[{"ttft_ms":196.07,"no_tbt":true},{"ttft_ms":209.54,"no_tbt":true},{"ttft_ms":221.89,"no_tbt":true},{"ttft_ms":387.72,"no_tbt":true},{"ttft_ms":1187.99,"no_tbt":true}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := duckdb(t, tt.sql); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestBadPeerFiles checks that malformed or unknown result files are
// errors naming the file and line, exit 1, and leave the archive as it was.
func TestBadPeerFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	if code, _, e := runIngest(t, "", "-archive", dir, testtool.SeedPaths(t)[0]); code != 0 {
		t.Fatal(e)
	}
	before := treeHash(t, dir)
	bad, err := filepath.Glob(filepath.Join(testtool.RepoRoot(t), "parse", "testdata", "peers", "bad", "*"))
	if err != nil || len(bad) == 0 {
		t.Fatalf("no bad fixtures: %v", err)
	}
	for _, p := range bad {
		code, _, errOut := runIngest(t, "", "-archive", dir, p)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", p, code)
		}
		if !strings.Contains(errOut, p+":") {
			t.Errorf("%s: error does not name the file: %s", p, errOut)
		}
	}
	if after := treeHash(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("bad files changed the archive")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
