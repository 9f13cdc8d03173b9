package sim

import "testing"

func TestTokenizer(t *testing.T) {
	cases := []struct {
		name  string
		cpt   float64
		text  string
		count int64
	}{
		{"empty", 4, "", 0},
		{"one_byte", 4, "a", 1},
		{"exact", 4, "abcdefgh", 2},
		{"round_up", 4, "abcdefghi", 3},
		{"fractional", 3.5, "abcdefg", 2},
		{"fractional_up", 3.5, "abcdefgh", 3},
		{"utf8_bytes", 4, "héllo", 2}, // 6 bytes
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok := Tokenizer{CharsPerToken: tc.cpt}
			if got := tok.Count(tc.text); got != tc.count {
				t.Errorf("Count = %d, want %d", got, tc.count)
			}
			if ids := tok.IDs(tc.text); int64(len(ids)) != tc.count {
				t.Errorf("%d ids, want %d", len(ids), tc.count)
			}
		})
	}
	tok := Tokenizer{CharsPerToken: 4}
	a, b := tok.IDs("abcdabcd"), tok.IDs("abcdxxxx")
	if a[0] != a[1] || a[0] != b[0] || a[1] == b[1] {
		t.Errorf("ids not a function of the token's bytes: %v %v", a, b)
	}
}

func TestBlockHashes(t *testing.T) {
	tok := Tokenizer{CharsPerToken: 4}
	base := proseOfTokens("x", 64) // 4 blocks of 16
	cases := []struct {
		name   string
		text   string
		blocks int
		shared int // leading hashes equal to base's
	}{
		{"same", base, 4, 4},
		{"partial_block_dropped", base + "abc", 4, 4},
		{"short", base[:60], 0, 0},           // 15 tokens
		{"short_rounds_up", base[:61], 1, 0}, // 16 tokens, the last partial: a different block
		{"diverge_in_block_3", base[:2*64] + "Z" + base[2*64+1:], 4, 2},
		{"diverge_first_byte", "Z" + base[1:], 4, 0},
	}
	want := tok.blockHashes(base, 16)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tok.blockHashes(tc.text, 16)
			if len(got) != tc.blocks {
				t.Fatalf("%d blocks, want %d", len(got), tc.blocks)
			}
			shared := 0
			for shared < len(got) && got[shared] == want[shared] {
				shared++
			}
			if shared != tc.shared {
				t.Errorf("%d leading blocks shared, want %d", shared, tc.shared)
			}
		})
	}
}
