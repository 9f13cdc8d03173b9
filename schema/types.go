package schema

import "time"

// Version is the schema_version written into every row and into the Parquet
// file metadata. Bump it when a column changes meaning; adding a nullable
// column does not change it (readers use union_by_name).
const Version int32 = 1

// Phase names the kind of measurement a row holds.
type Phase string

// The phases of a speed-test matrix.
const (
	// PhasePrefill rows hold prompt processing speed at one context length.
	PhasePrefill Phase = "prefill"
	// PhaseDecode rows hold sustained generation speed at one context length
	// and one number of simultaneous requests.
	PhaseDecode Phase = "decode"
	// PhaseServe rows hold an end-to-end serving benchmark of another tool
	// (vLLM bench serve, SGLang bench_serving, guidellm, AIPerf, llmperf):
	// a stream of requests at a request rate or a concurrency, where
	// prefill and decode overlap. They compare only with other serve rows.
	PhaseServe Phase = "serve"
)

// Status says whether a cell holds a usable measurement.
type Status string

// The statuses a cell can have.
const (
	// StatusValid is a completed, usable measurement.
	StatusValid Status = "valid"
	// StatusLooped is a cell the benchmark discarded because the model
	// repeated itself.
	StatusLooped Status = "looped"
	// StatusOverCapacity is a cell that was not run because it would exceed
	// the server's KV cache.
	StatusOverCapacity Status = "over_capacity"
	// StatusSkipped is a cell the user chose not to run.
	StatusSkipped Status = "skipped"
	// StatusError is a cell whose requests failed past the error threshold.
	StatusError Status = "error"
)

// Source formats, stored in Run.SourceFormat.
const (
	FormatText     = "text"
	FormatHTML     = "html"
	FormatMarkdown = "markdown"
	FormatRun      = "run"
)

// KV is one key/value pair, kept in the order it was printed.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Field is one metadata pair of a document as printed, with the section
// (Hardware, Engine, Run, …) it appeared under.
type Field struct {
	Section string `json:"section"`
	Key     string `json:"key"`
	Value   string `json:"value"`
}

// Metric is a numeric figure that has no column of its own, such as a
// p99.9 latency from another tool. Name follows the column naming rules
// (snake_case, unit suffix).
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Matrix is one speed-test document: the run that produced it and every
// measurement it holds. It is what parsers return, what the runner
// produces and what the archive stores (as rows of its tables).
type Matrix struct {
	Run          Run           `json:"run"`
	Measurements []Measurement `json:"measurements"`
	// Samples holds per-request records when the producer kept them (the
	// runner does; published documents do not).
	Samples []Sample `json:"samples,omitempty"`
}

// Run is one row of the runs table: who measured what, on which hardware
// and engine, and how. Pointer fields are null when the document does not
// say. Every column is described in docs/schema.md.
type Run struct {
	RunID         string    `json:"run_id"`
	SchemaVersion int32     `json:"schema_version"`
	SourcePath    string    `json:"source_path"`
	SourceSHA256  string    `json:"source_sha256"`
	SourceFormat  string    `json:"source_format"`
	IngestedAt    time.Time `json:"ingested_at"`
	// Cells is the number of cells the run's measurements hold, counted
	// by the archive when it writes the run (nil for runs written before
	// the column existed): listings read it instead of the measurements.
	Cells *int32 `json:"cells,omitempty"`

	Title    string `json:"title"`
	Subtitle string `json:"subtitle,omitempty"`
	Model    string `json:"model"`
	ModelID  string `json:"model_id"`

	GPU          string   `json:"gpu"`
	GPUCount     *int32   `json:"gpu_count,omitempty"`
	VRAMGB       *float64 `json:"vram_gb"`
	HardwareType string   `json:"hardware_type"`
	OS           string   `json:"os"`

	Engine           string `json:"engine"`
	EngineVersion    string `json:"engine_version"`
	Quantization     string `json:"quantization"`
	Backend          string `json:"backend"`
	EngineRepository string `json:"engine_repository"`
	Build            string `json:"build"`
	EngineCommit     string `json:"engine_commit"`

	ServedModel     string   `json:"served_model"`
	Revision        string   `json:"revision"`
	BenchTool       string   `json:"bench_tool"`
	BenchVersion    string   `json:"bench_version"`
	DecodeTest      string   `json:"decode_test"`
	PrefillMode     string   `json:"prefill_mode"`
	MeasureSeconds  *float64 `json:"measure_seconds"`
	MaxOutputTokens *int64   `json:"max_output_tokens"`

	// LaunchCommand is the server's launch command with secrets redacted.
	LaunchCommand        string   `json:"launch_command"`
	TensorParallel       *int32   `json:"tensor_parallel"`
	MaxModelLen          *int64   `json:"max_model_len"`
	GPUMemoryUtilization *float64 `json:"gpu_memory_utilization"`
	// LaunchQuantization is the value of --quantization (or -q) in the
	// launch command; LaunchDType the value of --dtype.
	LaunchQuantization string `json:"launch_quantization,omitempty"`
	LaunchDType        string `json:"launch_dtype,omitempty"`
	// LaunchFlags holds every flag of the launch command in order, values
	// redacted where secret; a flag without a value has an empty Value.
	LaunchFlags []KV `json:"launch_flags"`
	// Metadata holds every key/value pair the document printed, in order,
	// known or not, so nothing is dropped.
	Metadata []Field `json:"metadata"`

	// Fields a measuring run fills (cmd/run); null for published documents.
	StartedAt      *time.Time `json:"started_at,omitempty"`
	FinishedAt     *time.Time `json:"finished_at,omitempty"`
	Host           string     `json:"host,omitempty"`
	ClientVersion  string     `json:"client_version,omitempty"`
	ServerURL      string     `json:"server_url,omitempty"`
	Endpoint       string     `json:"endpoint,omitempty"`
	KVBudgetTokens *int64     `json:"kv_budget_tokens,omitempty"`
	Dataset        string     `json:"dataset,omitempty"`

	// PowerSource names where a run's energy figures came from (a DCGM
	// exporter, nvidia-smi, amd-smi, a Prometheus query, or the tool whose
	// file was read); empty when no energy was recorded.
	PowerSource string `json:"power_source,omitempty"`
	// IdlePowerW is the power of all the server's GPUs, in watts, measured
	// before any load, so that a cell's share above idle can be read.
	IdlePowerW *float64 `json:"idle_power_w,omitempty"`
}

// Measurement is one row of the measurements table: one cell of a matrix
// (a phase, a context and a concurrency). Pointer fields are null when the
// document does not print the figure. Latencies are milliseconds, rates
// tokens per second; every formula is in docs/schema.md.
type Measurement struct {
	RunID         string `json:"run_id"`
	Phase         Phase  `json:"phase"`
	ContextLabel  string `json:"context_label"`
	ContextTokens *int64 `json:"context_tokens"`
	Concurrency   *int32 `json:"concurrency"`
	Status        Status `json:"status"`
	// StatusReason explains a non-valid status (error text, loop evidence);
	// on a valid cell of a run it holds notes ("note: …": a /metrics scrape
	// skipped, a server that ignored max_tokens).
	StatusReason string `json:"status_reason,omitempty"`
	// Repeat numbers repeated measurements of the same cell from 0; null
	// when the cell was measured once.
	Repeat *int32 `json:"repeat,omitempty"`

	TotalTokS         *float64 `json:"total_tok_s"`
	PerRequestTokS    *float64 `json:"per_request_tok_s"`
	TTFTMs            *float64 `json:"ttft_ms"`
	TBTMs             *float64 `json:"tbt_ms"`
	AvgActiveRequests *float64 `json:"avg_active_requests"`
	CompletedRequests *int64   `json:"completed_requests"`
	OutputTokens      *int64   `json:"output_tokens"`
	MeasuredS         *float64 `json:"measured_s"`

	// Distributions, when the producer kept them.
	TTFTMeanMs     *float64 `json:"ttft_mean_ms,omitempty"`
	TTFTP50Ms      *float64 `json:"ttft_p50_ms,omitempty"`
	TTFTP90Ms      *float64 `json:"ttft_p90_ms,omitempty"`
	TTFTP99Ms      *float64 `json:"ttft_p99_ms,omitempty"`
	TTFCMs         *float64 `json:"ttfc_ms,omitempty"`
	TBTMeanMs      *float64 `json:"tbt_mean_ms,omitempty"`
	TBTP50Ms       *float64 `json:"tbt_p50_ms,omitempty"`
	TBTP90Ms       *float64 `json:"tbt_p90_ms,omitempty"`
	TBTP99Ms       *float64 `json:"tbt_p99_ms,omitempty"`
	ChunkGapMeanMs *float64 `json:"chunk_gap_mean_ms,omitempty"`
	ChunkGapP50Ms  *float64 `json:"chunk_gap_p50_ms,omitempty"`
	ChunkGapP90Ms  *float64 `json:"chunk_gap_p90_ms,omitempty"`
	ChunkGapP99Ms  *float64 `json:"chunk_gap_p99_ms,omitempty"`
	E2EMeanMs      *float64 `json:"e2e_mean_ms,omitempty"`
	E2EP50Ms       *float64 `json:"e2e_p50_ms,omitempty"`
	E2EP90Ms       *float64 `json:"e2e_p90_ms,omitempty"`
	E2EP99Ms       *float64 `json:"e2e_p99_ms,omitempty"`

	// Token counts and rates.
	PromptTokens      *int64   `json:"prompt_tokens,omitempty"`
	InputTokensTotal  *int64   `json:"input_tokens_total,omitempty"`
	InputTokS         *float64 `json:"input_tok_s,omitempty"`
	RequestRate       *float64 `json:"request_rate,omitempty"`
	RequestThroughput *float64 `json:"request_throughput,omitempty"`
	GoodputReqS       *float64 `json:"goodput_req_s,omitempty"`
	ErroredRequests   *int64   `json:"errored_requests,omitempty"`

	// Server-side figures scraped from /metrics around the cell.
	ServerGenerationTokens *int64   `json:"server_generation_tokens,omitempty"`
	ServerPreemptions      *int64   `json:"server_preemptions,omitempty"`
	ServerPrefixCacheHits  *float64 `json:"server_prefix_cache_hit_rate,omitempty"`
	ServerSpecAcceptRate   *float64 `json:"server_spec_accept_rate,omitempty"`
	ServerRunningAvg       *float64 `json:"server_running_avg,omitempty"`

	// Energy over the cell's window, of all the server's GPUs:
	// EnergyJ joules, AvgPowerW = EnergyJ ÷ MeasuredS watts, and
	// OutputTokPerJ = OutputTokens ÷ EnergyJ (docs/schema.md).
	EnergyJ       *float64 `json:"energy_j,omitempty"`
	AvgPowerW     *float64 `json:"avg_power_w,omitempty"`
	OutputTokPerJ *float64 `json:"output_tok_per_j,omitempty"`

	// Loop evidence for looped cells.
	LoopPeriodChars *int64 `json:"loop_period_chars,omitempty"`
	LoopCycles      *int64 `json:"loop_cycles,omitempty"`

	// Extra holds numeric figures without a column of their own.
	Extra []Metric `json:"extra,omitempty"`
	// SourceLine is the 1-based line of the row in its source document
	// (0 when it has none).
	SourceLine int64 `json:"source_line"`
	// Printed maps the document's column headers to the cell text as
	// printed, so the original text is recoverable.
	Printed []KV `json:"printed,omitempty"`
}

// Sample is one request of a measuring run: one row of the samples table.
// StartMs is milliseconds from the start of the cell; TTFTMs and TBTMs are
// the request's own latencies.
type Sample struct {
	RunID        string  `json:"run_id"`
	Phase        Phase   `json:"phase"`
	ContextLabel string  `json:"context_label"`
	Concurrency  int32   `json:"concurrency"`
	Repeat       int32   `json:"repeat"`
	Request      int64   `json:"request"`
	StartMs      float64 `json:"start_ms"`
	PromptTokens int64   `json:"prompt_tokens"`
	// OutputTokens counts the tokens this request produced inside the
	// measurement window.
	OutputTokens int64    `json:"output_tokens"`
	TTFTMs       *float64 `json:"ttft_ms"`
	TBTMs        *float64 `json:"tbt_ms"`
	DecodeTokS   *float64 `json:"decode_tok_s"`
	InWindow     bool     `json:"in_window"`
	Error        string   `json:"error,omitempty"`
}
