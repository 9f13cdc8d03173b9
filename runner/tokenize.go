package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	// Unchecked is true when the probes that learn the offset failed:
	// Offset is then what one probe showed, or 0 when none answered, and
	// prompt lengths are /tokenize's count plus it, not exact: the
	// endpoint may count the chat template's tokens more (or, with one
	// probe, a count that /tokenize and the endpoint share only at that
	// length).
	Unchecked bool
	// Note says why /tokenize is not used, or that the offset could not
	// be checked.
	Note string
}

// Describe returns the method in a few words, for the run's metadata.
func (t PromptFit) Describe() string {
	switch {
	case t.Form == tokenizeNone.String():
		return "calibrated with max_tokens=1 probes (±1%)"
	case t.Unchecked && t.Offset == 0:
		return "POST /tokenize, not exact: the endpoint's offset (its chat template's tokens) is unknown and not counted"
	case t.Unchecked:
		return fmt.Sprintf("POST /tokenize %+d, not exact: the offset was seen by one probe, not checked at a second length", t.Offset)
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

// Probe texts of checkTokenize, in bytes of prose: the short one first,
// then the long one, cut to fit the server (tokenizeLongFit).
const (
	tokenizeShortBytes = 300
	tokenizeLongBytes  = 3000
	// tokenizeMinBytes is the shortest text a probe is cut to when the
	// server refuses it for its context size.
	tokenizeMinBytes = 24
)

// checkTokenize finds the /tokenize form whose counts, plus one fixed
// offset, are what the endpoint reports as usage.prompt_tokens for the
// same texts, and sets the client to use it. maxModelLen (0: unknown) is
// the context one request may fill.
//
// Note: a server's /tokenize does not always count what the endpoint
// sends: llama.cpp's takes {"content"} and answers {"tokens": []} to any
// other request (zero tokens, status 200) and sees no chat template;
// SGLang's takes a prompt but no messages. So a form is trusted only when
// it counts two texts of different lengths with the same offset to the
// probes' usage; otherwise prompts are calibrated with probes.
//
// Note: the probes must fit the server. The short one goes first (and is
// halved while the server refuses it for its context size); the long one
// is cut until its /tokenize count, the offset the short one showed (the
// chat template) and its one output token fit maxModelLen, and halved
// again on a refusal. A fixed 3,000-byte probe (about 1,700 tokens of
// this prose with a 1.75 bytes/token tokenizer) was refused by
// llama.cpp's server with 1,024-token slots, and every prompt then went
// out short of its chat template's tokens: 298 sent for 256.
func (c *Client) checkTokenize(ctx context.Context, maxModelLen int64) PromptFit {
	rng := newRand(0x70c3)
	head := "[" + NewTag() + " tokenize check] "
	short := head + neutralText(rng, tokenizeShortBytes)
	long := "[" + NewTag() + " tokenize check] " + neutralText(rng, tokenizeLongBytes)
	var notes []string
	// The short probe's text and count, found once for every form.
	shortProbed := false
	var shortN int64
	var shortErr error
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
		if !shortProbed {
			shortProbed = true
			short, shortN, shortErr = c.probeFitting(ctx, short)
		}
		if shortErr != nil {
			// Nothing to check against, and nothing to calibrate with
			// either: the answer of a form that counts is the best there
			// is, short of the endpoint's offset.
			c.tok, c.tokOffset = f, 0
			return PromptFit{Form: f.String(), Unchecked: true, Note: "offset not checked: " + shortErr.Error() +
				"; prompts are sent as /tokenize counts them, short of what the endpoint adds (its chat template's tokens)"}
		}
		if a, err = c.tokenizeAs(ctx, f, short); err != nil || a <= 0 {
			notes = append(notes, fmt.Sprintf("form %s: %v", f, err))
			continue
		}
		offset := shortN - a
		longText, longN, err := c.probeLong(ctx, f, long, len(short), offset, maxModelLen)
		if err != nil {
			c.tok, c.tokOffset = f, offset
			return PromptFit{Form: f.String(), Offset: offset, Unchecked: true,
				Note: fmt.Sprintf("offset %+d seen by one probe of %d tokens, not checked at a second length: %v", offset, shortN, err)}
		}
		lb, err := c.tokenizeAs(ctx, f, longText)
		if err != nil {
			notes = append(notes, fmt.Sprintf("form %s: %v", f, err))
			continue
		}
		if ob := longN - lb; ob != offset {
			notes = append(notes, fmt.Sprintf("form %s: %d and %d tokens where the endpoint counts %d and %d", f, a, lb, shortN, longN))
			continue
		}
		c.tok, c.tokOffset = f, offset
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

// probeFitting probes text, halving it while the server refuses it for
// its context size; it returns the text the server took and its count.
func (c *Client) probeFitting(ctx context.Context, text string) (string, int64, error) {
	for {
		n, err := c.probeTokens(ctx, text)
		if err == nil || !contextRefused(err) || len(text)/2 < tokenizeMinBytes {
			return text, n, err
		}
		text = text[:len(text)/2]
	}
}

// probeLong probes the long text of checkTokenize in form f, cut first
// so that its /tokenize count plus offset (the endpoint's, from the short
// probe) plus one output token fits maxModelLen, then halved while the
// server refuses it for its context size; it stays longer than the short
// text (shortLen bytes), or fails.
func (c *Client) probeLong(ctx context.Context, f tokenizeForm, long string, shortLen int, offset, maxModelLen int64) (string, int64, error) {
	minLen := shortLen + shortLen/2
	if maxModelLen > 0 {
		for len(long)/2 >= minLen {
			n, err := c.tokenizeAs(ctx, f, long)
			if err != nil {
				return "", 0, err
			}
			if n+offset+1 <= maxModelLen {
				break
			}
			long = long[:len(long)/2]
		}
	}
	for {
		n, err := c.probeTokens(ctx, long)
		if err == nil || !contextRefused(err) || len(long)/2 < minLen {
			return long, n, err
		}
		long = long[:len(long)/2]
	}
}

// contextRefusals are what servers answer a prompt too long for the
// context a request may fill, in lower case: llama.cpp's server ("the
// request exceeds the available context size"), vLLM ("maximum context
// length"), TGI ("must be <= N", max_total_tokens).
var contextRefusals = []string{"context size", "context length", "context window", "max_total_tokens", "input validation error", "too long"}

// contextRefused reports whether a probe's error says its prompt does not
// fit the server's context.
func contextRefused(err error) bool {
	e := strings.ToLower(err.Error())
	for _, m := range contextRefusals {
		if strings.Contains(e, m) {
			return true
		}
	}
	return false
}
