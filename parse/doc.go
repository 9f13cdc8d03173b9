// Package parse turns published speed-test documents into a
// schema.Matrix.
//
// # Pipeline
//
//	bytes ──Detect──► format ──extractor──► rawDoc ──build──► schema.Matrix
//
// Parse (or ParseBytes) detects the format from the content unless told
// (text, HTML or Markdown; other tools' result files are read by package
// peers, which parse asks first: peers.Read). A document is one run; an
// appended vLLM or SGLang result file whose results differ in model or
// configuration holds one run per configuration (peers' splitRuns):
// ParseAll returns them all, Parse
// refuses such a file with the list of its runs. Each format has an extractor that only finds
// structure and keeps strings as printed, with their line numbers:
// extractText (text.go) for the flattened text of the seeds, extractHTML
// (html.go) and extractMarkdown (markdown.go). They all produce a rawDoc
// (raw.go). One builder, build (build.go), interprets a rawDoc, so every
// form of a document yields identical rows and the same run id.
//
// ParseAllStream (stream.go) is ParseAll for a document of more than
// 65,536 rows (one 60 MB table): buildStream checks its rows and hashes
// them for the run id in pieces, keeping a hashed key per row, and Rows
// reads them again, in pieces, for the archive's writer — the same rows,
// id and errors as build, without holding ~1 KB per row.
//
// Every matrix any reader returns (document or other tool's file, whole
// or in pieces) passes admit (trust.go) before its run id is computed:
// redact.Walk over every string, then schema's CheckFigures (a negative
// or infinite figure is a file:line error naming the field; Infinity or
// NaN written by another tool makes the cell an error with the reason).
// Error texts are redacted with the document's own secret values too.
//
// # What build does
//
//   - The "All measurements" table is the record: one Measurement per row.
//     Columns are found by header text, case- and space-insensitively,
//     with close variants ("Requests at once" or "Concurrency", "TTFT" or
//     "TTFT (ms)"); an unknown column is kept in Printed and, when numeric,
//     in Extra under a snake_case name with a unit suffix. Every cell's text
//     is kept in Measurement.Printed under its header as printed, and
//     SourceLine is the row's line.
//   - Numbers are normalized by number.go: "55K" = 55000, "1,627.8",
//     "9,756", "3.1 ms", "30.0 s" (seconds), "—" = null. A number that is
//     not well formed (a stray comma, a wrong unit) is an error at its line.
//   - Numbers with K are read with the decimal point shifted, so "32.2K"
//     is exactly 32200.
//   - Phases: Prefill → prefill; Sustained decode or Decode → decode;
//     Serve → serve (other tools' serving benchmarks rendered as documents).
//     Statuses: Valid, Looped, Over capacity, Skipped, Error.
//   - ContextLabel stays as printed ("123K"). ContextTokens is the label ×
//     1024 (the tool behind the seeds counts 1024 tokens per K): the
//     documents print rounded labels, not the exact prompt length, so
//     ContextTokens is the nominal context, not a measured token count.
//     A label without K ("0", "509") is that many tokens; "unknown" (a
//     serve row of a tool that recorded no prompt length) has none. A context_tokens
//     column (documents written by render for a measuring run) overrides
//     the label × 1024.
//   - Columns headed by a measurements column name (ttft_p90_ms,
//     errored_requests, chunk_gap_p50_ms, status_reason, repeat, …: what
//     render writes for a measuring run) set that typed field, so a run's
//     document reads back to exactly the rows the run archived.
//   - A row's identity is its phase, context, concurrency and repeat, plus
//     the request rate for serve rows. A second row with the same identity
//     is an error naming both lines, whether it repeats or contradicts the
//     first; repeats and rate sweeps are distinct rows.
//   - Agreement: every decode-matrix cell and every prefill figure must
//     agree with its table row (tok/s and TTFT at the printed precision,
//     or the status for "Looped"/"Over capacity" cells); a disagreement is
//     an error naming both lines. Cells printed without a separator
//     ("5,319.41,644 ms TTFT") are split at every point that leaves a
//     well-formed tok/s figure and a well-formed TTFT, and the split that
//     agrees with the table is taken ("5,319.4" and "1,644 ms"). A matrix
//     cell without a table row is an error too. A matrix whose caption
//     names per-request tok/s is compared with that column.
//   - The rate table (serverates.go: the "Serve by request rate" section
//     render writes for serve rows) is a view of the serve rows: each of
//     its rows names one by context and load ("4/s", "64 streams"), and
//     each cell must agree with that row's figure at the printed
//     precision, and the arrival its caption names must be the run's
//     Arrival pair; a row naming no serve row, a column it cannot check or
//     a disagreeing cell or caption is an error at the rate table's line.
//   - Metadata (metadata.go): model, GPU (and a "2×" count) and VRAM from
//     the title "MODEL on GPU NNGB", overridden by the Hardware section;
//     Engine and Run pairs fill their columns (keys matched case- and
//     space-insensitively); every pair, known or not, is kept in
//     Run.Metadata in order with its section. The pairs a measuring run's
//     document prints (Host, Server URL, Endpoint, Started, Finished, KV
//     budget, Model id, Tensor parallel, Max model length, …) fill their
//     Run fields too; a printed pair wins over what the launch command
//     implies. "Benchmark tool
//     llm-inference-bench v0.7.6" becomes bench_tool "llm-inference-bench"
//     and bench_version "0.7.6": the "v" is dropped so versions compare as
//     printed by other tools; the printed text stays in Metadata.
//   - The launch command (docspec.ParseLaunch, also used by render and
//     cmd/run)
//     is redacted word by word by package redact (--api-key and other
//     key/token/secret flags, *_TOKEN= and *_KEY= variables, after &&, ;
//     and |, inside bash -c "…", bearer headers, sk-/hf_ keys, URL user
//     information), and its model, tensor parallelism, maximum length,
//     memory fraction, quantization, dtype and all flags are taken from
//     the command that starts the server (after cd … &&, inside bash -c).
//     No secret reaches any Run field: metadata values under secret keys
//     and recognizable keys anywhere are redacted too.
//   - GPU count: the title's "2×" or a Hardware "GPU count" pair; else
//     the launch command's tensor × pipeline × data parallel sizes
//     (docspec's Launch.GPUs: vLLM, SGLang, TensorRT-LLM, TGI, a size the
//     command leaves out being the engine's default of 1). A stated count
//     the command contradicts is kept, with a run metadata warning
//     (section Warnings).
//
// # Errors
//
// Problems with the content are *Error values, "file:line: message".
// Line is 0 only when the document has no line to point at (an empty
// document, one larger than MaxDocumentBytes). A document without an All
// measurements table is an error at its last recognized line: the
// summary matrix alone is not the record.
package parse
