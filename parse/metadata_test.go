package parse

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"speedmatrix/schema"
)

func TestMetaSeedRun(t *testing.T) {
	m, err := ParseBytes(readSeed(t, seed000), seed000, "")
	if err != nil {
		t.Fatal(err)
	}
	r := m.Run
	got := map[string]any{
		"title": r.Title, "model": r.Model, "model_id": r.ModelID, "gpu": r.GPU, "vram_gb": *r.VRAMGB,
		"hardware_type": r.HardwareType, "os": r.OS, "engine": r.Engine, "engine_version": r.EngineVersion,
		"quantization": r.Quantization, "backend": r.Backend, "engine_repository": r.EngineRepository, "build": r.Build,
		"engine_commit": r.EngineCommit, "served_model": r.ServedModel, "revision": r.Revision, "bench_tool": r.BenchTool,
		"bench_version": r.BenchVersion, "decode_test": r.DecodeTest, "prefill_mode": r.PrefillMode,
		"measure_seconds": *r.MeasureSeconds, "max_output_tokens": *r.MaxOutputTokens, "tensor_parallel": *r.TensorParallel,
		"max_model_len": *r.MaxModelLen, "gpu_memory_utilization": *r.GPUMemoryUtilization,
	}
	want := map[string]any{
		"title": "Ling-3.0-tiny-int4 on RTX PRO 6000 Blackwell Server Edition 96GB", "model": "Ling-3.0-tiny-int4",
		"model_id": "inclusionAI/Ling-3.0-tiny-int4", "gpu": "RTX PRO 6000 Blackwell Server Edition", "vram_gb": 96.0,
		"hardware_type": "Discrete GPU", "os": "linux", "engine": "vllm", "engine_version": "0.30.1rc1.dev452+g73a583112",
		"quantization": "INT4", "backend": "cuda", "engine_repository": "github.com/vllm-project/vllm", "build": "cuda-13.2",
		"engine_commit": "73a5831127a9", "served_model": "ling", "revision": "main", "bench_tool": "llm-inference-bench",
		"bench_version": "0.7.6", "decode_test": "Fixed duration", "prefill_mode": "Measured during decode warm-up",
		"measure_seconds": 30.0, "max_output_tokens": int64(4096), "tensor_parallel": int32(1),
		"max_model_len": int64(131072), "gpu_memory_utilization": 0.75,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %#v, want %#v", k, got[k], w)
		}
	}
	if len(r.Metadata) != 18 || r.Metadata[17] != (schema.Field{Section: "Run", Key: "Max output", Value: "4,096 tokens"}) {
		t.Errorf("metadata: %d pairs, last %+v", len(r.Metadata), r.Metadata[len(r.Metadata)-1])
	}
	if !strings.Contains(r.LaunchCommand, "--api-key <redacted>") || len(r.LaunchFlags) != 13 {
		t.Errorf("launch %q with %d flags", r.LaunchCommand, len(r.LaunchFlags))
	}
}

func TestMetaFields(t *testing.T) {
	tests := []struct {
		name   string
		title  string
		fields []rawField
		check  map[string]string // column → value (fmt.Sprint of the dereferenced field)
	}{
		{
			name:  "title with GPU count",
			title: "Qwen3-32B on 8× H100 SXM 80GB",
			check: map[string]string{"model": "Qwen3-32B", "gpu": "H100 SXM", "gpu_count": "8", "vram_gb": "80"},
		},
		{
			name:   "title without VRAM, hardware overrides",
			title:  "Llama on Some GPU",
			fields: []rawField{{Section: "Hardware", Key: "GPU", Value: "2x A100"}, {Section: "Hardware", Key: "vram", Value: "1.5 TB"}},
			check:  map[string]string{"model": "Llama", "gpu": "A100", "gpu_count": "2", "vram_gb": "1500"},
		},
		{
			name:  "keys in any case and spacing",
			title: "plain title",
			fields: []rawField{
				{Section: "run", Key: "SERVED MODEL", Value: "x"}, {Section: "Run", Key: "time-per-measurement", Value: "2 min"},
				{Section: "Run", Key: "max output tokens", Value: "512"}, {Section: "Engine", Key: "version", Value: "1.2"},
				{Section: "Run", Key: "Version", Value: "9.9"}, {Section: "Run", Key: "Type", Value: "not hardware"},
				{Section: "Run", Key: "Benchmark tool", Value: "vegeta 12.8.4"}, {Section: "Engine", Key: "Quantization", Value: "FP8"},
			},
			check: map[string]string{"model": "", "served_model": "x", "measure_seconds": "120", "max_output_tokens": "512",
				"engine_version": "1.2", "hardware_type": "", "bench_tool": "vegeta", "bench_version": "12.8.4", "quantization": "FP8"},
		},
		{
			name:   "bench tool without a version",
			fields: []rawField{{Section: "Run", Key: "Benchmark tool", Value: "in-house"}, {Section: "Run", Key: "Time per measurement", Value: "500 ms"}},
			check:  map[string]string{"bench_tool": "in-house", "bench_version": "", "measure_seconds": "0.5"},
		},
		{
			name:  "a measuring run's pairs, keys in any case",
			title: "tiny on Sim GPU 80GB",
			fields: []rawField{
				{Section: "Hardware", Key: "GPU count", Value: "2"},
				{Section: "Run", Key: "Dataset", Value: "neutral prose, tag ab12"}, {Section: "Run", Key: "endpoint", Value: "chat"},
				{Section: "Run", Key: "Server URL", Value: "http://127.0.0.1:8000"}, {Section: "Run", Key: "HOST", Value: "bench-01"},
				{Section: "Run", Key: "Client version", Value: "speedmatrix 0.1.0"},
				{Section: "Run", Key: "Started", Value: "2026-12-02T15:00:00Z"}, {Section: "Run", Key: "Finished", Value: "2026-12-02T15:07:01.5Z"},
				{Section: "Run", Key: "KV budget", Value: "200,000 tokens"},
				{Section: "Server", Key: "Model id", Value: "sim/tiny"}, {Section: "Server", Key: "Tensor parallel", Value: "4"},
				{Section: "Server", Key: "Max model length", Value: "32,768 tokens"}, {Section: "Server", Key: "GPU memory utilization", Value: "0.875"},
			},
			check: map[string]string{"gpu_count": "2", "dataset": "neutral prose, tag ab12", "endpoint": "chat",
				"server_url": "http://127.0.0.1:8000", "host": "bench-01", "client_version": "speedmatrix 0.1.0",
				"started_at": "2026-12-02T15:00:00Z", "finished_at": "2026-12-02T15:07:01.5Z", "kv_budget_tokens": "200000",
				"model_id": "sim/tiny", "model": "tiny", "tensor_parallel": "4", "max_model_len": "32768", "gpu_memory_utilization": "0.875"},
		},
		{
			name: "printed pairs win over the launch command",
			fields: []rawField{
				{Section: "Run", Key: "Launch command", Value: "vllm serve org/m -tp 2 --max-model-len 4096 --gpu-memory-utilization 0.9"},
				{Section: "Server", Key: "Model id", Value: "served-m"}, {Section: "Server", Key: "Max model length", Value: "8,192 tokens"},
			},
			check: map[string]string{"model_id": "served-m", "tensor_parallel": "2", "max_model_len": "8192", "gpu_memory_utilization": "0.9"},
		},
		{
			name:   "launch command given as a pair",
			fields: []rawField{{Section: "Run", Key: "Launch command", Value: "vllm serve org/m -tp 2 --api-key abc"}},
			check:  map[string]string{"model_id": "org/m", "model": "org/m", "tensor_parallel": "2", "launch_command": "vllm serve org/m -tp 2 --api-key <redacted>"},
		},
	}
	for _, tt := range tests {
		var run schema.Run
		if err := buildRun(&rawDoc{Name: "m.txt", Title: tt.title, Fields: tt.fields}, &run); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		b, _ := json.Marshal(run)
		var cols map[string]any
		_ = json.Unmarshal(b, &cols)
		for k, w := range tt.check {
			g := cols[k]
			if g == nil {
				g = ""
			}
			if fmt.Sprint(g) != w {
				t.Errorf("%s: %s = %v, want %s", tt.name, k, g, w)
			}
		}
		if len(run.Metadata) != len(tt.fields) {
			t.Errorf("%s: %d metadata pairs, want %d (every pair kept)", tt.name, len(run.Metadata), len(tt.fields))
		}
	}
}

func TestMetaSecrets(t *testing.T) {
	fields := []rawField{
		{Section: "Run", Key: "API key", Value: "abc123"},
		{Section: "Run", Key: "HF token", Value: "hf_zzzzzzzzzzzzzzzzzzzzzz"},
		{Section: "Run", Key: "Notes", Value: "sent Authorization: Bearer qwertyuiop1234"},
		{Section: "Run", Key: "Max tokens", Value: "100"},
		{Section: "Run", Key: "POST /tokenize", Value: "form content: HTTP 404"},
		{Section: "Run", Key: "Tokenizer", Value: "org/tok"},
	}
	var run schema.Run
	if err := buildRun(&rawDoc{Name: "s.txt", Title: "M on G sk-abcdefghijklmnopqrstuv", Fields: fields, Launch: "OPENAI_API_KEY=k1k1k1 vllm serve m"}, &run); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(run)
	for _, s := range []string{"abc123", "hf_zzzz", "qwertyuiop1234", "sk-abcdef", "k1k1k1"} {
		if strings.Contains(string(b), s) {
			t.Errorf("secret %q reaches the run: %s", s, b)
		}
	}
	// Token counts and tokenizers are not secrets.
	for _, i := range []int{3, 4, 5} {
		if run.Metadata[i].Value != fields[i].Value {
			t.Errorf("%s redacted: %+v", fields[i].Key, run.Metadata[i])
		}
	}
}

func TestMetaBadValues(t *testing.T) {
	tests := []struct {
		key, value, want string
	}{
		{"VRAM", "lots", `VRAM "lots" is not a size like 96 GB`},
		{"VRAM", "96 ms", `is not a size`},
		{"Time per measurement", "thirty s", `is not a duration like 30 s`},
		{"Time per measurement", "30 GB", `is not a duration`},
		{"Max output", "4,09 tokens", `is not a token count like 4,096 tokens`},
		{"Max output", "4.5", `is not a token count`},
		{"GPU count", "two", `is not a number of GPUs`},
		{"Started", "yesterday", `Started "yesterday" is not a time like 2026-12-02T15:00:00Z (RFC 3339)`},
		{"Finished", "2026-12-02 15:07", `is not a time`},
		{"KV budget", "lots", `KV budget "lots" is not a token count`},
		{"Max model length", "32,76 tokens", `is not a token count`},
		{"Tensor parallel", "0", `is not a number of GPUs`},
		{"GPU memory utilization", "0.9 GB", `is not a fraction like 0.9`},
	}
	for _, tt := range tests {
		var run schema.Run
		err := buildRun(&rawDoc{Name: "b.txt", Fields: []rawField{{Section: "Run", Key: "OS", Value: "linux", Line: 4}, {Section: "Run", Key: tt.key, Value: tt.value, Line: 7}}}, &run)
		var pe *Error
		if !errors.As(err, &pe) || pe.Line != 7 || !strings.Contains(pe.Msg, tt.want) {
			t.Errorf("%s %q: error %v, want b.txt:7: …%s…", tt.key, tt.value, err, tt.want)
		}
	}
}

// TestLaunchSecretsNeverReachRun parses a seed whose launch command
// carries real-looking secrets and checks that no part of the parsed
// matrix holds them.
func TestLaunchSecretsNeverReachRun(t *testing.T) {
	b := applyEdits(t, readSeed(t, seed000), []edit{
		{`env MAX_JOBS=2`, "env HF_TOKEN=hf_secretsecretsecret123 OPENAI_API_KEY=plainsecret1 MAX_JOBS=2"},
		{`--api-key <redacted>`, "--api-key=topsecretvalue --hf-token 'quoted secret'"},
		{`(?m)^- Revision$`, "- API key\n- keysecret99\n- Revision"},
	})
	m, err := ParseBytes(b, "s.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"hf_secretsecret", "plainsecret1", "topsecretvalue", "quoted secret", "keysecret99"} {
		if strings.Contains(string(j), s) {
			t.Errorf("secret %q reaches the parsed matrix", s)
		}
	}
	want := "env HF_TOKEN=<redacted> OPENAI_API_KEY=<redacted> MAX_JOBS=2 "
	if !strings.HasPrefix(m.Run.LaunchCommand, want) || !strings.Contains(m.Run.LaunchCommand, "--api-key=<redacted> --hf-token <redacted> --mamba") {
		t.Errorf("launch command %q", m.Run.LaunchCommand)
	}
}
