package runner

import (
	"bytes"
	"errors"
)

// chunk holds the fields of one streamed completion chunk that the runner
// needs. String fields are the raw bytes between the quotes (still
// escaped when the matching esc flag is set) and alias the input.
type chunk struct {
	content, reasoning, text       []byte
	contentEsc, reasoningEsc       bool
	textEsc                        bool
	choices                        int // elements of "choices"; -1 when absent
	role, toolCalls, finish        bool
	usage                          bool
	completionTokens, promptTokens int64
	err                            bool
	errMsg                         []byte
}

// tokens reports whether the chunk carries generated output of any kind
// (content, reasoning, completion text or a tool call).
func (c *chunk) tokens() bool {
	return len(c.content) > 0 || len(c.reasoning) > 0 || len(c.text) > 0 || c.toolCalls
}

var errJSON = errors.New("malformed JSON in stream chunk")

// scanChunk extracts from one chunk's JSON the fields the runner uses:
// choices[0].delta.{content, reasoning_content, reasoning, role,
// tool_calls}, choices[0].text, choices[0].finish_reason,
// usage.{completion_tokens, prompt_tokens} and error (an object with a
// message, or a string). Every other value is skipped without decoding.
//
// Note: encoding/json is not used on this path because it allocates per
// call (a map or struct with strings per chunk, i.e. per token), and a
// server streaming 20K tok/s would spend more CPU in the client's decoder
// than the budget of 8 µs per token. This scanner walks the bytes
// once, allocates nothing and reads only the handful of fields above;
// TestScanChunkMatchesEncodingJSON and FuzzScanChunk check it against
// encoding/json. Its helpers return indexes, -1 for malformed input,
// rather than slices and errors, which keeps the hot loop in registers.
func scanChunk(b []byte, c *chunk) error {
	*c = chunk{choices: -1}
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errJSON
	}
	i++
	for first := true; ; first = false {
		ks, ke, v := objNext(b, i, first)
		if v < 0 {
			return errJSON
		}
		if ks < 0 {
			return nil
		}
		switch string(b[ks:ke]) {
		case "choices":
			i = scanChoices(b, v, c)
		case "usage":
			i = scanUsage(b, v, c)
		case "error":
			c.err = true
			i = scanError(b, v, c)
		default:
			i = skipValue(b, v)
		}
		if i < 0 {
			return errJSON
		}
	}
}

// objNext moves to the next member of an object: i is just after '{'
// (first) or just after the previous value. It returns the member's key
// as b[ks:ke] and the index v of its value; at the closing brace ks is -1
// and v the index after it; v is -1 for malformed input.
//
// Note: the scanner walks objects with this loop rather than a callback
// per key so that nothing escapes and no call is indirect.
func objNext(b []byte, i int, first bool) (ks, ke, v int) {
	i = skipWS(b, i)
	if i >= len(b) {
		return -1, -1, -1
	}
	if !first {
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return -1, -1, i + 1
		default:
			return -1, -1, -1
		}
	} else if b[i] == '}' {
		return -1, -1, i + 1
	}
	if i >= len(b) || b[i] != '"' {
		return -1, -1, -1
	}
	e := strEnd(b, i)
	if e < 0 {
		return -1, -1, -1
	}
	j := skipWS(b, e+1)
	if j >= len(b) || b[j] != ':' {
		return -1, -1, -1
	}
	return i + 1, e, skipWS(b, j+1)
}

// str reads the string at b[i] == '"' into *dst (raw bytes) and *esc
// (whether it holds escapes); it returns the index after it, or -1.
func str(b []byte, i int, dst *[]byte, esc *bool) int {
	e := strEnd(b, i)
	if e < 0 {
		return -1
	}
	*dst = b[i+1 : e]
	*esc = bytes.IndexByte(*dst, '\\') >= 0
	return e + 1
}

func scanChoices(b []byte, i int, c *chunk) int {
	if i < len(b) && b[i] == 'n' {
		return skipValue(b, i)
	}
	if i >= len(b) || b[i] != '[' {
		return -1
	}
	c.choices = 0
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		if c.choices == 0 && i < len(b) && b[i] == '{' {
			i = scanChoice(b, i, c)
		} else {
			i = skipValue(b, i)
		}
		if i < 0 {
			return -1
		}
		c.choices++
		i = skipWS(b, i)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// scanChoice reads choices[0], at b[i] == '{'.
func scanChoice(b []byte, i int, c *chunk) int {
	i++
	for first := true; ; first = false {
		ks, ke, v := objNext(b, i, first)
		if ks < 0 {
			return v
		}
		isStr := v < len(b) && b[v] == '"'
		switch string(b[ks:ke]) {
		case "delta":
			i = scanDelta(b, v, c)
		case "text":
			if isStr {
				i = str(b, v, &c.text, &c.textEsc)
			} else {
				i = skipValue(b, v)
			}
		case "finish_reason":
			c.finish = isStr
			i = skipValue(b, v)
		default:
			i = skipValue(b, v)
		}
		if i < 0 {
			return -1
		}
	}
}

func scanDelta(b []byte, i int, c *chunk) int {
	if i < len(b) && b[i] != '{' {
		return skipValue(b, i)
	}
	i++
	for first := true; ; first = false {
		ks, ke, v := objNext(b, i, first)
		if ks < 0 {
			return v
		}
		isStr := v < len(b) && b[v] == '"'
		switch string(b[ks:ke]) {
		case "content":
			if isStr {
				i = str(b, v, &c.content, &c.contentEsc)
			} else {
				i = skipValue(b, v)
			}
		case "reasoning_content", "reasoning":
			if isStr {
				var s []byte
				var esc bool
				i = str(b, v, &s, &esc)
				if len(s) > 0 || c.reasoning == nil {
					c.reasoning, c.reasoningEsc = s, esc
				}
			} else {
				i = skipValue(b, v)
			}
		case "role":
			c.role = isStr
			i = skipValue(b, v)
		case "tool_calls":
			c.toolCalls = v < len(b) && b[v] == '['
			i = skipValue(b, v)
		default:
			i = skipValue(b, v)
		}
		if i < 0 {
			return -1
		}
	}
}

func scanUsage(b []byte, i int, c *chunk) int {
	if i < len(b) && b[i] != '{' {
		return skipValue(b, i)
	}
	c.usage = true
	i++
	for first := true; ; first = false {
		ks, ke, v := objNext(b, i, first)
		if ks < 0 {
			return v
		}
		i = -1
		switch string(b[ks:ke]) {
		case "completion_tokens":
			var n int64
			if n, i = scanInt(b, v); i >= 0 {
				c.completionTokens = n
			}
		case "prompt_tokens":
			var n int64
			if n, i = scanInt(b, v); i >= 0 {
				c.promptTokens = n
			}
		}
		if i < 0 {
			if i = skipValue(b, v); i < 0 {
				return -1
			}
		}
	}
}

func scanError(b []byte, i int, c *chunk) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		var esc bool
		return str(b, i, &c.errMsg, &esc)
	case '{':
		i++
		for first := true; ; first = false {
			ks, ke, v := objNext(b, i, first)
			if ks < 0 {
				return v
			}
			if string(b[ks:ke]) == "message" && v < len(b) && b[v] == '"' {
				var esc bool
				i = str(b, v, &c.errMsg, &esc)
			} else {
				i = skipValue(b, v)
			}
			if i < 0 {
				return -1
			}
		}
	case 'n': // "error": null is no error
		c.err = false
	}
	return skipValue(b, i)
}
