package parse

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"speedmatrix/redact"
	"speedmatrix/schema"
)

// jsonEdit reads a JSON fixture, hands its decoded value to edit and
// returns it encoded again.
func jsonEdit(t *testing.T, path string, edit func(v any)) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	edit(v)
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// obj returns the object at key of v (v itself for "").
func obj(v any, key string) map[string]any {
	m := v.(map[string]any)
	if key == "" {
		return m
	}
	return m[key].(map[string]any)
}

// seedWith returns seed document 000 with old replaced by new (which
// must occur).
func seedWith(t *testing.T, pairs ...string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/seeds/000_acc4a01d882a0446.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(pairs); i += 2 {
		if !bytes.Contains(b, []byte(pairs[i])) {
			t.Fatalf("seed 000 has no %q", pairs[i])
		}
		b = bytes.Replace(b, []byte(pairs[i]), []byte(pairs[i+1]), 1)
	}
	return b
}

const seedLaunch = `--port 8000 --api-key <redacted>`

// TestSecretsOfIssue22 plants each spelling issue 22 found stored or
// printed into the input it was found in, and checks that no secret
// survives parsing (in any field of the matrices, as ingest -json prints
// them, or in the error) and that a marker shows where each was.
func TestSecretsOfIssue22(t *testing.T) {
	basicPair := base64.StdEncoding.EncodeToString([]byte("alice:Kq9BasicPw77"))
	cases := []struct {
		name    string
		file    string
		input   func(t *testing.T) []byte
		secrets []string
	}{
		{"vllm sweep parameters api_key, hf_token, URL userinfo", "sweep.json", func(t *testing.T) []byte {
			return jsonEdit(t, "testdata/peers/vllm/sweep-serve-summary-v0.12.json", func(v any) {
				for _, r := range v.([]any) {
					o := r.(map[string]any)
					o["api_key"] = "Kq9SweepApiKey01"
					o["hf_token"] = "Kq9SweepHfTok02"
					o["base_url"] = "http://bench:Kq9SweepUrlPw03@gpu-host:8000/v1"
				}
			})
		}, []string{"Kq9SweepApiKey01", "Kq9SweepHfTok02", "Kq9SweepUrlPw03"}},
		{"vllm result launch_command and authorization", "result.json", func(t *testing.T) []byte {
			return jsonEdit(t, "testdata/peers/vllm/latency-ms-derivative-2024.json", func(v any) {
				o := obj(v, "")
				o["launch_command"] = "docker run -e HF_TOKEN=Kq9DockerTok04 vllm/vllm-openai --model m"
				o["authorization"] = "Bearer Kq9BearerTok05"
			})
		}, []string{"Kq9DockerTok04", "Kq9BearerTok05"}},
		{"aiperf run_info.cli_command", "profile_export_aiperf.json", func(t *testing.T) []byte {
			return jsonEdit(t, "testdata/peers/aiperf/profile_export_aiperf-v0.10-http.json", func(v any) {
				obj(v, "run_info")["cli_command"] = "aiperf profile --model m --api-key Kq9AiperfKey06 -H 'Authorization: Bearer Kq9AiperfTok07' --url http://u:Kq9AiperfPw08@h:8000"
			})
		}, []string{"Kq9AiperfKey06", "Kq9AiperfTok07", "Kq9AiperfPw08"}},
		{"llm-inference-bench metadata and run_metadata", "bench.json", func(t *testing.T) []byte {
			return jsonEdit(t, "testdata/peers/llm-inference-bench/v0.4.29-run-metadata.json", func(v any) {
				md := obj(v, "metadata")
				md["server"] = "http://bench:Kq9ServerPw09@gpu-host:8000"
				md["api_key"] = "Kq9MetaApiKey10"
				md["launch_command"] = "vllm serve m --api-key Kq9LaunchKey11 --port 8000"
				obj(v, "run_metadata")["note"] = "export OPENAI_API_KEY=Kq9NoteKey12"
			})
		}, []string{"Kq9ServerPw09", "Kq9MetaApiKey10", "Kq9LaunchKey11", "Kq9NoteKey12"}},
		{"document model from a URL with userinfo", "doc.txt", func(t *testing.T) []byte {
			return seedWith(t, "serve inclusionAI/Ling-3.0-tiny-int4", "serve https://user:Kq9ModelPw13@huggingface.co/inclusionAI/Ling-3.0-tiny-int4")
		}, []string{"Kq9ModelPw13"}},
		{"document curl -H x-api-key", "doc.txt", func(t *testing.T) []byte {
			return seedWith(t, seedLaunch, seedLaunch+` && curl -H 'x-api-key: Kq9XApiKey14' http://127.0.0.1:8000/v1/models`)
		}, []string{"Kq9XApiKey14"}},
		{"document api-key, Proxy-Authorization and Basic headers", "doc.txt", func(t *testing.T) []byte {
			return seedWith(t, seedLaunch, seedLaunch+` && curl -H "api-key: Kq9AzureKey15" -H "Proxy-Authorization: Basic `+basicPair+`" http://127.0.0.1:8000/v1/models`)
		}, []string{"Kq9AzureKey15", basicPair}},
		{"document metadata key naming a secret", "doc.txt", func(t *testing.T) []byte {
			return seedWith(t, "- Revision\n- main\n", "- Revision\n- main\n- Proxy-Authorization\n- Kq9MetaTok16\n- Credentials\n- Kq9MetaCred19\n")
		}, []string{"Kq9MetaTok16", "Kq9MetaCred19"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms, err := ParseAllBytes(c.input(t), c.file, "")
			var all []byte
			if err != nil {
				all = []byte(err.Error())
				t.Errorf("%s does not parse: %v", c.file, err)
			} else {
				for _, m := range ms { // every string field, as ingest -json prints them
					all = fmt.Appendf(all, "%+v\n", *m)
				}
			}
			for _, s := range c.secrets {
				if bytes.Contains(all, []byte(s)) {
					i := bytes.Index(all, []byte(s))
					t.Errorf("secret %s survives: …%s…", s, all[max(0, i-120):min(len(all), i+60)])
				}
			}
			if !bytes.Contains(all, []byte(redact.Marker)) {
				t.Errorf("no %s marker shows where a secret was", redact.Marker)
			}
		})
	}
}

// TestSecretInErrorText checks that a secret quoted in an error message
// (a document that does not parse) is redacted too.
func TestSecretInErrorText(t *testing.T) {
	b := seedWith(t, "| Sustained decode | 8K | 1 | Valid |", "| Sustained decode | 8K | 1 | api_key=Kq9ErrKey18 Bearer Kq9ErrTok17 |")
	_, err := ParseAllBytes(b, "bad.txt", "")
	var pe *Error
	if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), "bad.txt:71: ") {
		t.Fatalf("err = %v, want a positioned error quoting the status", err)
	}
	for _, s := range []string{"Kq9ErrTok17", "Kq9ErrKey18"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error keeps %s: %v", s, err)
		}
	}
}

// TestImpossibleFigures checks that a figure no instrument can produce
// is never a valid cell: a negative rate, latency or count is an error
// at its line naming the field; an infinite one written by a tool (its
// sentinel) makes the cell an error with the reason.
func TestImpossibleFigures(t *testing.T) {
	vllmWith := func(set map[string]string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b, err := os.ReadFile("testdata/peers/vllm/latency-ms-derivative-2024.json")
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range set {
				re := []byte(`"` + k + `": `)
				i := bytes.Index(b, re)
				if i < 0 {
					t.Fatalf("no %s", k)
				}
				j := i + len(re) + bytes.IndexAny(b[i+len(re):], ",}")
				b = append(b[:i+len(re)], append([]byte(v), b[j:]...)...)
			}
			return b
		}
	}
	cases := []struct {
		name  string
		file  string
		input func(t *testing.T) []byte
		// wantErr: the error names these; else the cell is an error
		// whose reason names them and the fields are null.
		wantErr []string
		reason  []string
	}{
		{"vllm Infinity TTFT and output throughput", "inf.json",
			vllmWith(map[string]string{"mean_ttft_ms": "Infinity", "median_ttft_ms": "Infinity", "output_throughput": "Infinity"}),
			nil, []string{"ttft_ms is Infinity", "total_tok_s is Infinity"}},
		{"peer negative throughput", "neg.json", vllmWith(map[string]string{"output_throughput": "-128.0"}),
			[]string{"neg.json:1:", "total_tok_s -128"}, nil},
		{"peer negative TTFT", "neg.json", vllmWith(map[string]string{"median_ttft_ms": "-44.25", "mean_ttft_ms": "-45.5"}),
			[]string{"neg.json:1:", "ttft_ms -44.25"}, nil},
		{"peer negative completed requests", "neg.json", vllmWith(map[string]string{"completed": "-2"}),
			[]string{"neg.json:1:", "completed_requests -2"}, nil},
		{"text document negative tok/s", "doc.txt", func(t *testing.T) []byte {
			return seedWith(t, "| 8K | 325.241 ms TTFT |", "| 8K | -325.241 ms TTFT |",
				"| Sustained decode | 8K | 1 | Valid | 325.2 |", "| Sustained decode | 8K | 1 | Valid | -325.2 |")
		}, []string{"doc.txt:71:", "total_tok_s -325.2"}, nil},
		{"text document negative completed requests", "doc.txt", func(t *testing.T) []byte {
			return seedWith(t, "| 326.1 | 41 ms | 3.1 ms | 1.0 | 2 |", "| 326.1 | 41 ms | 3.1 ms | 1.0 | -2 |")
		}, []string{"doc.txt:71:", "completed_requests -2"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms, err := ParseAllBytes(c.input(t), c.file, "")
			if c.wantErr != nil {
				var pe *Error
				if err == nil || !errors.As(err, &pe) {
					t.Fatalf("err = %v, want a positioned error naming %q", err, c.wantErr)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				for _, x := range m.Measurements {
					if x.Status == schema.StatusValid {
						t.Errorf("cell %s is valid: %+v", describeCell(&x), x)
					}
					for _, w := range c.reason {
						if !strings.Contains(x.StatusReason, w) {
							t.Errorf("reason %q does not say %q", x.StatusReason, w)
						}
					}
					if x.TTFTMs != nil || x.TotalTokS != nil {
						t.Errorf("a sentinel is kept as a figure: ttft %v, total %v", x.TTFTMs, x.TotalTokS)
					}
					if len(x.CheckFigures()) != 0 {
						t.Errorf("impossible figures kept: %v", x.CheckFigures())
					}
				}
			}
		})
	}
}

// vllmFileWith returns the vLLM result testdata/peers/vllm/
// latency-ms-derivative-2024.json with each key's value replaced.
func vllmFileWith(t *testing.T, set map[string]string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/peers/vllm/latency-ms-derivative-2024.json")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		re := []byte(`"` + k + `": `)
		i := bytes.Index(b, re)
		if i < 0 {
			t.Fatalf("no %s", k)
		}
		j := i + len(re) + bytes.IndexAny(b[i+len(re):], ",}")
		b = append(b[:i+len(re)], append([]byte(v), b[j:]...)...)
	}
	return b
}

// TestImpossibleExtraAndRunFigures: the figures beyond the measurement
// columns are checked too. An extra metric that is by its name a rate,
// latency, count or token total (std_ttft_ms) is an error at the cell's
// line naming it when negative, and, when another tool wrote Infinity
// or NaN, is dropped from Extra with a warning in the run's metadata;
// an extra whose name says it is signed is kept negative. A document's
// VRAM and GPU memory utilization outside their bounds are errors naming
// the field.
func TestImpossibleExtraAndRunFigures(t *testing.T) {
	for _, c := range []struct {
		name    string
		file    string
		input   func(t *testing.T) []byte
		wantErr []string
	}{
		{"peer negative extra latency", "neg.json", func(t *testing.T) []byte {
			return vllmFileWith(t, map[string]string{"std_ttft_ms": "-3.5"})
		}, []string{"neg.json:1:", "std_ttft_ms -3.5", "a rate, latency, count or token total"}},
		{"document negative VRAM", "doc.txt", func(t *testing.T) []byte {
			return seedWith(t, "- VRAM\n- 96 GB", "- VRAM\n- -96 GB")
		}, []string{"doc.txt: run: vram_gb -96"}},
		{"document GPU memory utilization above 1", "doc.txt", func(t *testing.T) []byte {
			return seedWith(t, "--gpu-memory-utilization 0.75", "--gpu-memory-utilization 7.5")
		}, []string{"doc.txt: run: gpu_memory_utilization 7.5", "a fraction"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseAllBytes(c.input(t), c.file, "")
			var pe *Error
			if err == nil || !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a positioned error naming %q", err, c.wantErr)
			}
			for _, w := range c.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}

	t.Run("peer Infinity and NaN extras dropped with a warning", func(t *testing.T) {
		// vLLM's reader keeps a text value of a field it does not know in
		// metadata; other readers (and readers to come) put Python's
		// Infinity and NaN into Extra, as this matrix has them.
		ms, err := ParseAllBytes(vllmFileWith(t, nil), "inf.json", "")
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range ms[0].Measurements[0].Extra {
			switch e.Name {
			case "std_ttft_ms":
				ms[0].Measurements[0].Extra[i].Value = math.Inf(1)
			case "std_itl_ms":
				ms[0].Measurements[0].Extra[i].Value = math.NaN()
			}
		}
		if err := admit(ms[0], "inf.json", true); err != nil {
			t.Fatal(err)
		}
		var warnings []string
		for _, f := range ms[0].Run.Metadata {
			if f.Section == "speedmatrix" && f.Key == KeyDroppedFigure {
				warnings = append(warnings, f.Value)
			}
		}
		for _, name := range []string{"std_ttft_ms is Infinity", "std_itl_ms is NaN"} {
			if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, name) }) {
				t.Errorf("no warning says %q: %q", name, warnings)
			}
		}
		for _, x := range ms[0].Measurements {
			if x.Status != schema.StatusValid {
				t.Errorf("cell %s: %s %q; a dropped extra leaves the cell valid", describeCell(&x), x.Status, x.StatusReason)
			}
			for _, e := range x.Extra {
				if math.IsInf(e.Value, 0) || math.IsNaN(e.Value) {
					t.Errorf("extra %s %v kept", e.Name, e.Value)
				}
			}
		}
	})

	t.Run("signed extras kept", func(t *testing.T) {
		for _, name := range []string{"schedule_delay_min_ms", "send_lag_max_ms", "usage_prompt_tokens_diff_pct_min", "ttft_trials_ci_low_ms", "tokens_delta", "requested_rate_raw"} {
			if schema.ExtraChecked(name) {
				t.Errorf("ExtraChecked(%q) is true: the name says the figure is signed", name)
			}
		}
		for _, name := range []string{"std_ttft_ms", "output_tokens_per_second_mean", "ttfts_count", "wall_time_s", "total_requests", "client_tok_s", "peak_tok_s_mean"} {
			if !schema.ExtraChecked(name) {
				t.Errorf("ExtraChecked(%q) is false", name)
			}
		}
	})
}
