package runner

import (
	"context"
	"errors"
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

// TestPromptFitAfterTruncatedCount: the first guess of a small target is
// cut to the server's context (Ollama counts at most num_ctx tokens), so
// the secant through it and the next count is too flat and steps below
// an empty padding; the fit tries the head alone and then lands, instead
// of saying the head is longer than the target (seen against Ollama with
// num_ctx 256: counts 256 at 512 bytes, 183 at 201, next step -33).
func TestPromptFitAfterTruncatedCount(t *testing.T) {
	body := neutralText(newRand(3), 400000)
	head := promptHead("0123abcd", "128")
	// The head takes 63 tokens and the padding 0.6 a byte, like the tiny
	// model's small vocabulary, cut to 256.
	dense := func(_ context.Context, text string) (int64, error) {
		return min(63+int64(float64(len(text)-len(head))*0.6), 256), nil
	}
	for _, exact := range []bool{true, false} {
		p, err := fitPrompt(context.Background(), head, body, 128, dense, exact)
		if err != nil {
			t.Fatalf("exact %v: %v", exact, err)
		}
		if math.Abs(float64(p.Tokens-128)) > 1.28 {
			t.Errorf("exact %v: %d tokens for 128", exact, p.Tokens)
		}
	}
}

// TestPromptTruncatedByServer: a server that cuts every prompt to its
// context (Ollama keeps num_ctx tokens and counts those) is named as the
// reason a longer context cannot be fitted, not the padding text.
func TestPromptTruncatedByServer(t *testing.T) {
	body := neutralText(newRand(3), 400000)
	head := promptHead("0123abcd", "1K")
	words := wordCounter(9)
	capped := func(ctx context.Context, text string) (int64, error) {
		n, err := words(ctx, text)
		return min(n, 256), err
	}
	for _, exact := range []bool{true, false} {
		_, err := fitPrompt(context.Background(), head, body, 512, capped, exact)
		if !errors.Is(err, errTruncated) || !strings.Contains(err.Error(), "cannot hold 512 tokens") {
			t.Errorf("exact %v: error %v, want the server's truncation named", exact, err)
		}
		if _, err := fitPrompt(context.Background(), head, body, 200, capped, exact); err != nil {
			t.Errorf("exact %v: 200 tokens within the server's context: %v", exact, err)
		}
	}
}

func TestNeutralTextHasNoLoop(t *testing.T) {
	text := neutralText(newRand(9), 200000)
	if p, _ := periodicTail([]byte(text[len(text)-loopWindow:])); p != 0 {
		t.Fatalf("padding text is periodic with period %d", p)
	}
}

// TestFitProbedTagTokens fits a prompt whose run tag takes more tokens
// than the probes' tag (a counter that makes each digit a token, as
// SentencePiece llama tokenizers do): the measured prompt still has the
// target's count within 1%, and the count it reports is its own.
func TestFitProbedTagTokens(t *testing.T) {
	words := wordCounter(3)
	digitCounter := func(ctx context.Context, text string) (int64, error) {
		n, _ := words(ctx, text)
		for _, r := range text[:min(len(text), 40)] { // the head
			if r >= '0' && r <= '9' {
				n++
			}
		}
		return n, nil
	}
	body := neutralText(newRand(7), 8000)
	for _, tc := range []struct{ tag, probeTag string }{
		{"20260314", "abcdefab"}, // the run's tag 8 tokens longer
		{"abcdefab", "20260314"}, // shorter
		{"ab12cd34", "ab12cd34"}, // the same
	} {
		head, probeHead := promptHead(tc.tag, "256"), promptHead(tc.probeTag, "256")
		p, err := fitProbed(context.Background(), head, probeHead, body, 256, digitCounter)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := digitCounter(context.Background(), p.Text)
		if !strings.HasPrefix(p.Text, head) || math.Abs(float64(got-256)) > 2.56 || p.Tokens != got {
			t.Errorf("tag %s, probes %s: prompt of %d tokens, reported %d, want 256 ± 1%%", tc.tag, tc.probeTag, got, p.Tokens)
		}
	}
}
