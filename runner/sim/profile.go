package sim

import (
	"math"
	"sort"
	"time"
)

// RatePoint is one point of a rate-by-context table: TokS tokens per second
// for a prompt of Context tokens.
type RatePoint struct {
	Context int64
	TokS    float64
}

// Profile describes the simulated model server: how fast it prefills and
// decodes, how much fits in its KV cache, what its stream looks like and
// which faults it injects. Start from DefaultProfile or ProfileFromMatrix
// and change fields; New gives zero numeric fields DefaultProfile's values
// (a zero step model included), except PrefixCacheTokens, CachedTokS,
// LoopAfter and the booleans, whose zero means off.
type Profile struct {
	// Name labels the profile in /version and in logs.
	Name string
	// Energy is the GPUs' power behind the DCGM energy counter /metrics
	// serves (energy.go).
	Energy EnergyModel
	// ModelName is the model id served by /v1/models and echoed in every
	// response. Requests may name any model.
	ModelName string

	// PrefillTokS is prompt processing speed (tokens/s) by prompt length,
	// sorted by Context; lengths between points are interpolated linearly
	// and lengths outside are clamped to the nearest point. Prefilling the
	// uncached part of a prompt of P tokens takes uncached/rate(P).
	PrefillTokS []RatePoint
	// CachedTokS, when > 0, makes prefix-cache hits cost time too: cached
	// prompt tokens go through prefill at this rate (tokens/s) instead of
	// for free. Calibrated profiles use it to reproduce the TTFT a real
	// server shows for warm prompts (hybrid models that must restore state,
	// per-request overheads that grow with context).
	CachedTokS float64
	// MaxBatchedTokens bounds the prefill tokens processed in one engine
	// step (vLLM's chunked prefill budget); decode steps run between the
	// chunks of a long prompt.
	MaxBatchedTokens int64

	// StepBase, StepPerSeq and StepPerKToken model one decode step (one
	// token, or ChunkTokens tokens, for every running request):
	//
	//	step = StepBase + StepPerSeq×running + StepPerKToken×(context in batch)/1000
	//
	// where the context in the batch sums prompt and generated tokens of
	// every running request.
	StepBase      time.Duration
	StepPerSeq    time.Duration
	StepPerKToken time.Duration
	// StepCorrection, when set, multiplies the modelled step time by a
	// factor looked up by (per-request context, running requests): it
	// carries what the linear model above misses in a calibrated profile.
	StepCorrection *Grid

	// KVTokens is the KV-cache budget in tokens: a request is admitted only
	// while the prompt and generated tokens of all running requests fit;
	// when a step would overflow it, the most recently admitted request is
	// preempted (counted in vllm:num_preemptions_total) and recomputed
	// later.
	KVTokens int64
	// BlockSize is the KV block size in tokens: the prefix-cache
	// granularity and the block_size label of vllm:cache_config_info.
	BlockSize int64
	// MaxModelLen bounds prompt + max_tokens; longer requests get HTTP 400.
	MaxModelLen int64
	// MaxRunning bounds the requests decoding at once (vLLM's
	// max_num_seqs); more wait in the queue.
	MaxRunning int
	// PrefixCacheTokens is the prefix-cache capacity in tokens (least
	// recently used blocks are evicted); 0 disables prefix caching.
	PrefixCacheTokens int64

	// ChunkTokens is the number of tokens each step adds to a request and
	// so the tokens per SSE chunk (1; 3 models MTP or speculative
	// decoding). A chunk may carry more when the writer fell behind and
	// merged several steps, as vLLM does.
	ChunkTokens int
	// StrictChunks never merges steps: however far the writer fell
	// behind the engine, each step's ChunkTokens tokens go out as their
	// own SSE event with their own write and flush (so, with ChunkTokens 1,
	// exactly one token per event, as servers that write every token as
	// it is sampled do). Off, a writer that lags sends what accumulated as
	// one event, as vLLM does, which spares a lagging client reads.
	StrictChunks bool
	// Reasoning sends the first ReasoningTokens tokens of each answer as
	// reasoning deltas in the field named ReasoningField
	// ("reasoning_content", vLLM before 0.10 and SGLang, or "reasoning").
	Reasoning       bool
	ReasoningTokens int
	ReasoningField  string
	// LoopAfter makes every answer repeat one fixed paragraph after this
	// many tokens (0 = never), as a model stuck in a loop does. LoopCells,
	// when non-empty, restricts looping to requests of those cells: a
	// stream's cell is its prompt's context label and the requests in the
	// server (running + waiting) when it reaches LoopAfter tokens.
	LoopAfter int
	LoopCells []LoopCell
	// EOSMeanTokens is the mean answer length of a request sent without
	// ignore_eos: its length is drawn uniformly from [1, 2×mean] by a
	// generator seeded with Seed and the request number, then clamped to
	// [min_tokens, max_tokens].
	EOSMeanTokens int
	// Seed makes answer lengths and texts reproducible.
	Seed uint64

	// CharsPerToken is the tokenizer: a text of n bytes is
	// ceil(n/CharsPerToken) tokens. Chat requests add ChatTemplateTokens
	// per message, as a chat template does.
	CharsPerToken      float64
	ChatTemplateTokens int

	// RoleChunkAtArrival sends the role-only first chunk as soon as the
	// request is accepted, before prefill; otherwise it goes out just
	// before the first token, as vLLM does.
	RoleChunkAtArrival bool
	// FinishChunk sends finish_reason in an extra chunk with empty content
	// after the last token, as SGLang and llama.cpp do, instead of on the
	// last token's chunk, as vLLM does.
	FinishChunk bool
	// SGLangServerInfo serves GET /get_server_info with
	// max_total_num_tokens = KVTokens, as SGLang does.
	SGLangServerInfo bool
	// APIKey, when set, makes every /v1/ endpoint require the header
	// "Authorization: Bearer APIKey" (401 otherwise), as vLLM's --api-key
	// does; /metrics, /tokenize, /version and /health stay open.
	APIKey string
	// NoMetrics turns GET /metrics into 404, as servers without Prometheus
	// metrics answer; NoTokenize does the same to POST /tokenize, as
	// servers without it answer (clients then calibrate from usage).
	NoTokenize bool
	NoMetrics  bool

	// MaxRecords, when > 0, bounds the truth kept: Requests returns only
	// the most recent MaxRecords requests, older records are dropped (each
	// costs 16 bytes per chunk). Long runs that do not read the truth, such
	// as a demo, set it or call Reset between cells.
	MaxRecords int

	// Faults lists injected faults; the first one that fires for a request
	// applies.
	Faults []Fault

	// Speedup divides every modelled duration (prefill, steps, stalls): a
	// profile calibrated from a real run can replay its shape Speedup
	// times faster. Rates reported by a client then read Speedup times the
	// calibrated ones. 0 means 1.
	Speedup float64
}

// LoopCell names one decode cell whose requests loop: requests whose prompt
// has ContextLabel (floor(tokens/1024), as "8K") while Concurrency
// requests (themselves included) are in the server.
type LoopCell struct {
	ContextLabel string
	Concurrency  int
}

// DefaultProfile returns a small, fast profile: ~200 µs decode steps, a 1M
// token KV cache, max_model_len 32768, prefill at 200K–100K tok/s, so that
// a 30-cell run finishes in seconds.
func DefaultProfile() Profile {
	return Profile{
		Name:      "default",
		ModelName: "sim",
		PrefillTokS: []RatePoint{
			{Context: 1024, TokS: 200_000},
			{Context: 32768, TokS: 100_000},
		},
		MaxBatchedTokens:  8192,
		StepBase:          200 * time.Microsecond,
		StepPerSeq:        2 * time.Microsecond,
		StepPerKToken:     20 * time.Nanosecond,
		KVTokens:          1 << 20,
		BlockSize:         16,
		MaxModelLen:       32768,
		MaxRunning:        4096,
		PrefixCacheTokens: 1 << 20,
		ChunkTokens:       1,
		ReasoningTokens:   32,
		ReasoningField:    "reasoning_content",
		EOSMeanTokens:     256,
		Seed:              1,
		CharsPerToken:     4,
	}
}

// withDefaults fills zero fields that have an obvious neutral value.
func (p Profile) withDefaults() Profile {
	d := DefaultProfile()
	p.Energy = p.Energy.withDefaults()
	if p.Name == "" {
		p.Name = "custom"
	}
	if p.ModelName == "" {
		p.ModelName = d.ModelName
	}
	if len(p.PrefillTokS) == 0 {
		p.PrefillTokS = d.PrefillTokS
	}
	if p.StepBase <= 0 && p.StepPerSeq <= 0 && p.StepPerKToken <= 0 {
		// A step model of zero would make the engine spin.
		p.StepBase, p.StepPerSeq, p.StepPerKToken = d.StepBase, d.StepPerSeq, d.StepPerKToken
	}
	if p.MaxBatchedTokens <= 0 {
		p.MaxBatchedTokens = d.MaxBatchedTokens
	}
	if p.KVTokens <= 0 {
		p.KVTokens = d.KVTokens
	}
	if p.BlockSize <= 0 {
		p.BlockSize = d.BlockSize
	}
	if p.MaxModelLen <= 0 {
		p.MaxModelLen = d.MaxModelLen
	}
	if p.MaxRunning <= 0 {
		p.MaxRunning = d.MaxRunning
	}
	if p.ChunkTokens <= 0 {
		p.ChunkTokens = 1
	}
	if p.ReasoningField == "" {
		p.ReasoningField = d.ReasoningField
	}
	if p.Reasoning && p.ReasoningTokens <= 0 {
		p.ReasoningTokens = d.ReasoningTokens
	}
	if p.EOSMeanTokens <= 0 {
		p.EOSMeanTokens = d.EOSMeanTokens
	}
	if p.CharsPerToken <= 0 {
		p.CharsPerToken = d.CharsPerToken
	}
	if p.Speedup <= 0 {
		p.Speedup = 1
	}
	sort.Slice(p.PrefillTokS, func(i, j int) bool { return p.PrefillTokS[i].Context < p.PrefillTokS[j].Context })
	return p
}

// PrefillRate returns the prefill speed in tokens/s for a prompt of ctx
// tokens (interpolated in PrefillTokS).
func (p *Profile) PrefillRate(ctx int64) float64 {
	pts := p.PrefillTokS
	if len(pts) == 0 {
		return math.Inf(1)
	}
	if ctx <= pts[0].Context {
		return pts[0].TokS
	}
	last := pts[len(pts)-1]
	if ctx >= last.Context {
		return last.TokS
	}
	i := sort.Search(len(pts), func(i int) bool { return pts[i].Context >= ctx })
	a, b := pts[i-1], pts[i]
	f := float64(ctx-a.Context) / float64(b.Context-a.Context)
	return a.TokS + f*(b.TokS-a.TokS)
}

// StepTime returns the modelled duration of one decode step with running
// requests holding contextTokens tokens in total (before Speedup).
func (p *Profile) StepTime(running int, contextTokens int64) time.Duration {
	if running <= 0 {
		return 0
	}
	d := float64(p.StepBase) + float64(p.StepPerSeq)*float64(running) + float64(p.StepPerKToken)*float64(contextTokens)/1000
	if p.StepCorrection != nil {
		d *= p.StepCorrection.At(float64(contextTokens)/float64(running), float64(running))
	}
	return time.Duration(d)
}

// PredictTotalTokS returns the decode throughput (tokens/s over all
// requests, before Speedup) the profile models for running requests whose
// context averages ctx tokens.
func (p *Profile) PredictTotalTokS(ctx int64, running int) float64 {
	st := p.StepTime(running, ctx*int64(running))
	if st <= 0 {
		return 0
	}
	k := max(p.ChunkTokens, 1)
	return float64(running*k) / st.Seconds()
}
