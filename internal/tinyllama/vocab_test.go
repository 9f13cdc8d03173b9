package tinyllama

import (
	"fmt"
	"strings"
	"testing"
)

func TestVocab(t *testing.T) {
	v := NewVocab()
	if len(v.Scores) != v.Len() || len(v.Types) != v.Len() {
		t.Fatalf("%d tokens, %d scores, %d types", v.Len(), len(v.Scores), len(v.Types))
	}
	if v.Tokens[UnkID] != "<unk>" || v.Tokens[BOSID] != "<s>" || v.Tokens[EOSID] != "</s>" {
		t.Errorf("special tokens: %q", v.Tokens[:3])
	}
	index := map[string]int{}
	for i, tok := range v.Tokens {
		if j, dup := index[tok]; dup {
			t.Errorf("%q at %d and %d", tok, j, i)
		}
		index[tok] = i
	}
	// Byte fallback: llama.cpp looks up every byte's token and fails
	// to load without it.
	for b := range 256 {
		i, ok := index[fmt.Sprintf("<0x%02X>", b)]
		if !ok || TokenType(v.Types[i]) != TokenByte {
			t.Fatalf("byte token %02X missing or not of type byte", b)
		}
	}
	// Every normal piece longer than one character can be reached by
	// merging a shorter piece with one more character.
	for i, tok := range v.Tokens {
		r := []rune(tok)
		if TokenType(v.Types[i]) != TokenNormal || len(r) < 2 {
			continue
		}
		if _, ok := index[string(r[:len(r)-1])]; !ok {
			t.Errorf("%q: its prefix %q is no token", tok, string(r[:len(r)-1]))
		}
	}
	for _, w := range []string{"▁the", "▁a", "a", "Z", "7", ".", "tion", space} {
		if _, ok := index[w]; !ok {
			t.Errorf("%q missing", w)
		}
	}
	for i := 1; i < v.Len(); i++ {
		if TokenType(v.Types[i]) == TokenNormal && TokenType(v.Types[i-1]) == TokenNormal && v.Scores[i] >= v.Scores[i-1] {
			t.Errorf("scores of %q and %q do not fall", v.Tokens[i-1], v.Tokens[i])
		}
		if strings.TrimSpace(v.Tokens[i]) == "" {
			t.Errorf("token %d is blank", i)
		}
	}
	if n := v.Len(); n < 400 || n > 1000 {
		t.Errorf("%d tokens, want a small vocabulary", n)
	}
}
