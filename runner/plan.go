package runner

import (
	"context"
	mrand "math/rand/v2"
	"slices"

	"speedmatrix/schema"
)

// planContext is one context of the run and its cells, in order.
type planContext struct {
	tokens int64
	label  string
	cells  []planCell
}

type planCell struct {
	phase  schema.Phase
	label  string
	tokens int64
	c      int
	over   bool
}

func (c planCell) key() string { return cellKey(c.phase, c.label, int32(c.c)) }

// plan lists contexts (capped, labelled, deduplicated, ascending) with
// their prefill cell first and decode cells by concurrency. Every decode
// context gets a prefill cell (its scout measures it for free), and so
// does every prefill context, as the seeds' "prefill at 8K, …, 123K,
// 128K" shows. Decode contexts are capped at max_model_len − max_tokens −
// 64; prefill-only ones, sent with max_tokens=1, at max_model_len − 65.
func (r *Runner) plan() []planContext {
	cfg := &r.cfg
	byTokens := map[int64]*planContext{}
	get := func(t int64) *planContext {
		if p := byTokens[t]; p != nil {
			return p
		}
		p := &planContext{tokens: t, label: ContextLabel(t)}
		byTokens[t] = p
		return p
	}
	addPrefill := func(p *planContext) {
		if !slices.ContainsFunc(p.cells, func(x planCell) bool { return x.phase == schema.PhasePrefill }) {
			p.cells = append(p.cells, planCell{phase: schema.PhasePrefill, label: p.label, c: 1})
		}
	}
	for _, t := range cfg.Contexts {
		p := get(capContext(t, r.info.MaxModelLen, cfg.MaxTokens))
		addPrefill(p)
		for _, c := range cfg.Concurrency {
			cell := planCell{phase: schema.PhaseDecode, label: p.label, c: c,
				over: overCapacity(c, p.tokens, cfg.MaxTokens, r.info.KVTokens)}
			if !slices.ContainsFunc(p.cells, func(x planCell) bool { return x.key() == cell.key() }) {
				p.cells = append(p.cells, cell)
			}
		}
	}
	for _, t := range cfg.PrefillContexts {
		addPrefill(get(capContext(t, r.info.MaxModelLen, 1)))
	}
	var out []planContext
	for _, p := range byTokens {
		slices.SortStableFunc(p.cells, func(a, b planCell) int {
			if a.phase != b.phase {
				if a.phase == schema.PhasePrefill {
					return -1
				}
				return 1
			}
			return a.c - b.c
		})
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b planContext) int { return int(a.tokens - b.tokens) })
	return out
}

// buildPrompt fits a prompt of tokens tokens for a context.
func (r *Runner) buildPrompt(ctx context.Context, tokens int64, label, tag string) (Prompt, error) {
	head := promptHead(tag, label)
	seed := uint64(len(tag)) ^ uint64(tokens)
	for _, c := range tag {
		seed = seed*131 + uint64(c)
	}
	body := neutralText(mrand.New(mrand.NewPCG(seed, uint64(tokens))), int(tokens)*8+4096)
	if r.c.tok != tokenizeNone {
		p, err := fitPrompt(ctx, head, body, tokens, r.c.tokenize, true)
		p.Exact = p.Exact && !r.info.PromptFit.Unchecked
		return p, err
	}
	// Probes must not warm the prefix cache for the measured prompt: they
	// carry another tag of the same shape.
	return fitProbed(ctx, head, promptHead(NewTag(), label), body, tokens, r.c.probeTokens)
}
