package runner

import (
	"errors"
	"unicode/utf8"
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
// TestScanChunkMatchesEncodingJSON checks it against encoding/json.
func scanChunk(b []byte, c *chunk) error {
	*c = chunk{choices: -1}
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errJSON
	}
	_, err := eachKey(b, i, func(key []byte, i int) (int, error) {
		switch string(key) {
		case "choices":
			return scanChoices(b, i, c)
		case "usage":
			return scanUsage(b, i, c)
		case "error":
			c.err = true
			return scanError(b, i, c)
		}
		return skipValue(b, i)
	})
	return err
}

func scanChoices(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] == 'n' {
		return skipValue(b, i)
	}
	if i >= len(b) || b[i] != '[' {
		return 0, errJSON
	}
	c.choices = 0
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if c.choices == 0 && i < len(b) && b[i] == '{' {
			i, err = eachKey(b, i, func(key []byte, i int) (int, error) {
				switch string(key) {
				case "delta", "message":
					return scanDelta(b, i, c)
				case "text":
					if i < len(b) && b[i] == '"' {
						s, j, esc, err := scanString(b, i)
						c.text, c.textEsc = s, esc
						return j, err
					}
				case "finish_reason":
					c.finish = i < len(b) && b[i] == '"'
				}
				return skipValue(b, i)
			})
		} else {
			i, err = skipValue(b, i)
		}
		if err != nil {
			return 0, err
		}
		c.choices++
		i = skipWS(b, i)
		if i >= len(b) {
			return 0, errJSON
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, errJSON
		}
	}
}

func scanDelta(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] != '{' {
		return skipValue(b, i)
	}
	return eachKey(b, i, func(key []byte, i int) (int, error) {
		switch string(key) {
		case "content":
			if i < len(b) && b[i] == '"' {
				s, j, esc, err := scanString(b, i)
				c.content, c.contentEsc = s, esc
				return j, err
			}
		case "reasoning_content", "reasoning":
			if i < len(b) && b[i] == '"' {
				s, j, esc, err := scanString(b, i)
				if len(s) > 0 || c.reasoning == nil {
					c.reasoning, c.reasoningEsc = s, esc
				}
				return j, err
			}
		case "role":
			c.role = true
		case "tool_calls":
			c.toolCalls = i < len(b) && b[i] == '['
		}
		return skipValue(b, i)
	})
}

func scanUsage(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] != '{' {
		return skipValue(b, i)
	}
	c.usage = true
	return eachKey(b, i, func(key []byte, i int) (int, error) {
		switch string(key) {
		case "completion_tokens":
			n, j, ok := scanInt(b, i)
			if ok {
				c.completionTokens = n
				return j, nil
			}
		case "prompt_tokens":
			n, j, ok := scanInt(b, i)
			if ok {
				c.promptTokens = n
				return j, nil
			}
		}
		return skipValue(b, i)
	})
}

func scanError(b []byte, i int, c *chunk) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch b[i] {
	case '"':
		s, j, _, err := scanString(b, i)
		c.errMsg = s
		return j, err
	case '{':
		return eachKey(b, i, func(key []byte, i int) (int, error) {
			if string(key) == "message" && i < len(b) && b[i] == '"' {
				s, j, _, err := scanString(b, i)
				c.errMsg = s
				return j, err
			}
			return skipValue(b, i)
		})
	case 'n': // "error": null is no error
		c.err = false
	}
	return skipValue(b, i)
}

// eachKey walks the object starting at b[i] == '{' and calls f with each
// key (raw bytes) and the index of its value; f returns the index after
// the value. It returns the index after the closing brace.
func eachKey(b []byte, i int, f func(key []byte, i int) (int, error)) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, errJSON
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errJSON
		}
		key, j, _, err := scanString(b, i)
		if err != nil {
			return 0, err
		}
		j = skipWS(b, j)
		if j >= len(b) || b[j] != ':' {
			return 0, errJSON
		}
		j = skipWS(b, j+1)
		if j, err = f(key, j); err != nil {
			return 0, err
		}
		j = skipWS(b, j)
		if j >= len(b) {
			return 0, errJSON
		}
		switch b[j] {
		case ',':
			i = skipWS(b, j+1)
		case '}':
			return j + 1, nil
		default:
			return 0, errJSON
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the raw bytes of the string at b[i] == '"', the
// index after its closing quote and whether it holds escapes.
func scanString(b []byte, i int) ([]byte, int, bool, error) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return b[i+1 : j], j + 1, esc, nil
		case '\\':
			esc = true
			j++
		}
	}
	return nil, 0, false, errJSON
}

// scanInt reads a non-negative integer (a token count).
func scanInt(b []byte, i int) (int64, int, bool) {
	var n int64
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		n = n*10 + int64(b[j]-'0')
		j++
	}
	if j == i || (j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E')) {
		return 0, i, false
	}
	return n, j, true
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch b[i] {
	case '"':
		_, j, _, err := scanString(b, i)
		return j, err
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			case '"':
				_, k, _, err := scanString(b, j)
				if err != nil {
					return 0, err
				}
				j = k - 1
			}
		}
		return 0, errJSON
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\n', '\t', '\r':
				if j == i {
					return 0, errJSON
				}
				return j, nil
			}
			j++
		}
		if j == i {
			return 0, errJSON
		}
		return j, nil
	}
}

// appendUnescaped appends the JSON string body s (without quotes) to dst,
// decoding escapes. Invalid escapes are copied as they are.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'u':
			r, n := hex4(s[i+1:])
			if n == 0 {
				dst = append(dst, '\\', 'u')
				continue
			}
			i += n
			if r >= 0xD800 && r < 0xDC00 && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2, n2 := hex4(s[i+3:]); n2 > 0 && r2 >= 0xDC00 && r2 < 0xE000 {
					r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
					i += 2 + n2
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, s[i])
		}
	}
	return dst
}

func hex4(s []byte) (rune, int) {
	if len(s) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 4
}
