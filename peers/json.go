package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// num is a JSON number as other tools write it: a number, a numeric
// string ("inf", "1.5"), the bare literals Infinity/NaN (after
// sanitizeJSON), or null. Set is false when the field was absent or null.
type num struct {
	V   float64
	Set bool
}

// UnmarshalJSON accepts numbers, numeric strings and null.
func (n *num) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		*n = num{}
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		s = strings.TrimSpace(str)
		if s == "" {
			*n = num{}
			return nil
		}
	}
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		*n = num{V: math.Inf(1), Set: true}
		return nil
	case "-inf", "-infinity":
		*n = num{V: math.Inf(-1), Set: true}
		return nil
	case "nan":
		*n = num{V: math.NaN(), Set: true}
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %q", s)
	}
	*n = num{V: v, Set: true}
	return nil
}

// ptr returns the value as an optional column, nil when unset or NaN.
func (n num) ptr() *float64 {
	if !n.Set || math.IsNaN(n.V) {
		return nil
	}
	v := n.V
	return &v
}

// scaled returns the value times k as an optional column (seconds to
// milliseconds: k = 1000).
func (n num) scaled(k float64) *float64 {
	p := n.ptr()
	if p == nil {
		return nil
	}
	v := *p * k
	return &v
}

// int returns the value rounded to an integer as an optional column.
func (n num) int() *int64 {
	if !n.Set || math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return nil
	}
	v := int64(math.Round(n.V))
	return &v
}

// sanitizeJSON rewrites the bare literals Infinity, -Infinity and NaN
// that Python's json module writes (and encoding/json rejects) into
// strings, outside string literals only. Byte offsets before the first
// rewrite are unchanged; later ones shift by two per rewrite, which is
// acceptable for line numbers since no newline is added.
//
// Note: a streaming rewrite keeps this O(n) and allocation-light; no
// library parses Python's JSON dialect.
func sanitizeJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte("Infinity")) && !bytes.Contains(b, []byte("NaN")) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out.WriteByte(c)
		case bytes.HasPrefix(b[i:], []byte("-Infinity")):
			out.WriteString(`"-Infinity"`)
			i += len("-Infinity") - 1
		case bytes.HasPrefix(b[i:], []byte("Infinity")):
			out.WriteString(`"Infinity"`)
			i += len("Infinity") - 1
		case bytes.HasPrefix(b[i:], []byte("NaN")):
			out.WriteString(`"NaN"`)
			i += len("NaN") - 1
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

// lineAt returns the 1-based line of byte offset off in b.
func lineAt(b []byte, off int64) int {
	if off < 0 {
		off = 0
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return bytes.Count(b[:off], []byte("\n")) + 1
}

// jsonError turns an encoding/json error into a positioned *Error. base
// is the line the decoded text starts on (1 for a whole file, the line
// number for one line of JSON Lines).
func jsonError(name string, b []byte, base int, err error) *Error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return errorf(name, base+lineAt(b, se.Offset)-1, "invalid JSON: %v", se)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "value"
		}
		return errorf(name, base+lineAt(b, te.Offset)-1, "%s: %s where %s was expected", field, te.Value, te.Type)
	}
	return errorf(name, base, "invalid JSON: %v", err)
}

// keyLine returns the line on which "key" first appears in b as an
// object key, or fallback.
func keyLine(b []byte, key string, fallback int) int {
	i := bytes.Index(b, []byte(`"`+key+`"`))
	if i < 0 {
		return fallback
	}
	return lineAt(b, int64(i))
}

// tokenLabel prints a token count the way the seeds label contexts: floor
// of tokens / 1024 with a K suffix at 1024 and above, else the count.
func tokenLabel(tokens int64) string {
	if tokens >= 1024 {
		return strconv.FormatInt(tokens/1024, 10) + "K"
	}
	return strconv.FormatInt(tokens, 10)
}

// jsonLines splits b into its non-blank lines with their 1-based line
// numbers, for JSON Lines files.
func jsonLines(b []byte) (lines [][]byte, numbers []int) {
	n := 0
	for len(b) > 0 {
		n++
		i := bytes.IndexByte(b, '\n')
		var line []byte
		if i < 0 {
			line, b = b, nil
		} else {
			line, b = b[:i], b[i+1:]
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			lines = append(lines, t)
			numbers = append(numbers, n)
		}
	}
	return lines, numbers
}
