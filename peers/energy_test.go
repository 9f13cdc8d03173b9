package peers

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// null marks a column a case wants null.
var null = math.NaN()

// energyCase is a fixture's GPU count and the energy columns of one of its
// cells, read by hand from the file (the comment of each case shows the
// arithmetic), with the run's power source and a warning it must carry.
type energyCase struct {
	file                   string
	run, cell              int
	gpus                   int32 // 0: null
	energyJ, powerW, tokPJ float64
	source, warning        string
}

// checkEnergy compares a run's GPU count and a cell's energy columns
// with a case.
func checkEnergy(t *testing.T, m *schema.Matrix, tt energyCase) {
	t.Helper()
	r := m.Run
	if (tt.gpus == 0) != (r.GPUCount == nil) || r.GPUCount != nil && *r.GPUCount != tt.gpus {
		t.Errorf("gpu_count %s, want %d", itoa32(r.GPUCount), tt.gpus)
	}
	c := m.Measurements[tt.cell]
	for _, f := range []struct {
		name string
		got  *float64
		want float64
	}{{"energy_j", c.EnergyJ, tt.energyJ}, {"avg_power_w", c.AvgPowerW, tt.powerW}, {"output_tok_per_j", c.OutputTokPerJ, tt.tokPJ}} {
		if math.IsNaN(f.want) {
			if f.got != nil {
				t.Errorf("%s %v, want null", f.name, *f.got)
			}
		} else if !near(f.got, f.want) {
			t.Errorf("%s %s, want %v", f.name, js(f.got), f.want)
		}
	}
	if r.PowerSource != tt.source {
		t.Errorf("power_source %q, want %q", r.PowerSource, tt.source)
	}
	var warnings []string
	for _, f := range r.Metadata {
		if f.Section == Warnings {
			warnings = append(warnings, f.Key+": "+f.Value)
		}
	}
	if tt.warning == "" && len(warnings) > 0 {
		t.Errorf("warnings %q, want null", warnings)
	}
	if tt.warning != "" && !strings.Contains(strings.Join(warnings, "\n"), tt.warning) {
		t.Errorf("warnings %q, want one holding %q", warnings, tt.warning)
	}
}

// TestPeerEnergyFiles reads the GPU count and the energy columns of the
// fixtures that record them.
func TestPeerEnergyFiles(t *testing.T) {
	for _, tt := range []energyCase{
		// Real (AIPerf's plot test data): one RTX 6000 Ada scraped by two
		// DCGM exporters (localhost:9400 and :9402, one UUID), its energy
		// counter sampled from 32.62748095 to 32.653595882000005 MJ:
		// 26,114.932 J over benchmark_duration 255.56017270100003 s =
		// 102.187 W; total_osl 12,799 tokens ÷ 26,114.932 J = 0.49010 tok/J.
		{file: "aiperf/aiperf-plot-qwen-concurrency1-telemetry.json", gpus: 1,
			energyJ: 26114.932000005807, powerW: 26114.932000005807 / 255.56017270100003, tokPJ: 12799 / 26114.932000005807,
			source: "aiperf gpu telemetry", warning: "is listed 2 times (localhost:9400, localhost:9402): counted once"},
		// Made: two GPUs with power only (412.5 + 398.75 W), no energy.
		{file: "aiperf/profile_export_aiperf-v0.10-phases.json", gpus: 2,
			energyJ: null, powerW: 811.25, tokPJ: null, source: "aiperf gpu telemetry"},
		// Made: the CSV's telemetry section, 410.50 + 395.25 W.
		{file: "aiperf/profile_export_aiperf-gpu.csv", gpus: 2,
			energyJ: null, powerW: 805.75, tokPJ: null, source: "aiperf gpu telemetry"},
		// Made: GenAI-Perf's telemetry_stats, gpu0 only, 350.5 W.
		{file: "genai-perf/profile_export_genai_perf-config.json", gpus: 1,
			energyJ: null, powerW: 350.5, tokPJ: null, source: "genai-perf gpu telemetry"},
		// Made: hardware_run_summary.gpu_count 2; the cell's monitor mean
		// 189.4 W × measurement_seconds 30 = 5,682 J; client_output_tokens
		// 2,955 ÷ 5,682 J = 0.52006 tok/J.
		{file: "llm-inference-bench/v0.4.29-run-metadata.json", gpus: 2,
			energyJ: 189.4 * 30, powerW: 189.4, tokPJ: 2955 / (189.4 * 30), source: "llm-inference-bench hardware monitor"},
		// Made: the second cell's 650.75 W × 30 s = 19,522.5 J; total_tokens
		// 19,507 ÷ 19,522.5 J = 0.99921 tok/J.
		{file: "llm-inference-bench/v0.6-cell-keys.json", cell: 1, gpus: 2,
			energyJ: 650.75 * 30, powerW: 650.75, tokPJ: 19507 / (650.75 * 30), source: "llm-inference-bench hardware monitor"},
		// Made: a prefill entry's monitor, 640.25 W; no duration, no energy.
		{file: "llm-inference-bench/v0.6-prefill.json", gpus: 2,
			energyJ: null, powerW: 640.25, tokPJ: null, source: "llm-inference-bench hardware monitor"},
		// Made: behind a prefill/decode router, one prefill server at tp 8
		// and two decode servers at tp 16, dp_size 1 each: 8 + 16 + 16.
		{file: "sglang/disagg-server-info.jsonl", gpus: 40, energyJ: null, powerW: null, tokPJ: null},
		// Made: tp_size 2, dp_size 1, no pp_size (1).
		{file: "sglang/server-info-two-output-lens.jsonl", gpus: 2, energyJ: null, powerW: null, tokPJ: null},
		// Made: tp_size 2 without dp_size: an answer cut short, no count.
		{file: "sglang/trace-replay-output-details.jsonl", energyJ: null, powerW: null, tokPJ: null},
		// Real: SGLang lines without server_info say nothing.
		{file: "sglang/datacrunch-h200-llama33-70b-online.jsonl", energyJ: null, powerW: null, tokPJ: null},
	} {
		t.Run(tt.file, func(t *testing.T) {
			ms := mustReadAll(t, filepath.Join(fixtures, tt.file))
			checkEnergy(t, ms[tt.run], tt)
		})
	}
}

// TestPeerEnergyRefused checks that a figure in no energy unit, or one
// whose mean power per GPU no GPU draws, is refused into a warning and
// stored nowhere, the other columns kept; the real AIPerf file edited.
func TestPeerEnergyRefused(t *testing.T) {
	real, err := os.ReadFile(filepath.Join(fixtures, "aiperf/aiperf-plot-qwen-concurrency1-telemetry.json"))
	if err != nil {
		t.Fatal(err)
	}
	phases, err := os.ReadFile(filepath.Join(fixtures, "aiperf/profile_export_aiperf-v0.10-phases.json"))
	if err != nil {
		t.Fatal(err)
	}
	energy := `"unit": "MJ"`
	if strings.Count(string(real), energy) != 2 {
		t.Fatalf("the real file has %d %s, want 2", strings.Count(string(real), energy), energy)
	}
	for _, tt := range []struct {
		name, text string
		want       energyCase
	}{
		// mJ for MJ: 26,114.932 J becomes 0.026 J, 0.0001 W: no GPU.
		{"MJ read as mJ", strings.ReplaceAll(string(real), energy, `"unit": "mJ"`), energyCase{gpus: 1,
			energyJ: null, powerW: null, tokPJ: null, warning: "W per GPU is not between 1 and 2000 W"}},
		{"no unit", strings.ReplaceAll(string(real), energy, `"unit": ""`), energyCase{gpus: 1,
			energyJ: null, powerW: null, tokPJ: null, warning: `energy_consumption in unit "" refused`}},
		// kWh: 0.026 × 3.6e6 J = 94,014 J over 255.6 s = 367.9 W: plausible.
		{"kWh converted", strings.ReplaceAll(string(real), energy, `"unit": "kWh"`), energyCase{gpus: 1,
			energyJ: 26114.932000005807 * 3.6, powerW: 26114.932000005807 * 3.6 / 255.56017270100003, tokPJ: 12799 / (26114.932000005807 * 3.6),
			source: "aiperf gpu telemetry", warning: "listed 2 times"}},
		// 4,125 W per GPU (kW read as W, ×10): refused.
		{"power above 2 kW", strings.Replace(string(phases), `"avg": 412.5`, `"avg": 4125`, 1), energyCase{gpus: 2,
			energyJ: null, powerW: null, tokPJ: null, warning: "gpu_power_usage 4523.75 W of 2 GPU(s) refused"}},
		// AIPerf 2026's total: negative (a counter reset) refused.
		{"negative total", strings.Replace(string(real), `"benchmark_duration"`, `"total_gpu_energy": {"unit": "J", "avg": -5.0}, "benchmark_duration"`, 1), energyCase{gpus: 1,
			energyJ: null, powerW: null, tokPJ: null, warning: "total_gpu_energy -5 J refused"}},
		// AIPerf 2026's total wins over the per-GPU counters, in J.
		{"total_gpu_energy", strings.Replace(string(real), `"benchmark_duration"`, `"total_gpu_energy": {"unit": "J", "avg": 25000.5}, "benchmark_duration"`, 1), energyCase{gpus: 1,
			energyJ: 25000.5, powerW: 25000.5 / 255.56017270100003, tokPJ: 12799 / 25000.5, source: "aiperf gpu telemetry", warning: "listed 2 times"}},
		// AIPerf since #596: a counter block of one value, the increase.
		{"counter delta", strings.Replace(string(real), `"energy_consumption": {`, `"energy_consumption": {"unit": "MJ", "avg": 0.03}, "energy_consumption_old": {`, 1), energyCase{gpus: 1,
			energyJ: 30000, powerW: 30000 / 255.56017270100003, tokPJ: 12799.0 / 30000, source: "aiperf gpu telemetry", warning: "listed 2 times"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := readOne([]byte(tt.text), tt.name+".json", "")
			if err != nil {
				t.Fatal(err)
			}
			checkEnergy(t, m, tt.want)
			// The raw figures stay in extra whatever was refused.
			if extra(&m.Measurements[0], "gpu0_gpu_power_usage_w_avg") == nil {
				t.Error("gpu0_gpu_power_usage_w_avg left extra")
			}
		})
	}
}

// TestVLLMSweepGPUCount checks the GPU count of a `vllm bench sweep
// serve` result: tensor × pipeline × data parallel size when the
// combination gives all three, null when it gives tensor parallel alone
// (the base command, not in the file, may set the others).
func TestVLLMSweepGPUCount(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixtures, "vllm/sweep-serve-summary-v0.12.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		sizes map[string]any
		want  int32
	}{
		{"all three", map[string]any{"tensor_parallel_size": 2, "pipeline_parallel_size": 1, "data_parallel_size": 4}, 8},
		{"tensor parallel only", map[string]any{"tensor_parallel_size": 2}, 0},
		{"no size", map[string]any{}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rs []map[string]any
			if err := json.Unmarshal(b, &rs); err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				for k, v := range tt.sizes {
					r[k] = v
				}
			}
			text, _ := json.MarshalIndent(rs, "", "  ")
			ms, err := readAll(text, "sweep.json", "")
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				checkEnergy(t, m, energyCase{gpus: tt.want, energyJ: null, powerW: null, tokPJ: null})
			}
		})
	}
}

// TestParallelGPUs checks the rule every reader's parallel sizes go
// through.
func TestParallelGPUs(t *testing.T) {
	for _, tt := range []struct {
		tp, pp, dp int
		dpInTP     bool
		want       int
	}{
		{4, 1, 1, false, 4}, {2, 2, 2, false, 8}, {8, 1, 8, true, 8}, {8, 2, 8, true, 16}, {0, 1, 1, false, 0}, {4, 1, -1, false, 0},
	} {
		if got := parallelGPUs(tt.tp, tt.pp, tt.dp, tt.dpInTP); got != tt.want {
			t.Errorf("parallelGPUs(%d, %d, %d, %v) = %d, want %d", tt.tp, tt.pp, tt.dp, tt.dpInTP, got, tt.want)
		}
	}
}

// TestTelemetryGPUNames checks that a GPU index two telemetry endpoints
// both list names two figures, not one twice: the real file's GPU 0 as
// scraped by localhost:9400 (129.8854497206704 W) and by :9402
// (129.8930977653631 W); the CSV's telemetry section alike.
func TestTelemetryGPUNames(t *testing.T) {
	m := mustReadOne(t, filepath.Join(fixtures, "aiperf/aiperf-plot-qwen-concurrency1-telemetry.json"))
	c := &m.Measurements[0]
	checkFields(t, []fieldCheck{
		{"first endpoint", extra(c, "gpu0_gpu_power_usage_w_avg"), 129.8854497206704},
		{"second endpoint", extra(c, "endpoint2_gpu0_gpu_power_usage_w_avg"), 129.8930977653631},
	})
	seen := map[string]bool{}
	for _, x := range c.Extra {
		if seen[x.Name] {
			t.Errorf("extra %s written twice", x.Name)
		}
		seen[x.Name] = true
	}
	csv := "Metric,avg\nRequest Throughput (requests/sec),2.5\nOutput Token Throughput (tokens/sec),250\n\n" +
		"Endpoint,GPU_Index,GPU_Name,GPU_UUID,Metric,avg,min,max\n" +
		"node1:9400,0,H100,GPU-a,GPU Power Usage (W),400,100,700\n" +
		"node1:9400,0,H100,GPU-a,Energy Consumption (MJ),1.5,1.25,1.75\n" +
		"node2:9400,0,H100,GPU-b,GPU Power Usage (W),300,100,700\n" +
		"node2:9400,0,H100,GPU-b,Energy Consumption (MJ),2.5,2.25,2.5\n"
	m = parsePeerText(t, "profile_export_aiperf.csv", csv)
	c = &m.Measurements[0]
	checkFields(t, []fieldCheck{
		{"node1", extra(c, "gpu0_gpu_power_usage_w_avg"), 400},
		{"node2", extra(c, "endpoint2_gpu0_gpu_power_usage_w_avg"), 300},
		// Two GPUs (two UUIDs): (1.75 − 1.25) + (2.5 − 2.25) MJ = 750,000 J.
		{"energy of both", c.EnergyJ, 750000},
		{"gpu count", fp(m.Run.GPUCount), 2},
	})
}
