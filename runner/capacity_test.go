package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestDiscoverProps reads llama.cpp server's GET /props and TGI's GET
// /info when /v1/models gives no max_model_len and there is no /version,
// and only then; TGI's /info also names the model when there is no
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
	}{
		{"llama.cpp", map[string]string{"/v1/models": llamaModels, "/props": props}, 65536, "b8681-Debian", 0, ""},
		{"llama.cpp without /props", map[string]string{"/v1/models": llamaModels}, 0, "", 0, ""},
		{"vLLM: /v1/models and /version win", map[string]string{
			"/v1/models": `{"data":[{"id":"qwen.gguf","max_model_len":32768}]}`,
			"/version":   `{"version":"0.11.0"}`,
			"/props":     props,
			"/info":      tgi,
		}, 32768, "0.11.0", 262144, "/info"},
		{"TGI without /v1/models", map[string]string{"/info": tgi}, 4096, "3.0.1", 262144, "/info"},
		{"TGI with /v1/models", map[string]string{"/v1/models": `{"object":"list","data":[{"id":"qwen.gguf","object":"model","owned_by":"tgi"}]}`, "/info": tgi},
			4096, "3.0.1", 262144, "/info"},
		{"SGLang's budget before TGI's", map[string]string{"/info": tgi, "/get_server_info": `{"max_total_num_tokens":500000}`},
			4096, "3.0.1", 500000, "/get_server_info"},
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
				len(info.Models) != 1 || info.Models[0] != "qwen.gguf" {
				t.Errorf("models %q, max_model_len %d, version %q, KV %d from %q; want %d, %q, %d from %q",
					info.Models, info.MaxModelLen, info.Version, info.KVTokens, info.KVSource, tc.wantLen, tc.wantVersion, tc.wantKV, tc.wantSource)
			}
		})
	}
}
