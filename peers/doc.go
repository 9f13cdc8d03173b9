// Package peers reads the result files of other benchmark tools (vLLM's
// bench serve, SGLang's bench_serving, guidellm, AIPerf and GenAI-Perf,
// llmperf, genai-bench, inference-perf, Hugging Face's
// inference-benchmarker, llm-inference-bench's JSON) into schema
// matrices, as package parse does for speed-test documents.
//
// # Pipeline
//
//	bytes ──Detect──► format ──reader.parse──► []*schema.Matrix ──Read: align extras, stamp, id
//
// Each tool has a file of its own (vllm.go, sglang.go, guidellm.go, …)
// that declares its reader (registry.go): the format name stored in
// Run.SourceFormat, the function that reads a whole file, and the shapes
// that recognise the tool's files. A shape is data where it can be: the
// top-level keys of the file's first JSON object (signature: keys that
// are all there, one of which is there, keys ending so, keys absent, a
// key whose value holds a text, an AIPerf statistics block), or a small
// function of the text for a CSV or YAML. Shapes carry a rank: Detect
// tries the text shapes, then the JSON ones, in rank order across tools
// (TestDetectionOrder pins it), and names the files a tool writes that
// speedmatrix does not read (a shape with refuse) and the files that
// only resemble a tool's (resemble.go), with what to ingest instead.
//
// Shared by several readers: json.go (num: a JSON number that may be a
// string, null, Infinity; positions of keys and lines), flat.go,
// flat_arrays.go and flat_runs.go (the flat result objects of vLLM,
// SGLang and llmperf; splitting appended results into runs), cells.go
// (a cell's identity, duplicates and repeats), matrix.go (starting a
// run and adding figures).
//
// Energy and GPU count (issue 26): energy.go holds the rules every reader
// applies to what its tool says of power and parallelism. setEnergy
// checks a cell's energy or mean power (a unit it knows, 1–2,000 W per
// GPU) and fills energy_j, avg_power_w = energy_j ÷ measured_s and
// output_tok_per_j = output_tokens ÷ energy_j, or refuses the figure into
// a run metadata warning (section Warnings); setGPUCount keeps the most
// direct source's count, warning of another that disagrees, and records
// the source (Hardware "GPU count source"). The tools' own figures:
// aiperf_energy.go (AIPerf and GenAI-Perf GPU telemetry: distinct GPUs,
// total_gpu_energy, the energy_consumption counter), llmbench_energy.go
// (the hardware monitor's gpu_count and power), sglang.go (server_info's
// tp × pp × dp), vllm.go (a sweep's parallel sizes). The raw figures stay
// in extra as before.
//
// Read is the entry point: it detects (or takes) the format, reads the
// file, orders every row's extra figures alike and stamps each run with
// its source and id (internal/source), as parse does for documents.
// Package parse calls it before trying the document formats, so
// parse.Parse and parse.ParseAll read either; callers need not import
// peers.
//
// # Errors
//
// Problems with the content are *Error values (parse.Error: the same
// type), "file:line: message". Nothing a file says is dropped silently:
// a figure not mapped to a column lands in Measurement.Extra, a setting
// in Run.Metadata (TestPeerNothingDropped checks every number of every
// fixture).
//
// The fixtures are under parse/testdata/peers (README.md gives their
// origins, SYNTHETIC.md the made ones).
package peers
