// Package runner measures speed-test matrices against an OpenAI-compatible
// streaming server (vLLM, SGLang, TGI, llama.cpp server, or runner/sim).
//
// The pipeline of a run (Runner.Run):
//
//  1. Discover (capacity.go): /v1/models (max_model_len), /version (else
//     llama.cpp's /props: a slot's n_ctx and the build; TGI's /info:
//     max_total_tokens and the version), the KV budget (-kv-tokens,
//     SGLang /get_server_info, vLLM /metrics cache_config_info, TGI /info
//     max_batch_total_tokens), whether /metrics exists and whether /tokenize
//     (vLLM's or llama.cpp's form, tokenize.go) counts two probe texts as
//     the endpoint's usage does, up to a fixed offset (the chat template).
//     The probes fit the server: the short one first, the long one cut to
//     max_model_len less that offset and halved on a context refusal; an
//     offset no probe could check is said in the run's metadata, and
//     prompt lengths are then not called exact. Contexts
//     are capped at max_model_len − max_tokens − 64 and labelled as the
//     seeds do (floor(tokens/1024) "K"); a context the cap would leave
//     empty or cut by more than half is an error before any load. Cells
//     whose C × (context + max_tokens) exceeds the budget are
//     over_capacity and not run; so are cells at least as large as one
//     where the server answered that its KV cache was full.
//  2. Prompts (prompt.go): neutral prose after a random per-run tag, fitted
//     to the context with POST /tokenize plus that offset (exact) or with max_tokens=1
//     probes that carry another tag (within 1%).
//  3. Prefill (matrix.go): prompt tokens / TTFT of a cold prompt: the
//     context's first scout, or the median of unique prompts in
//     standalone mode.
//  4. Decode cells (cell.go): a scout request puts the prompt in the
//     server's prefix cache, then C closed-loop streams share one
//     transport. A shared cache (vLLM, SGLang) serves every stream's
//     prompt from it; llama.cpp and Ollama keep a cache per slot, so the
//     scout warms one slot and the other streams' first requests prefill
//     cold (their TTFTs are among the cell's; later requests of a stream
//     find its slot warm). The window starts when
//     every stream produces tokens (and /metrics shows C running, none
//     waiting) and lasts the cell's duration; a watchdog fails stalled
//     requests; a loop (loop.go) or a run of failures ends the cell.
//  5. Streams (request.go, sse.go, chunk.go): the SSE reader stamps each
//     read when its bytes arrive, then a hand-written scanner pulls the
//     few fields needed out of each chunk's JSON, appending one tick
//     (time, cumulative tokens) per token-bearing chunk to a reused log.
//     All streams' lines longer than a reader's buffer share one memory
//     budget (linebudget.go).
//  6. Figures (window.go, stats.go): tokens inside the window per request,
//     total and per-request rates, TTFT/TTFC/TBT/chunk-gap/E2E
//     distributions, average active requests, completions and errors;
//     /metrics deltas around the cell (metrics.go).
//  7. Energy (power.go): with Config.Power, a meter (package power) runs
//     from before the first cell, whose idle power it measures, to the
//     end; each decode cell's window gets its energy, or a note saying
//     why not (never an error).
//  8. Checkpoints (checkpoint.go) after each cell (each load of a serving
//     run); progress events (progress.go) for the command's stderr.
//
// Every note the runner makes before or during a run (contexts measured
// at another length, the /tokenize offset, a concurrency above the
// server's slots, request fields the server refused) is kept in the
// run's metadata, and a note that changes what a cell means is on that
// cell too, so that the document says it, not only stderr.
//
// Open-loop serving runs (Config.Serve, serve.go) replace steps 3–7:
// requests arrive at a rate, Poisson or constant, from a seeded schedule
// (arrivals.go), whatever the server does; openloop.go hands each to a
// goroutine of its own at its time (no coordinated omission) and records
// how late it was handed over; loadfigures.go turns a load into a serve
// row with vLLM bench serve's figures and goodput against an SLO. A
// sweep first measures the synchronous and the saturation rate with
// closed-loop probes and spreads rates between them, as guidellm does
// (from 0 to the higher when the saturation rate does not rise above the
// synchronous one; never one rate twice). -resume skips the loads a
// checkpoint holds and plans the rest again the same way.
//
// Every request is bounded in time (Timeouts, client.go): connect, each
// small request whole, each /metrics scrape (a failed one is skipped with a
// note on the cell), a probe's headers and first event, a stream's idle
// silence. A probe is bounded in tokens and bytes too. A POST that meets a
// reused connection the server closed is sent once more on a new one.
//
// A failed request is data: it is counted in errored_requests and the
// samples, never in tokens; a cell whose failures pass the threshold is
// error with the reason. So is a cell or rate whose requests streamed
// past their max_tokens (the server ignored it; an open-loop request is
// read no further), and prompts fitted with probes that a server streamed
// past max_tokens=1 with no plausible usage fail with that reason. A
// rate's drain after its last arrival is bounded (ServeConfig.Drain); the
// requests it cuts are counted in incomplete_requests.
package runner
