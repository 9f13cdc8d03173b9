package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestDiscoverProps reads llama.cpp server's GET /props when /v1/models
// gives no max_model_len and there is no /version, and only then.
func TestDiscoverProps(t *testing.T) {
	const llamaModels = `{"object":"list","data":[{"id":"qwen.gguf","object":"model","owned_by":"llamacpp",` +
		`"meta":{"vocab_type":2,"n_vocab":151936,"n_ctx_train":262144,"n_params":30532122624}}]}`
	const props = `{"default_generation_settings":{"n_ctx":65536,"params":{"n_predict":-1}},"total_slots":4,` +
		`"model_alias":"qwen","build_info":"b8681-Debian"}`
	tests := []struct {
		name        string
		routes      map[string]string
		wantLen     int64
		wantVersion string
	}{
		{"llama.cpp", map[string]string{"/v1/models": llamaModels, "/props": props}, 65536, "b8681-Debian"},
		{"llama.cpp without /props", map[string]string{"/v1/models": llamaModels}, 0, ""},
		{"vLLM: /v1/models and /version win", map[string]string{
			"/v1/models": `{"data":[{"id":"qwen.gguf","max_model_len":32768}]}`,
			"/version":   `{"version":"0.11.0"}`,
			"/props":     props,
		}, 32768, "0.11.0"},
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
			if info.MaxModelLen != tc.wantLen || info.Version != tc.wantVersion || info.KVTokens != 0 {
				t.Errorf("max_model_len %d, version %q, KV %d; want %d, %q, 0", info.MaxModelLen, info.Version, info.KVTokens, tc.wantLen, tc.wantVersion)
			}
		})
	}
}
