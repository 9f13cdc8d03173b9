package runner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// wordCounter counts tokens as a tokenizer roughly does: a token per word
// plus one per 5 letters beyond the fourth, plus a template overhead.
func wordCounter(overhead int64) countFunc {
	return func(_ context.Context, text string) (int64, error) {
		n := overhead
		for _, w := range strings.Fields(text) {
			n += 1 + int64(max(0, len(w)-4)/5)
		}
		return n, nil
	}
}

func TestFitPrompt(t *testing.T) {
	body := neutralText(newRand(3), 400000)
	head := promptHead("0123abcd", "8K")
	for _, tt := range []struct {
		target int64
		exact  bool
	}{{100, true}, {1000, true}, {8192, true}, {30000, true}, {8192, false}, {30000, false}} {
		p, err := fitPrompt(context.Background(), head, body, tt.target, wordCounter(9), tt.exact)
		if err != nil {
			t.Fatalf("target %d: %v", tt.target, err)
		}
		n, _ := wordCounter(9)(context.Background(), p.Text)
		if n != p.Tokens || !strings.HasPrefix(p.Text, head) {
			t.Fatalf("target %d: reported %d, counted %d", tt.target, p.Tokens, n)
		}
		if tt.exact && math.Abs(float64(n-tt.target)) > 1 {
			t.Errorf("exact target %d: got %d", tt.target, n)
		}
		if !tt.exact && math.Abs(float64(n-tt.target)) > 0.01*float64(tt.target) {
			t.Errorf("calibrated target %d: got %d", tt.target, n)
		}
	}
	if _, err := fitPrompt(context.Background(), head, body[:1000], 100000, wordCounter(0), true); err == nil {
		t.Error("no error for padding too short")
	}
}

// TestPromptBelowHead: a target shorter than the fixed head says the
// head's own size, not the count of head and padding last measured.
func TestPromptBelowHead(t *testing.T) {
	body := neutralText(newRand(3), 400000)
	head := promptHead("0123abcd", "8K")
	headTokens, _ := wordCounter(9)(context.Background(), head)
	_, err := fitPrompt(context.Background(), head, body, headTokens-5, wordCounter(9), true)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("below the fixed head of %d tokens", headTokens)) {
		t.Fatalf("error %v, want the head's %d tokens", err, headTokens)
	}
}

func TestNeutralTextHasNoLoop(t *testing.T) {
	text := neutralText(newRand(9), 200000)
	if p, _ := periodicTail([]byte(text[len(text)-loopWindow:])); p != 0 {
		t.Fatalf("padding text is periodic with period %d", p)
	}
}
