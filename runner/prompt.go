package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Prompt is one measured prompt: its text and the number of tokens the
// server counts for it (with the chat template, for the chat endpoint).
type Prompt struct {
	Text   string
	Tokens int64
	// Exact is true when Tokens came from the server's /tokenize rather
	// than from calibrated probes.
	Exact bool
}

var (
	subjects = []string{"The committee", "A small team", "The city council", "Our neighbour", "The research group",
		"The old library", "A local farmer", "The museum staff", "The harbour office", "A visiting teacher",
		"The railway company", "The weather station", "A group of students", "The bakery on the corner", "The archive"}
	verbs = []string{"reviewed", "described", "prepared", "discussed", "recorded", "planned", "measured", "repaired",
		"organised", "compared", "collected", "explained", "summarised", "examined", "published"}
	objects = []string{"the schedule for the spring season", "a report on river levels", "the notes from last week",
		"the costs of the new bridge", "a map of the walking paths", "the results of the survey", "the plans for the garden",
		"the history of the market square", "a list of repairs for the school", "the timetable of the ferries",
		"the count of birds along the coast", "a proposal for longer opening hours", "the records of rainfall",
		"a guide to the regional dialects", "the inventory of the storeroom"}
	tails = []string{"before the meeting in the evening", "with care and patience", "after a long discussion",
		"in a short letter to the residents", "using figures from previous years", "while the rain continued outside",
		"so that everyone could follow the details", "for the quarterly newsletter", "during a quiet afternoon",
		"together with several volunteers", "according to the usual procedure", "without any particular hurry"}
)

// neutralText returns about n bytes of plain, neutral prose: sentences
// built from fixed word lists, varied enough that no exact repetition
// appears, and free of instructions a model might follow.
func neutralText(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n + 200)
	for b.Len() < n {
		b.WriteString(subjects[rng.IntN(len(subjects))])
		b.WriteByte(' ')
		b.WriteString(verbs[rng.IntN(len(verbs))])
		b.WriteByte(' ')
		b.WriteString(objects[rng.IntN(len(objects))])
		b.WriteByte(' ')
		b.WriteString(tails[rng.IntN(len(tails))])
		fmt.Fprintf(&b, ", and the figure noted was %d. ", rng.IntN(10000))
	}
	return b.String()
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// promptInstruction follows the tag and precedes the padding.
const promptInstruction = "Read the following notes, then continue them in the same plain style for as long as you can.\n\n"

// promptHead returns the start of every prompt of a run at one context:
// the run's random tag first, so that neither other runs nor other
// contexts of this run share a cached prefix with it.
func promptHead(tag, label string) string {
	return "[" + tag + " " + label + "] " + promptInstruction
}

// countFunc returns the server's token count for a prompt text.
type countFunc func(ctx context.Context, text string) (int64, error)

// fitProbed fits head followed by a prefix of body to target tokens with
// probe requests (count) that carry probeHead instead, a head of the same
// shape with another tag, so that they never warm the prefix cache for
// the measured prompt. The run's tag may take more or fewer tokens than
// the probes' (a real tokenizer cuts one hex string into more pieces than
// another: 253 instead of 256 tokens was seen with Ollama), so both heads
// are counted first and the probes aim at the target less the difference.
func fitProbed(ctx context.Context, head, probeHead, body string, target int64, count countFunc) (Prompt, error) {
	d, err := headDelta(ctx, head, probeHead, count)
	if err != nil {
		return Prompt{}, err
	}
	p, err := fitPrompt(ctx, probeHead, body, target-d, count, false)
	if err != nil {
		return Prompt{}, err
	}
	p.Text = head + p.Text[len(probeHead):]
	p.Tokens += d
	return p, nil
}

// headLead precedes the heads headDelta counts, so that those probes share
// no prefix with (and warm no cache for) the measured prompt, which starts
// with its head.
const headLead = "Notes follow.\n"

// headDelta returns how many more tokens head takes than probeHead, both
// counted behind headLead.
func headDelta(ctx context.Context, head, probeHead string, count countFunc) (int64, error) {
	a, err := count(ctx, headLead+head)
	if err != nil {
		return 0, err
	}
	b, err := count(ctx, headLead+probeHead)
	if err != nil {
		return 0, err
	}
	return a - b, nil
}

// headError says that target is shorter than the prompt's fixed head,
// counting the head alone (not the padding measured last) so the figure
// is the head's.
func headError(ctx context.Context, head string, target int64, count countFunc) error {
	n, err := count(ctx, head)
	if err != nil {
		return fmt.Errorf("prompt: %d tokens is below the fixed head (the run tag, the instruction and the chat template): %w", target, err)
	}
	return fmt.Errorf("prompt: %d tokens is below the fixed head of %d tokens (the run tag, the instruction and the chat template)", target, n)
}

// fitPrompt returns head followed by a prefix of body whose token count
// (by count) is target: exactly when exact is set (the counter is the
// server's tokenizer), else within 1% (the counter is a probe request).
func fitPrompt(ctx context.Context, head, body string, target int64, count countFunc, exact bool) (Prompt, error) {
	if target <= 0 {
		return Prompt{}, fmt.Errorf("prompt target %d tokens: want > 0", target)
	}
	type point struct {
		l int
		n int64
	}
	var pts []point
	eval := func(l int) (int64, error) {
		l = max(0, min(l, len(body)))
		n, err := count(ctx, head+body[:l])
		if err != nil {
			return 0, err
		}
		pts = append(pts, point{l, n})
		return n, nil
	}
	good := func(n int64) bool {
		if exact {
			return n == target
		}
		return math.Abs(float64(n-target)) <= 0.01*float64(target)
	}
	l := int(min(int64(len(body)), target*4))
	n, err := eval(l)
	if err != nil {
		return Prompt{}, err
	}
	// Secant steps on length → tokens (nearly linear for prose).
	for iter := 0; iter < 6 && !good(n); iter++ {
		var slope float64
		if len(pts) >= 2 {
			a, b := pts[len(pts)-2], pts[len(pts)-1]
			if b.l-a.l >= truncatedStep && b.n <= a.n {
				return Prompt{}, truncatedError(a.n, b.n, a.l, b.l, target)
			}
			if a.l != b.l && a.n != b.n {
				slope = float64(b.n-a.n) / float64(b.l-a.l)
			}
		}
		if slope <= 0 {
			slope = float64(n) / float64(max(l+len(head), 1))
		}
		next := l + int(math.Round(float64(target-n)/slope))
		if next == l {
			next += int(math.Copysign(1, float64(target-n)))
		}
		if next > len(body) {
			if text := l + len(head); n*maxBytesPerToken < int64(text) {
				return Prompt{}, fmt.Errorf("prompt: the server counts %d tokens for %d bytes of prose (a tokenizer counts about one per 4 bytes): its token counts are wrong, or it truncates prompts", n, text)
			}
			return Prompt{}, fmt.Errorf("prompt: padding text too short for %d tokens", target)
		}
		if next < 0 {
			// Note: a secant through a count the server cut to its
			// context (Ollama counts at most num_ctx tokens) is too
			// flat and can overshoot below zero: try the head alone
			// before saying it is longer than the target.
			if l == 0 {
				return Prompt{}, headError(ctx, head, target, count)
			}
			next = 0
		}
		l = next
		if n, err = eval(l); err != nil {
			return Prompt{}, err
		}
	}
	if exact && !good(n) {
		// Bisect between the closest lengths below and above target.
		lo, hi := -1, -1
		for _, p := range pts {
			if p.n < target && (lo < 0 || p.l > lo) {
				lo = p.l
			}
			if p.n > target && (hi < 0 || p.l < hi) {
				hi = p.l
			}
		}
		for lo >= 0 && hi >= 0 && hi-lo > 1 {
			mid := (lo + hi) / 2
			m, err := eval(mid)
			if err != nil {
				return Prompt{}, err
			}
			switch {
			case m == target:
				lo, hi = mid, mid
			case m < target:
				lo = mid
			default:
				hi = mid
			}
		}
		// Take the closest length seen (a word boundary may make the
		// exact count unreachable by one token).
		sort.SliceStable(pts, func(i, j int) bool {
			return abs64(pts[i].n-target) < abs64(pts[j].n-target)
		})
		l, n = pts[0].l, pts[0].n
	} else if !good(n) {
		return Prompt{}, fmt.Errorf("prompt: got %d tokens after calibrating, want %d ± 1%%", n, target)
	}
	return Prompt{Text: head + body[:l], Tokens: n, Exact: exact}, nil
}

// truncatedStep is the growth of the padding (in bytes of prose, at
// least 50 tokens in any tokenizer) after which a prompt whose count did
// not grow was truncated by the server.
const truncatedStep = 256

// errTruncated says that the server counts no more prompt tokens for a
// longer prompt: it cuts prompts to what its context holds.
var errTruncated = errors.New("the server truncates prompts to its context")

// truncatedError says that a prompt of lb bytes of padding counted nb
// tokens, no more than one of la bytes (na): the server truncates prompts
// (Ollama keeps num_ctx tokens of a longer prompt, and counts those), so a
// context of target tokens cannot be held.
func truncatedError(na, nb int64, la, lb int, target int64) error {
	return fmt.Errorf("prompt: %w, which cannot hold %d tokens: it counts %d prompt tokens with %d bytes of padding and %d with %d", errTruncated, target, nb, lb, na, la)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// maxBytesPerToken is more bytes of prose than any tokenizer puts in one
// token on average (about 4 is usual): a server that counts fewer tokens
// for a text is wrong, or cut the text.
const maxBytesPerToken = 16

// probeTokens sends text with max_tokens=1 and returns the prompt tokens
// the server reports in usage. A server that ignored max_tokens=1 and
// reported no usage, or too few tokens for the text to be a count, is
// named as the fault.
func (c *Client) probeTokens(ctx context.Context, text string) (int64, error) {
	r := c.probe(ctx, text)
	if r.err != "" {
		return 0, errors.New(r.err)
	}
	ignored := fmt.Sprintf("the server ignored max_tokens=1: a one-token probe streamed past %d tokens", probeMaxTokens)
	switch {
	case r.prompt <= 0 && r.overran:
		return 0, fmt.Errorf("%s and sent no usage.prompt_tokens before the client stopped reading", ignored)
	case r.prompt <= 0:
		return 0, errors.New("probe: server reported no usage.prompt_tokens")
	case r.overran && r.prompt*maxBytesPerToken < int64(len(text)):
		return 0, fmt.Errorf("%s, and it reported %d prompt tokens for %d bytes of prose (a tokenizer counts about one per 4 bytes): its usage counts are wrong", ignored, r.prompt, len(text))
	}
	return r.prompt, nil
}
