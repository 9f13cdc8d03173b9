package runner

import (
	"bytes"
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
	i++
	for first := true; ; first = false {
		key, v, done, err := objNext(b, i, first)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		switch string(key) {
		case "choices":
			i, err = scanChoices(b, v, c)
		case "usage":
			i, err = scanUsage(b, v, c)
		case "error":
			c.err = true
			i, err = scanError(b, v, c)
		default:
			i, err = skipValue(b, v)
		}
		if err != nil {
			return err
		}
	}
}

// objNext moves to the next member of an object: i is just after '{'
// (first) or just after the previous value. It returns the member's key
// (raw bytes) and the index of its value, or done at the closing brace.
//
// Note: the scanner walks objects with this loop rather than a callback
// per key so that nothing escapes and no call is indirect; it is the hot
// path of the client.
func objNext(b []byte, i int, first bool) (key []byte, v int, done bool, err error) {
	i = skipWS(b, i)
	if i >= len(b) {
		return nil, 0, false, errJSON
	}
	if !first {
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return nil, i + 1, true, nil
		default:
			return nil, 0, false, errJSON
		}
	} else if b[i] == '}' {
		return nil, i + 1, true, nil
	}
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false, errJSON
	}
	key, j, _, err := scanString(b, i)
	if err != nil {
		return nil, 0, false, err
	}
	j = skipWS(b, j)
	if j >= len(b) || b[j] != ':' {
		return nil, 0, false, errJSON
	}
	return key, skipWS(b, j+1), false, nil
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
			i, err = scanChoice(b, i, c)
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

// scanChoice reads choices[0], at b[i] == '{'.
func scanChoice(b []byte, i int, c *chunk) (int, error) {
	i++
	for first := true; ; first = false {
		key, v, done, err := objNext(b, i, first)
		if err != nil {
			return 0, err
		}
		if done {
			return v, nil
		}
		switch string(key) {
		case "delta":
			i, err = scanDelta(b, v, c)
		case "text":
			if v < len(b) && b[v] == '"' {
				c.text, i, c.textEsc, err = scanString(b, v)
				c.textEsc = hasEscape(c.text, c.textEsc)
			} else {
				i, err = skipValue(b, v)
			}
		case "finish_reason":
			c.finish = v < len(b) && b[v] == '"'
			i, err = skipValue(b, v)
		default:
			i, err = skipValue(b, v)
		}
		if err != nil {
			return 0, err
		}
	}
}

func scanDelta(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] != '{' {
		return skipValue(b, i)
	}
	i++
	for first := true; ; first = false {
		key, v, done, err := objNext(b, i, first)
		if err != nil {
			return 0, err
		}
		if done {
			return v, nil
		}
		isStr := v < len(b) && b[v] == '"'
		switch string(key) {
		case "content":
			if isStr {
				c.content, i, c.contentEsc, err = scanString(b, v)
				c.contentEsc = hasEscape(c.content, c.contentEsc)
				break
			}
			i, err = skipValue(b, v)
		case "reasoning_content", "reasoning":
			if isStr {
				var s []byte
				var esc bool
				s, i, esc, err = scanString(b, v)
				if len(s) > 0 || c.reasoning == nil {
					c.reasoning, c.reasoningEsc = s, hasEscape(s, esc)
				}
				break
			}
			i, err = skipValue(b, v)
		case "role":
			c.role = isStr
			i, err = skipValue(b, v)
		case "tool_calls":
			c.toolCalls = v < len(b) && b[v] == '['
			i, err = skipValue(b, v)
		default:
			i, err = skipValue(b, v)
		}
		if err != nil {
			return 0, err
		}
	}
}

func scanUsage(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] != '{' {
		return skipValue(b, i)
	}
	c.usage = true
	i++
	for first := true; ; first = false {
		key, v, done, err := objNext(b, i, first)
		if err != nil {
			return 0, err
		}
		if done {
			return v, nil
		}
		var n int64
		var ok bool
		switch string(key) {
		case "completion_tokens":
			if n, i, ok = scanInt(b, v); ok {
				c.completionTokens = n
				continue
			}
		case "prompt_tokens":
			if n, i, ok = scanInt(b, v); ok {
				c.promptTokens = n
				continue
			}
		}
		if i, err = skipValue(b, v); err != nil {
			return 0, err
		}
	}
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
		i++
		for first := true; ; first = false {
			key, v, done, err := objNext(b, i, first)
			if err != nil {
				return 0, err
			}
			if done {
				return v, nil
			}
			if string(key) == "message" && v < len(b) && b[v] == '"' {
				c.errMsg, i, _, err = scanString(b, v)
			} else {
				i, err = skipValue(b, v)
			}
			if err != nil {
				return 0, err
			}
		}
	case 'n': // "error": null is no error
		c.err = false
	}
	return skipValue(b, i)
}

// hasEscape reports whether a string body holds a backslash escape.
func hasEscape(s []byte, esc bool) bool { return esc || bytes.IndexByte(s, '\\') >= 0 }

func skipWS(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the raw bytes of the string at b[i] == '"', the
// index after its closing quote and whether it holds escapes. It finds
// quotes with bytes.IndexByte (vectorized), which beats a byte loop for
// all but the shortest strings.
func scanString(b []byte, i int) ([]byte, int, bool, error) {
	// Keys and most values are short: a plain loop over the first bytes
	// beats the call into the vectorized search.
	end := min(len(b), i+1+24)
	for j := i + 1; j < end; j++ {
		switch b[j] {
		case '"':
			return b[i+1 : j], j + 1, false, nil
		case '\\':
			return scanStringSlow(b, i)
		}
	}
	return scanStringSlow(b, i)
}

// scanStringSlow is scanString for long strings and strings with escapes.
func scanStringSlow(b []byte, i int) ([]byte, int, bool, error) {
	j := i + 1
	for j <= len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		if b[q-1] != '\\' {
			// esc is only reported when a backslash precedes a quote;
			// callers that decode text check the rest (hasEscape).
			return b[i+1 : q], q + 1, false, nil
		}
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return b[i+1 : q], q + 1, true, nil
		}
		j = q + 1
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
