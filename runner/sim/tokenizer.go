package sim

import (
	"hash/maphash"
	"math"
)

// Tokenizer is the simulator's deterministic tokenizer: a text of n bytes
// is ceil(n/CharsPerToken) tokens; token i covers bytes
// [floor(i×CharsPerToken), floor((i+1)×CharsPerToken)) and its id is a hash
// of those bytes. It is not a real vocabulary, only a stable count that
// /tokenize, usage.prompt_tokens and the prefix cache agree on.
type Tokenizer struct {
	CharsPerToken float64
}

// Count returns the number of tokens in text.
func (t Tokenizer) Count(text string) int64 {
	if len(text) == 0 {
		return 0
	}
	return int64(math.Ceil(float64(len(text)) / t.CharsPerToken))
}

// IDs returns the token ids of text (len = Count(text)).
func (t Tokenizer) IDs(text string) []int64 {
	n := t.Count(text)
	ids := make([]int64, n)
	for i := range n {
		lo, hi := t.span(i, len(text))
		var h uint64 = 1469598103934665603
		for j := lo; j < hi; j++ {
			h = (h ^ uint64(text[j])) * 1099511628211
		}
		ids[i] = int64(h % 150000)
	}
	return ids
}

// span returns the byte range of token i in a text of n bytes.
func (t Tokenizer) span(i int64, n int) (int, int) {
	lo := int(math.Floor(float64(i) * t.CharsPerToken))
	hi := int(math.Floor(float64(i+1) * t.CharsPerToken))
	return min(lo, n), min(hi, n)
}

// hashSeed is shared by every server of the process: prefix hashes only
// need to agree within one process.
var hashSeed = maphash.MakeSeed()

// blockHashes returns the hash of every whole block of blockSize tokens of
// text, each hash covering the text from its start to the block's end, so
// two prompts share the first k hashes exactly when they share their first
// k blocks.
func (t Tokenizer) blockHashes(text string, blockSize int64) []uint64 {
	n := t.Count(text) / blockSize
	if n == 0 {
		return nil
	}
	out := make([]uint64, 0, n)
	var h maphash.Hash
	h.SetSeed(hashSeed)
	prev := 0
	for b := int64(1); b <= n; b++ {
		_, end := t.span(b*blockSize-1, len(text))
		h.WriteString(text[prev:end])
		prev = end
		out = append(out, h.Sum64())
	}
	return out
}
