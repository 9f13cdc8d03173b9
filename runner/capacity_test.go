package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestDiscoverProps reads llama.cpp server's GET /props and TGI's GET
// /info when /v1/models gives no max_model_len and there is no /version,
// and only then (Ollama's GET /api/version last, for the version alone); TGI's /info also names the model when there is no
// /v1/models, and gives the KV budget when nothing else does.
func TestDiscoverProps(t *testing.T) {
	const llamaModels = `{"object":"list","data":[{"id":"qwen.gguf","object":"model","owned_by":"llamacpp",` +
		`"meta":{"vocab_type":2,"n_vocab":151936,"n_ctx_train":262144,"n_params":30532122624}}]}`
	const props = `{"default_generation_settings":{"n_ctx":65536,"params":{"n_predict":-1}},"total_slots":4,` +
		`"model_alias":"qwen","build_info":"b8681-Debian"}`
	const tgi = `{"model_id":"qwen.gguf","model_sha":"abc","model_dtype":"torch.float16","max_concurrent_requests":128,` +
		`"max_input_tokens":4095,"max_total_tokens":4096,"max_batch_total_tokens":262144,"version":"3.0.1","sha":"def"}`
	tests := []struct {
		name        string
		routes      map[string]string
		wantLen     int64
		wantVersion string
		wantKV      int64
		wantSource  string
		wantSlots   int
	}{
		{"llama.cpp", map[string]string{"/v1/models": llamaModels, "/props": props}, 65536, "b8681-Debian", 0, "", 4},
		{"llama.cpp without /props", map[string]string{"/v1/models": llamaModels}, 0, "", 0, "", 0},
		{"vLLM: /v1/models and /version win", map[string]string{
			"/v1/models":   `{"data":[{"id":"qwen.gguf","max_model_len":32768}]}`,
			"/version":     `{"version":"0.11.0"}`,
			"/props":       props,
			"/info":        tgi,
			"/api/version": `{"version":"0.6.5"}`,
		}, 32768, "0.11.0", 262144, "/info", 0},
		{"Ollama: /api/version", map[string]string{
			"/v1/models":   `{"object":"list","data":[{"id":"qwen.gguf","object":"model","created":1764700000,"owned_by":"library"}]}`,
			"/api/version": `{"version":"0.6.5"}`,
		}, 0, "0.6.5", 0, "", 0},
		{"TGI without /v1/models", map[string]string{"/info": tgi}, 4096, "3.0.1", 262144, "/info", 0},
		{"TGI with /v1/models", map[string]string{"/v1/models": `{"object":"list","data":[{"id":"qwen.gguf","object":"model","owned_by":"tgi"}]}`, "/info": tgi},
			4096, "3.0.1", 262144, "/info", 0},
		{"SGLang's budget before TGI's", map[string]string{"/info": tgi, "/get_server_info": `{"max_total_num_tokens":500000}`},
			4096, "3.0.1", 500000, "/get_server_info", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, ok := tc.routes[r.URL.Path]
				if !ok || r.Method != http.MethodGet {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(body))
			}))
			defer hs.Close()
			c, err := NewClient(ClientConfig{URL: hs.URL, Model: "qwen.gguf"})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			info, err := c.Discover(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if info.MaxModelLen != tc.wantLen || info.Version != tc.wantVersion || info.KVTokens != tc.wantKV || info.KVSource != tc.wantSource ||
				info.Slots != tc.wantSlots || len(info.Models) != 1 || info.Models[0] != "qwen.gguf" {
				t.Errorf("models %q, max_model_len %d, version %q, KV %d from %q, %d slots; want %d, %q, %d from %q, %d slots",
					info.Models, info.MaxModelLen, info.Version, info.KVTokens, info.KVSource, info.Slots, tc.wantLen, tc.wantVersion, tc.wantKV, tc.wantSource, tc.wantSlots)
			}
			// The engine is named only by an endpoint of its own.
			wantEngine := map[string]string{"llama.cpp": "llama.cpp", "Ollama: /api/version": "ollama"}[tc.name]
			if info.Engine != wantEngine {
				t.Errorf("engine %q, want %q", info.Engine, wantEngine)
			}
		})
	}
}

// TestServable: a context is measured as asked, capped as the seeds cap
// it (128K of a 128K model → 123K), or refused when the cap would leave
// nothing or cut it by more than half.
func TestServable(t *testing.T) {
	tests := []struct {
		tokens, maxModelLen int64
		maxTokens           int
		want                int64 // 0: refused
	}{
		{8192, 0, 4096, 8192},          // limit unknown
		{8192, 32768, 4096, 8192},      // fits
		{131072, 131072, 4096, 126912}, // the seeds' 123K
		{8192, 5860, 200, 5596},        // capped, more than half kept
		{256, 1024, 1000, 0},           // −40 left for the prompt
		{2048, 1024, 256, 0},           // 2K of a 1K slot would be 704
		{1024, 1024 + 64, 1, 1023},     // prefill-only, max_tokens=1
		{1024, 64 + 1, 1, 0},           // nothing left
	}
	for _, tt := range tests {
		got, err := servable(tt.tokens, tt.maxModelLen, tt.maxTokens)
		if got != tt.want || (err != nil) != (tt.want == 0) {
			t.Errorf("servable(%d, %d, %d) = %d, %v; want %d", tt.tokens, tt.maxModelLen, tt.maxTokens, got, err, tt.want)
		}
	}
}

// TestKVFull tells a full KV cache from other server errors.
func TestKVFull(t *testing.T) {
	for err, want := range map[string]bool{
		"HTTP 500: Context size has been exceeded.":                true,
		"server error in stream: Context size has been exceeded.":  true,
		"HTTP 500: the request exceeds the available context size": false, // one prompt too long: a refused context
		"HTTP 500: Internal Server Error":                          false,
		"stalled: no bytes for 2m0s":                               false,
	} {
		if got := kvFull(err); got != want {
			t.Errorf("kvFull(%q) = %v, want %v", err, got, want)
		}
	}
}
