// Package sim is a simulated OpenAI-compatible streaming LLM server: the
// known truth the load generator (package runner) is tested against, and
// the server behind `run -simulate`.
//
// Pipeline: an HTTP handler decodes a request (/v1/chat/completions or
// /v1/completions), counts its prompt with the deterministic Tokenizer,
// hashes its prefix blocks, picks its answer length and any injected
// Fault, and submits it to the engine. The engine is one goroutine that
// runs continuous-batching steps: each step admits waiting requests while
// the KV budget and MaxRunning allow, advances chunked prefill (skipping
// prefix-cache hits), gives every decoding request ChunkTokens tokens, and
// lasts StepTime(batch, context) + prefill time, divided by Speedup. Steps
// are paced by absolute deadlines (the next from the previous, never from
// now), so sleep overshoot does not accumulate. After each step the engine
// publishes token counts through atomics and wakes the request's handler
// goroutine through a one-slot channel; the handler writes every token
// produced since its last write as one SSE chunk (steps merge when a
// writer falls behind, as vLLM's output collector does), flushes, and
// records when the write returned.
//
// That record is the truth (Server.Requests): for each request its
// arrival, prompt and cached tokens, the time and size of every chunk
// actually written, output tokens, finish and error — what the server did,
// not what its profile asked for.
//
// Profiles: DefaultProfile is small and fast; ProfileFromMatrix calibrates
// one from an archived run (prefill by context, a least-squares step model
// with a correction grid, KV budget from the over-capacity cells,
// max_model_len, looped cells). /metrics speaks vLLM's metric names.
package sim
