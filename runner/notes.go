package runner

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// NoteContextsChanged is the Run metadata key of the contexts a run
// measured at another length than asked (the server's context limit).
const NoteContextsChanged = "Contexts changed"

// NoteSlots is the Run metadata key of the warning that a concurrency
// exceeds the requests the server runs at once (its slots): such cells
// measure the slots running and the rest queued, and each says so.
const NoteSlots = "Concurrency above the server's slots"

// contextNotes says, for each requested context that the plan measures
// at another length, what was asked, what is measured and why: "128K
// (131072 tokens) measured as 123K (126912 tokens): max_model_len 131072
// − max_tokens 4096 − 64". Decode contexts leave room for
// max_tokens, prefill-only ones for one token.
func (r *Runner) contextNotes() []string {
	cfg := &r.cfg
	var out []string
	note := func(t int64, maxTokens int) {
		capped := capContext(t, r.info.MaxModelLen, maxTokens)
		if capped == t || capped <= 0 {
			return // unchanged, or not servable at all (another message)
		}
		n := fmt.Sprintf("%s (%d tokens) measured as %s (%d tokens): max_model_len %d − max_tokens %d − %d",
			ContextLabel(t), t, ContextLabel(capped), capped,
			r.info.MaxModelLen, maxTokens, contextMargin)
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, t := range cfg.Contexts {
		note(t, cfg.MaxTokens)
	}
	for _, t := range cfg.PrefillContexts {
		if !slices.Contains(cfg.Contexts, t) {
			note(t, 1)
		}
	}
	return out
}

// addNotes tells Config.Note each note and, on a new run, keeps them in
// the run's metadata under key.
func (r *Runner) addNotes(m *schema.Matrix, key string, notes []string) {
	if len(notes) == 0 {
		return
	}
	for _, n := range notes {
		if r.cfg.Note != nil {
			r.cfg.Note(n)
		}
	}
	if r.cfg.Done == nil {
		m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: key, Value: strings.Join(notes, "; ")})
	}
}
