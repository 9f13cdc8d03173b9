// Package tinyllama writes a tiny random-weight llama model in GGUF (v3)
// and serves it with Ollama, so that the runner's tests can meet a real
// inference engine (llama.cpp on the CPU, behind Ollama's OpenAI API)
// instead of only the simulator.
//
// The model (model.go) is a few transformer blocks of width 64–128 with a
// SentencePiece-style vocabulary (vocab.go: the 256 byte tokens, <unk>,
// <s>, </s>, letters, digits, punctuation and common word pieces), all
// weights drawn from a seeded generator, so the same seed gives the same
// bytes. Its output head never picks a control or byte token (their
// logits are pushed far down through a constant channel of the residual
// stream), so generation neither stops early at </s> nor emits partial
// UTF-8 that an engine would hold back and merge into a later chunk.
//
// gguf.go is the file encoder: header, typed metadata, tensor infos,
// alignment padding, tensor data. ollama.go starts `ollama serve` in its
// own process group on a loopback port with its models in a given
// directory, creates the model from a Modelfile and stops the server.
//
// Note: GGUF writers exist in Python (gguf-py) and Rust; none in Go fits
// (Ollama's own fs/ggml writer lives in a large module we would not link),
// and the format is small enough to write directly from the spec
// (ggml-org/ggml docs/gguf.md).
package tinyllama
