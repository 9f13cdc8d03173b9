package tinyllama

import "fmt"

// TokenType is a SentencePiece token type as llama.cpp stores it in
// tokenizer.ggml.token_type.
type TokenType int32

// The token types used.
const (
	TokenNormal  TokenType = 1
	TokenUnknown TokenType = 2
	TokenControl TokenType = 3
	TokenByte    TokenType = 6
)

// The special token ids (SentencePiece's usual layout).
const (
	UnkID = 0
	BOSID = 1
	EOSID = 2
)

// Vocab is a SentencePiece-style vocabulary: parallel lists of pieces,
// scores and types.
type Vocab struct {
	Tokens []string
	Scores []float32
	Types  []int32
}

// Len returns the number of tokens.
func (v *Vocab) Len() int { return len(v.Tokens) }

// space is SentencePiece's word-start marker (U+2581), which stands for the
// space before a word.
const space = "▁"

// commonWords are word pieces (after "▁") that make ordinary English prose
// take fewer tokens than one per letter.
var commonWords = []string{
	"the", "a", "of", "and", "to", "in", "is", "that", "it", "for", "on",
	"with", "as", "was", "be", "by", "this", "are", "or", "from", "at",
	"an", "not", "but", "we", "they", "which", "one", "all", "can", "has",
	"have", "more", "will", "each", "time", "text", "model", "token",
	"speed", "server", "request", "test", "number", "word", "data",
}

// commonPieces are word-inner pieces.
var commonPieces = []string{
	"th", "he", "in", "er", "an", "re", "on", "at", "en", "nd", "ti", "es",
	"or", "te", "ed", "is", "it", "al", "ar", "st", "nt", "ng", "se", "ha",
	"ou", "le", "ve", "co", "me", "de", "ri", "ro", "ic", "ne", "ea", "ra",
	"ce", "ing", "ion", "tion", "ent", "ly", "er", "s", "ed",
}

// NewVocab returns the vocabulary: <unk>, <s>, </s>, the 256 byte tokens
// <0x00>..<0xFF> (SentencePiece's byte fallback: llama.cpp looks each one
// up and fails without them), then normal pieces: "▁", single letters,
// digits and punctuation with and without "▁", and common words and
// pieces together with every prefix of them, so that SentencePiece's
// pairwise merging can always reach a whole word. Scores fall with the
// order, as in a trained SentencePiece model (higher merges first).
func NewVocab() *Vocab {
	v := &Vocab{}
	seen := map[string]bool{}
	add := func(piece string, typ TokenType, score float32) {
		if seen[piece] {
			return
		}
		seen[piece] = true
		v.Tokens = append(v.Tokens, piece)
		v.Scores = append(v.Scores, score)
		v.Types = append(v.Types, int32(typ))
	}
	add("<unk>", TokenUnknown, 0)
	add("<s>", TokenControl, 0)
	add("</s>", TokenControl, 0)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), TokenByte, 0)
	}
	normal := func(piece string) { add(piece, TokenNormal, -float32(len(v.Tokens))) }
	withPrefixes := func(piece string) {
		r := []rune(piece)
		for i := 1; i <= len(r); i++ {
			normal(string(r[:i]))
		}
	}
	normal(space)
	for c := 'a'; c <= 'z'; c++ {
		normal(string(c))
		normal(space + string(c))
	}
	for c := 'A'; c <= 'Z'; c++ {
		normal(string(c))
		normal(space + string(c))
	}
	for _, c := range "0123456789.,;:!?'\"-()/" {
		normal(string(c))
		normal(space + string(c))
	}
	for _, w := range commonWords {
		withPrefixes(space + w)
	}
	for _, p := range commonPieces {
		withPrefixes(p)
	}
	return v
}
