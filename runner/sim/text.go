package sim

import "strings"

// vocab holds the words answers are made of: four bytes each with the
// leading space, so with the default 4 characters per token one word is
// one token, and none needs JSON escaping.
var vocab = strings.Fields("sky sea the and but for new old red big way day run sun end air art arm ask age bed box boy car cat cup cut dog ear egg eye far fit fly fun gas hat hot ice ink jam key kid leg lip low map men mix net nut oil one pen pig pot put rain road rock salt sand ship shoe shop song star step tree wind wood")

// loopText is the paragraph a looping answer repeats.
var loopText = strings.Fields("and so the same old road runs on past the red barn where the wind turns the mill again while we count the days")

func init() {
	for i, w := range vocab {
		vocab[i] = " " + w
	}
	for i, w := range loopText {
		loopText[i] = " " + w
	}
}

// answer produces the deterministic text of one response.
type answer struct {
	seed      uint64
	loopAfter int64 // -1 = never loops
}

// token returns the text of token i.
func (a answer) token(i int64) string {
	if a.loopAfter >= 0 && i >= a.loopAfter {
		return loopText[(i-a.loopAfter)%int64(len(loopText))]
	}
	return vocab[mix(a.seed, uint64(i), 0x51)%uint64(len(vocab))]
}

// appendText appends the text of tokens [from, to).
func (a answer) appendText(b []byte, from, to int64) []byte {
	for i := from; i < to; i++ {
		b = append(b, a.token(i)...)
	}
	return b
}
