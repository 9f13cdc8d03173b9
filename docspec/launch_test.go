package docspec

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"speedmatrix/redact"
)

func TestLaunchParse(t *testing.T) {
	tests := []struct {
		name     string
		cmd      string
		program  string
		model    string
		tp       string // "" for null
		maxLen   string
		gpuUtil  string
		quant    string
		dtype    string
		flags    string // fmt.Sprint of the first flags, "" to skip
		redacted string // the redacted command, "" when unchanged
	}{
		{
			name:    "vllm seed",
			cmd:     `env MAX_JOBS=2 "$HOME/env/bin/vllm" serve inclusionAI/Ling-3.0-tiny-int4 --served-model-name ling --trust-remote-code --tensor-parallel-size 1 --max-model-len 131072 --gpu-memory-utilization 0.75 --api-key <redacted> --mamba-cache-mode align`,
			program: "$HOME/env/bin/vllm", model: "inclusionAI/Ling-3.0-tiny-int4", tp: "1", maxLen: "131072", gpuUtil: "0.75",
			flags: "[{--served-model-name ling} {--trust-remote-code } {--tensor-parallel-size 1} {--max-model-len 131072} {--gpu-memory-utilization 0.75} {--api-key <redacted>} {--mamba-cache-mode align}]",
		},
		{
			name:    "vllm model flag, equals forms, quantization, dtype",
			cmd:     `python -m vllm.entrypoints.openai.api_server --model=meta-llama/Llama-3-8B -tp 2 --max-model-len=32k --quantization awq --dtype bfloat16 --enforce-eager`,
			program: "vllm.entrypoints.openai.api_server", model: "meta-llama/Llama-3-8B", tp: "2", maxLen: "32000", quant: "awq", dtype: "bfloat16",
			flags: "[{--model meta-llama/Llama-3-8B} {-tp 2} {--max-model-len 32k} {--quantization awq} {--dtype bfloat16} {--enforce-eager }]",
		},
		{
			name:    "sglang",
			cmd:     `python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B --tp-size 4 --context-length 65536 --mem-fraction-static 0.85 --port 30000`,
			program: "sglang.launch_server", model: "Qwen/Qwen2.5-7B", tp: "4", maxLen: "65536", gpuUtil: "0.85",
		},
		{
			name:    "sglang --tp",
			cmd:     `python -m sglang.launch_server --model-path x/y --tp 8`,
			program: "sglang.launch_server", model: "x/y", tp: "8",
		},
		{
			name:    "llama.cpp",
			cmd:     `./llama-server -m models/qwen-7b-q4_k_m.gguf -c 8192 -ngl 99 --host 127.0.0.1`,
			program: "./llama-server", model: "models/qwen-7b-q4_k_m.gguf", maxLen: "8192",
			flags: "[{-m models/qwen-7b-q4_k_m.gguf} {-c 8192} {-ngl 99} {--host 127.0.0.1}]",
		},
		{
			name:    "tgi",
			cmd:     `text-generation-launcher --model-id bigscience/bloom-560m --num-shard 2 --max-total-tokens 4096 --quantize bitsandbytes`,
			program: "text-generation-launcher", model: "bigscience/bloom-560m", tp: "2", maxLen: "4096", quant: "bitsandbytes",
		},
		{
			name:    "secrets in flags and env",
			cmd:     `HF_TOKEN=hf_abcdefghijklmnopqrstuvwx OPENAI_API_KEY='sk-proj 123' TOKENIZERS_PARALLELISM=false vllm serve m --api-key s3cret --hf-token=abc --max-num-batched-tokens 8192`,
			program: "vllm", model: "m",
			flags:    "[{--api-key <redacted>} {--hf-token <redacted>} {--max-num-batched-tokens 8192}]",
			redacted: `HF_TOKEN=<redacted> OPENAI_API_KEY=<redacted> TOKENIZERS_PARALLELISM=false vllm serve m --api-key <redacted> --hf-token=<redacted> --max-num-batched-tokens 8192`,
		},
		{
			name:    "quoted api key and bearer header",
			cmd:     `docker run -e HUGGING_FACE_HUB_TOKEN=xyz123 -H "Authorization: Bearer abcdef123456" vllm/vllm-openai --model m --api-key "two words"`,
			program: "docker", model: "m",
			redacted: `docker run -e HUGGING_FACE_HUB_TOKEN=<redacted> -H "Authorization: Bearer <redacted>" vllm/vllm-openai --model m --api-key <redacted>`,
		},
		{
			name:    "line continuations and a comment",
			cmd:     "vllm serve org/model \\\n  --tensor-parallel-size 8 \\\n  --max-model-len 8192 # long context off",
			program: "vllm", model: "org/model", tp: "8", maxLen: "8192",
			flags: "[{--tensor-parallel-size 8} {--max-model-len 8192}]",
		},
		{
			name:    "unparseable values stay flags",
			cmd:     `vllm serve m --max-model-len auto --tensor-parallel-size two --gpu-memory-utilization high`,
			program: "vllm", model: "m",
			flags: "[{--max-model-len auto} {--tensor-parallel-size two} {--gpu-memory-utilization high}]",
		},
		{
			name:    "docker -m is memory, not a model",
			cmd:     `docker run -m 16g -c 512 --gpus all vllm/vllm-openai --model org/m --max-model-len 4096`,
			program: "docker", model: "org/m", maxLen: "4096",
		},
		{
			name:    "after setup commands",
			cmd:     `cd /srv && export HF_TOKEN=abcdefgh; vllm serve org/m --tensor-parallel-size 2 --api-key k3yk3yk3y 2>&1 | tee log`,
			program: "vllm", model: "org/m", tp: "2",
			flags:    "[{--tensor-parallel-size 2} {--api-key <redacted>}]",
			redacted: `cd /srv && export HF_TOKEN=<redacted>; vllm serve org/m --tensor-parallel-size 2 --api-key <redacted> 2>&1 | tee log`,
		},
		{
			name:    "inside bash -c",
			cmd:     `bash -lc "HF_TOKEN=abcdefgh vllm serve org/m --max-model-len 8192 --api-key k3yk3yk3y"`,
			program: "vllm", model: "org/m", maxLen: "8192",
			redacted: `bash -lc 'HF_TOKEN=<redacted> vllm serve org/m --max-model-len 8192 --api-key <redacted>'`,
		},
		{
			name:     "starts with a flag",
			cmd:      `--api-key 00000000 --port 8000`,
			program:  "--api-key",
			redacted: `--api-key <redacted> --port 8000`,
		},
		{
			name:    "URL user information in a flag value",
			cmd:     `vllm serve m --download-dir s3://AKIAX:s3cr3tkey@bucket/m`,
			program: "vllm", model: "m",
			flags:    "[{--download-dir s3://<redacted>@bucket/m}]",
			redacted: `vllm serve m --download-dir s3://<redacted>@bucket/m`,
		},
		{name: "empty", cmd: ""},
	}
	ptr := func(v any) string {
		switch p := v.(type) {
		case *int32:
			if p != nil {
				return fmt.Sprint(*p)
			}
		case *int64:
			if p != nil {
				return fmt.Sprint(*p)
			}
		case *float64:
			if p != nil {
				return fmt.Sprint(*p)
			}
		}
		return ""
	}
	for _, tt := range tests {
		l := ParseLaunch(tt.cmd)
		got := []string{l.Program, l.ModelID, ptr(l.TensorParallel), ptr(l.MaxModelLen), ptr(l.GPUMemoryUtilization), l.Quantization, l.DType}
		want := []string{tt.program, tt.model, tt.tp, tt.maxLen, tt.gpuUtil, tt.quant, tt.dtype}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: program, model, tp, max len, util, quant, dtype = %q, want %q", tt.name, got, want)
		}
		if tt.flags != "" && fmt.Sprint(l.Flags) != tt.flags {
			t.Errorf("%s: flags = %v, want %s", tt.name, l.Flags, tt.flags)
		}
		wantCmd := tt.cmd
		if tt.redacted != "" {
			wantCmd = tt.redacted
		}
		if l.Command != wantCmd {
			t.Errorf("%s: command\n got %s\nwant %s", tt.name, l.Command, wantCmd)
		}
	}
}

// secrets are values that must never survive into a parsed launch.
var secrets = []string{"s3cret", "hf_abcdefghijklmnopqrstuvwx", "sk-proj", "abcdef123456", "xyz123", "two words", "abc99"}

func TestLaunchRedaction(t *testing.T) {
	cmds := []string{
		`HF_TOKEN=hf_abcdefghijklmnopqrstuvwx vllm serve m`,
		`env OPENAI_API_KEY=sk-proj vllm serve m`,
		`vllm serve m --api-key s3cret`,
		`vllm serve m --api-key=s3cret`,
		`vllm serve m --api_key "two words"`,
		`vllm serve m --hf-token xyz123`,
		`curl -H "Authorization: Bearer abcdef123456" http://127.0.0.1/`,
		`curl -H 'authorization: bearer abcdef123456'`,
		`sglang --api-key 'abc99' --port 1`,
		`docker run --env HF_TOKEN=xyz123 image`,
		`run --key=s3cret`,
		`run AWS_SECRET_ACCESS_KEY=s3cret`,
		`vllm serve m --token sk-abcdefghijklmnopqrstu`,
	}
	for _, c := range cmds {
		l := ParseLaunch(c)
		all := l.Command + fmt.Sprint(l.Flags, l.Env, l.ModelID, l.Program)
		for _, s := range append(secrets, "sk-abcdefghijklmnopqrstu") {
			if strings.Contains(all, s) && strings.Contains(c, s) {
				t.Errorf("ParseLaunch(%q) leaks %q: %s", c, s, all)
			}
		}
		if !strings.Contains(l.Command, redact.Marker) {
			t.Errorf("ParseLaunch(%q).Command = %q, want a %s", c, l.Command, redact.Marker)
		}
	}
}

func TestLaunchSecretNames(t *testing.T) {
	env := map[string]bool{"HF_TOKEN": true, "OPENAI_API_KEY": true, "HUGGING_FACE_HUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true,
		"DB_PASSWORD": true, "TOKENIZERS_PARALLELISM": false, "MAX_JOBS": false, "CUDA_VISIBLE_DEVICES": false, "VLLM_USE_V1": false}
	for name, want := range env {
		if got := secretEnvName(name); got != want {
			t.Errorf("secretEnvName(%q) = %v, want %v", name, got, want)
		}
	}
	flags := map[string]bool{"--api-key": true, "--hf-token": true, "--token": true, "--password": true, "--client-secret": true,
		"--max-num-batched-tokens": false, "--tokenizer": false, "--kv-cache-dtype": false, "--max-tokens": false, "--ssl-keyfile": false}
	for name, want := range flags {
		if got := secretFlag(name); got != want {
			t.Errorf("secretFlag(%q) = %v, want %v", name, got, want)
		}
	}
}

// launchTemplates reads redact's testdata: commands with {S} in each
// place a secret was seen to leak.
func launchTemplates(tb testing.TB) []string {
	tb.Helper()
	b, err := os.ReadFile("../redact/testdata/commands.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, tpl := range strings.Split(string(b), "\n") {
		if tpl = strings.TrimSpace(tpl); tpl != "" && !strings.HasPrefix(tpl, "#") {
			out = append(out, tpl)
		}
	}
	return out
}

// TestLaunchTemplatesLeakNothing puts a secret into every template and
// checks that no part of the parsed launch holds it.
func TestLaunchTemplatesLeakNothing(t *testing.T) {
	const secret = "Zq7secretValue42"
	for _, tpl := range launchTemplates(t) {
		cmd := strings.ReplaceAll(tpl, "{S}", secret)
		if all := fmt.Sprint(ParseLaunch(cmd)); strings.Contains(all, secret) {
			t.Errorf("ParseLaunch(%q) leaks the secret: %s", cmd, all)
		}
	}
}

// FuzzLaunchSecrets puts fuzzed secrets (8 or more letters and digits)
// into the templates: no part of the parsed launch may hold one.
func FuzzLaunchSecrets(f *testing.F) {
	tpls := launchTemplates(f)
	for i := range tpls {
		f.Add(uint8(i), "Zq7secretValue42")
	}
	f.Fuzz(func(t *testing.T, form uint8, secret string) {
		if len(secret) < 8 || strings.Trim(secret, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			return
		}
		tpl := tpls[int(form)%len(tpls)]
		if strings.Contains(strings.ReplaceAll(tpl, "{S}", " "), secret) {
			return
		}
		cmd := strings.ReplaceAll(tpl, "{S}", secret)
		if all := fmt.Sprint(ParseLaunch(cmd)); strings.Contains(all, secret) {
			t.Errorf("ParseLaunch(%q) leaks the secret: %s", cmd, all)
		}
	})
}

// FuzzParseLaunch checks that ParseLaunch never panics, that every
// secret flag or variable comes out redacted, and that a secret value
// that was a word of its own is gone from the command.
func FuzzParseLaunch(f *testing.F) {
	f.Add(`vllm serve m --api-key s3cret`)
	f.Add(`HF_TOKEN="a b" x`)
	f.Add(`x --api-key='q' --hf-token=zzzz -H "Authorization: Bearer abcdefgh"`)
	f.Add("env A=1 python -m sglang.launch_server --model-path m \\\n --tp 2")
	f.Fuzz(func(t *testing.T, cmd string) {
		l := ParseLaunch(cmd)
		for _, kv := range l.Flags {
			if secretFlag(kv.Key) && kv.Value != "" && kv.Value != redact.Marker {
				t.Errorf("flag %s keeps its value %q", kv.Key, kv.Value)
			}
		}
		for _, kv := range l.Env {
			if secretEnvName(kv.Key) && kv.Value != redact.Marker {
				t.Errorf("variable %s keeps its value %q", kv.Key, kv.Value)
			}
		}
		toks := redact.Words(cmd)
		for i := 0; i+1 < len(toks); i++ {
			v := cmd[toks[i+1].Start:toks[i+1].End] // the value as printed
			if toks[i].Text == "--api-key" && len(v) >= 8 && !strings.HasPrefix(v, "-") &&
				strings.Count(cmd, v) == 1 && strings.Contains(l.Command, v) {
				t.Errorf("secret %q survives in %q", v, l.Command)
			}
		}
	})
}
