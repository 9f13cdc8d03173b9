package runner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// ParseContexts reads a comma-separated list of context lengths: "8K"
// (8 × 1024 tokens), "1.5K", "128k" or a plain token count such as "4000".
func ParseContexts(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		mult := 1.0
		if n := len(f); f[n-1] == 'K' || f[n-1] == 'k' {
			mult, f = 1024, f[:n-1]
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("context %q: want a token count such as 8K or 4000", f)
		}
		out = append(out, int64(v*mult))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no contexts in %q", s)
	}
	return out, nil
}

// ParseConcurrency reads a comma-separated list of positive integers.
func ParseConcurrency(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("concurrency %q: want a positive integer", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no concurrency levels in %q", s)
	}
	return out, nil
}

// ContextLabel labels a context as the seeds do: the floor of tokens /
// 1024 followed by K ("123K" for 126,912 tokens); below 1,024 tokens, the
// count itself.
func ContextLabel(tokens int64) string {
	if tokens < 1024 {
		return strconv.FormatInt(tokens, 10)
	}
	return strconv.FormatInt(tokens/1024, 10) + "K"
}

// contextMargin is kept free between a capped context and max_model_len,
// for the chat template and the run tag.
const contextMargin = 64

// capContext limits a context so that prompt and output fit the model:
// max_model_len − max_tokens − 64 (unchanged when max_model_len is unknown).
func capContext(tokens, maxModelLen int64, maxTokens int) int64 {
	if maxModelLen <= 0 {
		return tokens
	}
	limit := maxModelLen - int64(maxTokens) - contextMargin
	if tokens > limit {
		return limit
	}
	return tokens
}

// servable returns the context a request of tokens prompt tokens and
// maxTokens output tokens is measured at (capContext), or an error saying
// why the server cannot serve it: nothing is left for the prompt, or the
// cap would cut it by more than half (2K asked of a 1,024-token slot),
// which would measure another context than the one asked for.
//
// Note: a cap of less than half is kept (128K on a 128K model with 4,096
// output tokens is measured at 123K, as the seeds do); the run's document
// labels the context it measured.
func servable(tokens, maxModelLen int64, maxTokens int) (int64, error) {
	capped := capContext(tokens, maxModelLen, maxTokens)
	if capped == tokens {
		return tokens, nil
	}
	if capped < 1 || capped < tokens/2 {
		return 0, fmt.Errorf("context %s (%d tokens) cannot be served: the server holds %d tokens per request, and %d output tokens plus a margin of %d leave %d for the prompt",
			ContextLabel(tokens), tokens, maxModelLen, maxTokens, contextMargin, capped)
	}
	return capped, nil
}

// checkContexts reports every context of cfg the server cannot serve, in
// one error, before any load is sent.
func checkContexts(cfg *Config, maxModelLen int64) error {
	var bad []string
	for _, t := range cfg.Contexts {
		if _, err := servable(t, maxModelLen, cfg.MaxTokens); err != nil {
			bad = append(bad, err.Error())
		}
	}
	for _, t := range cfg.PrefillContexts {
		if _, err := servable(t, maxModelLen, 1); err != nil {
			bad = append(bad, "prefill "+err.Error())
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s; lower -max-tokens or the contexts, or give the server a longer context", strings.Join(bad, "; "))
}

// kvFullMessages are what servers answer when their shared KV cache is
// full mid-request (llama.cpp's server with a unified cache: HTTP 500
// "Context size has been exceeded."), in lower case.
var kvFullMessages = []string{"context size has been exceeded", "kv cache is full", "no free kv"}

// kvFull reports whether a request's error says the server's KV cache is
// full: the cell is over capacity, not broken.
func kvFull(err string) bool {
	e := strings.ToLower(err)
	for _, m := range kvFullMessages {
		if strings.Contains(e, m) {
			return true
		}
	}
	return false
}

// overCapacity reports whether c streams at a context need more KV cache
// than the budget (0 = unknown, never over).
func overCapacity(c int, context int64, maxTokens int, budget int64) bool {
	return budget > 0 && int64(c)*(context+int64(maxTokens)) > budget
}

// ServerInfo is what the runner learns about a server before measuring.
type ServerInfo struct {
	// Models lists the served model ids.
	Models []string
	// MaxModelLen is the model's context limit from /v1/models (0 when
	// unreported).
	MaxModelLen int64
	// Version is the engine version from /version (else llama.cpp's
	// /props build_info, TGI's /info or Ollama's /api/version), "" when
	// absent.
	Version string
	// Engine names the engine when the endpoint that gave Version is
	// its own ("llama.cpp" for /props, "ollama" for /api/version), ""
	// otherwise: /version and /info are served by several engines.
	Engine string
	// KVTokens is the KV budget and KVSource where it came from ("flag",
	// "/get_server_info", "/metrics", "/info"), 0 and "" when unknown.
	KVTokens int64
	KVSource string
	// Metrics is true when GET /metrics answers.
	Metrics bool
	// Slots is how many requests the server runs at once when it says
	// (llama.cpp's /props total_slots), else 0.
	Slots int
	// PromptFit says how prompts are fitted: exactly with POST /tokenize
	// when it counts prompts as the endpoint does (plus an offset), else
	// by calibration, and why. Run sets it after Negotiate.
	PromptFit PromptFit
}

// tgiInfo is what speedmatrix reads of TGI's GET /info.
type tgiInfo struct {
	ModelID             string `json:"model_id"`
	MaxTotalTokens      int64  `json:"max_total_tokens"`
	MaxBatchTotalTokens int64  `json:"max_batch_total_tokens"`
	Version             string `json:"version"`
}

// Discover asks the server what it serves: /v1/models (else TGI's
// /info), the version (/version, /props, /info or /api/version), the KV
// budget (kvFlag first, then SGLang's
// /get_server_info, then vLLM's /metrics cache_config_info, then TGI's
// /info max_batch_total_tokens) and whether /metrics exists. Whether
// /tokenize counts what the endpoint counts is checked after Negotiate
// (checkTokenize), as it sends requests.
func (c *Client) Discover(ctx context.Context, kvFlag int64) (ServerInfo, error) {
	var info ServerInfo
	type model struct {
		ID          string `json:"id"`
		MaxModelLen int64  `json:"max_model_len"`
	}
	var models struct {
		Data []model `json:"data"`
	}
	// TGI's /info, fetched once when needed.
	var tgi *tgiInfo
	getTGI := func() *tgiInfo {
		if tgi == nil {
			tgi = &tgiInfo{}
			if c.getJSON(ctx, "/info", tgi) != nil {
				*tgi = tgiInfo{}
			}
		}
		return tgi
	}
	if err := c.getJSON(ctx, "/v1/models", &models); err != nil {
		// TGI before /v1/models: its /info names the model.
		if getTGI().ModelID == "" {
			return info, fmt.Errorf("server %s: %w", c.base, err)
		}
		models.Data = append(models.Data, model{ID: tgi.ModelID})
	}
	for _, m := range models.Data {
		info.Models = append(info.Models, m.ID)
		if m.ID == c.model || info.MaxModelLen == 0 {
			if m.MaxModelLen > 0 {
				info.MaxModelLen = m.MaxModelLen
			}
		}
	}
	var ver struct {
		Version string `json:"version"`
	}
	if c.getJSON(ctx, "/version", &ver) == nil {
		info.Version = ver.Version
	}
	if info.MaxModelLen == 0 || info.Version == "" {
		// llama.cpp server: /v1/models has no max_model_len and there is
		// no /version, but GET /props gives a request's context (a slot's
		// n_ctx) and the build.
		//
		// Note: the KV budget is not derived from it: with a unified KV
		// cache the slots share n_ctx, without one each slot has its own,
		// and /props does not say which.
		var props struct {
			Settings struct {
				NCtx int64 `json:"n_ctx"`
			} `json:"default_generation_settings"`
			BuildInfo  string `json:"build_info"`
			TotalSlots int    `json:"total_slots"`
		}
		if c.getJSON(ctx, "/props", &props) == nil {
			info.Slots = props.TotalSlots
			if info.MaxModelLen == 0 && props.Settings.NCtx > 0 {
				info.MaxModelLen = props.Settings.NCtx
			}
			if info.Version == "" && props.BuildInfo != "" {
				info.Version, info.Engine = props.BuildInfo, "llama.cpp"
			}
		}
	}
	if info.MaxModelLen == 0 || info.Version == "" {
		// TGI: /info gives max_total_tokens (prompt + output of one
		// request) and the version.
		if t := getTGI(); t.ModelID != "" {
			if info.MaxModelLen == 0 {
				info.MaxModelLen = t.MaxTotalTokens
			}
			if info.Version == "" {
				info.Version = t.Version
			}
		}
	}
	if info.Version == "" {
		// Ollama: GET /api/version ({"version":"0.6.5"}).
		if c.getJSON(ctx, "/api/version", &ver) == nil && ver.Version != "" {
			info.Version, info.Engine = ver.Version, "ollama"
		}
	}
	snap, err := c.scrape(ctx)
	info.Metrics = err == nil
	if kvFlag > 0 {
		info.KVTokens, info.KVSource = kvFlag, "flag"
	} else {
		var si struct {
			MaxTotalNumTokens int64 `json:"max_total_num_tokens"`
		}
		if c.getJSON(ctx, "/get_server_info", &si) == nil && si.MaxTotalNumTokens > 0 {
			info.KVTokens, info.KVSource = si.MaxTotalNumTokens, "/get_server_info"
		} else if snap.kvTokens > 0 {
			info.KVTokens, info.KVSource = snap.kvTokens, "/metrics"
		} else if t := getTGI(); t.MaxBatchTotalTokens > 0 {
			// The tokens (prompts and outputs) TGI's router lets one batch
			// hold: the budget it schedules against.
			info.KVTokens, info.KVSource = t.MaxBatchTotalTokens, "/info"
		}
	}
	return info, nil
}
