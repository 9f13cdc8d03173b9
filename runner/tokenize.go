package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// tokenizeForm is the request a server's POST /tokenize understands.
type tokenizeForm int

const (
	tokenizeNone tokenizeForm = iota
	// tokenizeOpenAI is vLLM's form (SGLang takes its prompt variant):
	// {"model", "prompt"} or {"model", "messages",
	// "add_generation_prompt"}, answered with "count" and/or "tokens".
	tokenizeOpenAI
	// tokenizeContent is llama.cpp server's form: {"content",
	// "add_special"}, answered with "tokens". It sees the text only, not
	// the chat template.
	tokenizeContent
)

func (f tokenizeForm) String() string {
	switch f {
	case tokenizeOpenAI:
		return "model+prompt/messages"
	case tokenizeContent:
		return "content"
	}
	return "none"
}

// PromptFit says how prompt lengths are counted: by the server's
// /tokenize plus a fixed offset (exact), or, when Form is "none", by
// calibrating against the usage.prompt_tokens of max_tokens=1 probes.
type PromptFit struct {
	// Form is the request form /tokenize answered to ("none" when it is
	// not used).
	Form string
	// Offset is what the endpoint adds to /tokenize's count for the same
	// text (the chat template, a BOS token), as two probes of different
	// lengths agreed.
	Offset int64
	// Note says why /tokenize is not used, or that the offset could not
	// be checked.
	Note string
}

// Describe returns the method in a few words, for the run's metadata.
func (t PromptFit) Describe() string {
	switch {
	case t.Form == tokenizeNone.String():
		return "calibrated with max_tokens=1 probes (±1%)"
	case t.Offset == 0:
		return "exact, POST /tokenize"
	}
	return fmt.Sprintf("exact, POST /tokenize %+d", t.Offset)
}

// tokenizeAs asks /tokenize in form f for the token count of text.
func (c *Client) tokenizeAs(ctx context.Context, f tokenizeForm, text string) (int64, error) {
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	var body []byte
	switch f {
	case tokenizeOpenAI:
		req := struct {
			Model               string `json:"model"`
			Prompt              string `json:"prompt,omitempty"`
			Messages            []msg  `json:"messages,omitempty"`
			AddGenerationPrompt bool   `json:"add_generation_prompt,omitempty"`
		}{Model: c.model}
		if c.endpoint == EndpointChat {
			req.Messages = []msg{{Role: "user", Content: text}}
			req.AddGenerationPrompt = true
		} else {
			req.Prompt = text
		}
		body, _ = json.Marshal(req)
	case tokenizeContent:
		body, _ = json.Marshal(struct {
			Content    string `json:"content"`
			AddSpecial bool   `json:"add_special"`
		}{text, true})
	default:
		return 0, errors.New("POST /tokenize: not used")
	}
	var resp struct {
		Count  *int64            `json:"count"`
		Tokens []json.RawMessage `json:"tokens"` // ids, or {id, piece} objects
	}
	if err := c.doJSON(ctx, "POST", "/tokenize", body, &resp); err != nil {
		return 0, err
	}
	switch {
	case resp.Count != nil:
		return *resp.Count, nil
	case resp.Tokens != nil:
		return int64(len(resp.Tokens)), nil
	}
	return 0, errors.New("POST /tokenize: response has neither count nor tokens")
}

// tokenize is the countFunc of exact prompt fitting: /tokenize in the
// form Discover found, plus the endpoint's offset.
func (c *Client) tokenize(ctx context.Context, text string) (int64, error) {
	n, err := c.tokenizeAs(ctx, c.tok, text)
	if err != nil {
		return 0, err
	}
	return n + c.tokOffset, nil
}

// checkTokenize finds the /tokenize form whose counts, plus one fixed
// offset, are what the endpoint reports as usage.prompt_tokens for the
// same texts, and sets the client to use it.
//
// Note: a server's /tokenize does not always count what the endpoint
// sends: llama.cpp's takes {"content"} and answers {"tokens": []} to any
// other request (zero tokens, status 200) and sees no chat template;
// SGLang's takes a prompt but no messages. So a form is trusted only when
// it counts two texts of different lengths with the same offset to the
// probes' usage; otherwise prompts are calibrated with probes.
func (c *Client) checkTokenize(ctx context.Context) PromptFit {
	rng := newRand(0x70c3)
	short := "[" + NewTag() + " tokenize check] " + neutralText(rng, 300)
	long := "[" + NewTag() + " tokenize check] " + neutralText(rng, 3000)
	var probes [2]int64
	var probeErr error
	probed := false
	var notes []string
	for _, f := range []tokenizeForm{tokenizeOpenAI, tokenizeContent} {
		a, err := c.tokenizeAs(ctx, f, short)
		if err != nil {
			notes = append(notes, fmt.Sprintf("form %s: %v", f, err))
			continue
		}
		b, err := c.tokenizeAs(ctx, f, long)
		if err != nil {
			notes = append(notes, fmt.Sprintf("form %s: %v", f, err))
			continue
		}
		if a <= 0 || b <= a {
			notes = append(notes, fmt.Sprintf("form %s: counts %d and %d tokens for %d and %d bytes", f, a, b, len(short), len(long)))
			continue
		}
		if !probed {
			probed = true
			if probes[0], probeErr = c.probeTokens(ctx, short); probeErr == nil {
				probes[1], probeErr = c.probeTokens(ctx, long)
			}
		}
		if probeErr != nil {
			// Nothing to check against, and nothing to calibrate with
			// either: the answer of a form that counts is the best there is.
			c.tok, c.tokOffset = f, 0
			return PromptFit{Form: f.String(), Note: "offset not checked: " + probeErr.Error()}
		}
		if oa, ob := probes[0]-a, probes[1]-b; oa != ob {
			notes = append(notes, fmt.Sprintf("form %s: %d and %d tokens where the endpoint counts %d and %d", f, a, b, probes[0], probes[1]))
			continue
		}
		c.tok, c.tokOffset = f, probes[0]-a
		return PromptFit{Form: f.String(), Offset: c.tokOffset}
	}
	c.tok, c.tokOffset = tokenizeNone, 0
	t := PromptFit{Form: tokenizeNone.String()}
	if len(notes) > 0 {
		t.Note = notes[len(notes)-1]
		if len(notes) > 1 {
			t.Note = notes[0] + "; " + t.Note
		}
	}
	return t
}
