package tinyllama

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Config sets the model's shape. The zero value of a field takes the
// DefaultConfig value.
type Config struct {
	Seed    uint64 // weights are a pure function of the seed
	Embd    int    // n_embd (a multiple of Heads)
	Layers  int    // transformer blocks
	Heads   int    // attention heads
	HeadsKV int    // key/value heads (grouped-query attention when < Heads)
	FF      int    // feed-forward width
	Context int    // llama.context_length, the longest context the model claims
	Name    string // general.name
	// Gain scales the random matrices (std Gain/√fan-in); larger is a
	// more chaotic model whose greedy output wanders longer before any
	// repetition.
	Gain float64
}

// DefaultConfig is the shape the tests and scripts/ollama-tiny use: about
// 2.7 MB of F32 weights that llama.cpp runs in well under a millisecond
// per token on one CPU core.
func DefaultConfig() Config {
	return Config{Seed: 1, Embd: 128, Layers: 3, Heads: 4, HeadsKV: 2, FF: 256, Context: 4096, Name: "speedmatrix-tiny", Gain: 2}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.Embd = cmp.Or(c.Embd, d.Embd)
	c.Layers = cmp.Or(c.Layers, d.Layers)
	c.Heads = cmp.Or(c.Heads, d.Heads)
	c.HeadsKV = cmp.Or(c.HeadsKV, c.Heads)
	c.FF = cmp.Or(c.FF, d.FF)
	c.Context = cmp.Or(c.Context, d.Context)
	c.Gain = cmp.Or(c.Gain, d.Gain)
	c.Name = cmp.Or(c.Name, d.Name)
	return c
}

// Weight scales. A matrix with n inputs is N(0, (Gain²/n)), so
// activations keep their scale through the blocks and attention is sharp
// enough that greedy decoding depends on the whole history instead of
// settling into a short cycle; embeddings are N(0, 1). Channel 0 of the
// residual stream is the constant channelValue: every embedding holds it
// and no block writes to it (row 0 of attn_output and ffn_down is zero),
// so after the final norm it is always positive; the output rows of
// control and byte tokens hold suppress on it, which puts their logits
// far below every normal token's.
const (
	channelValue = 1.0
	suppress     = -100.0
)

// Build returns the GGUF file of the model cfg describes.
func Build(cfg Config) (*File, error) {
	cfg = cfg.withDefaults()
	if cfg.Embd%cfg.Heads != 0 || cfg.Heads%cfg.HeadsKV != 0 {
		return nil, fmt.Errorf("tinyllama: embd %d, heads %d, kv heads %d do not divide", cfg.Embd, cfg.Heads, cfg.HeadsKV)
	}
	v := NewVocab()
	headDim := cfg.Embd / cfg.Heads
	kvDim := headDim * cfg.HeadsKV
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	u := func(n int) uint32 { return uint32(n) }
	f := &File{KV: []KV{
		{"general.architecture", "llama"},
		{"general.name", cfg.Name},
		{"general.alignment", uint32(DefaultAlignment)},
		{"general.file_type", uint32(0)}, // ALL_F32
		{"llama.vocab_size", u(v.Len())},
		{"llama.context_length", u(cfg.Context)},
		{"llama.embedding_length", u(cfg.Embd)},
		{"llama.block_count", u(cfg.Layers)},
		{"llama.feed_forward_length", u(cfg.FF)},
		{"llama.attention.head_count", u(cfg.Heads)},
		{"llama.attention.head_count_kv", u(cfg.HeadsKV)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", u(headDim)},
		{"llama.rope.freq_base", float32(10000)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", v.Tokens},
		{"tokenizer.ggml.scores", v.Scores},
		{"tokenizer.ggml.token_type", v.Types},
		{"tokenizer.ggml.unknown_token_id", uint32(UnkID)},
		{"tokenizer.ggml.bos_token_id", uint32(BOSID)},
		{"tokenizer.ggml.eos_token_id", uint32(EOSID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}}
	random := func(name string, std float64, dims ...int) []byte {
		n := 1
		d := make([]uint64, len(dims))
		for i, x := range dims {
			n *= x
			d[i] = uint64(x)
		}
		w := make([]float32, n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * std)
		}
		f.Tensors = append(f.Tensors, Tensor{Name: name, Dims: d, Type: F32, Data: f32bytes(w)})
		return f.Tensors[len(f.Tensors)-1].Data
	}
	ones := func(name string) {
		w := make([]float32, cfg.Embd)
		for i := range w {
			w[i] = 1
		}
		f.Tensors = append(f.Tensors, Tensor{Name: name, Dims: []uint64{uint64(cfg.Embd)}, Type: F32, Data: f32bytes(w)})
	}
	// matrix is a weight from nIn to nOut channels, scaled by its fan-in.
	matrix := func(name string, nIn, nOut int) []byte {
		return random(name, cfg.Gain/math.Sqrt(float64(nIn)), nIn, nOut)
	}
	embd := random("token_embd.weight", 1, cfg.Embd, v.Len())
	setChannel0(embd, cfg.Embd, func(int) float32 { return channelValue })
	for l := 0; l < cfg.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		ones(p + "attn_norm.weight")
		matrix(p+"attn_q.weight", cfg.Embd, cfg.Embd)
		matrix(p+"attn_k.weight", cfg.Embd, kvDim)
		matrix(p+"attn_v.weight", cfg.Embd, kvDim)
		clear(matrix(p+"attn_output.weight", cfg.Embd, cfg.Embd)[:4*cfg.Embd]) // writes nothing to channel 0
		ones(p + "ffn_norm.weight")
		matrix(p+"ffn_gate.weight", cfg.Embd, cfg.FF)
		matrix(p+"ffn_up.weight", cfg.Embd, cfg.FF)
		clear(matrix(p+"ffn_down.weight", cfg.FF, cfg.Embd)[:4*cfg.FF]) // nor does the FFN
	}
	ones("output_norm.weight")
	out := matrix("output.weight", cfg.Embd, v.Len())
	setChannel0(out, cfg.Embd, func(tok int) float32 {
		if TokenType(v.Types[tok]) == TokenNormal {
			return 0
		}
		return suppress
	})
	return f, nil
}

// Write writes the model cfg describes to w in GGUF.
func Write(w io.Writer, cfg Config) error {
	f, err := Build(cfg)
	if err != nil {
		return err
	}
	_, err = f.WriteTo(w)
	return err
}

// setChannel0 sets element 0 of each row (token) of an {embd, vocab} F32
// tensor to val(token).
func setChannel0(data []byte, embd int, val func(tok int) float32) {
	for tok := 0; tok*embd*4 < len(data); tok++ {
		binary.LittleEndian.PutUint32(data[tok*embd*4:], math.Float32bits(val(tok)))
	}
}

func f32bytes(w []float32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
