package runner

// The JSON lexing under the stream-chunk scanner (chunk.go): whitespace,
// string ends (eight bytes at a time), integers, skipping any value, and
// unescaping. Only what a chunk's scanner needs; malformed input stops at
// the byte that breaks it and the scanner reports errJSON.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// skipWS returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipWS(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// strEnd returns the index of the closing quote of the string at
// b[i] == '"', or -1 when it is unterminated.
//
// Note: keys and most values are short. The first bytes are searched for a
// quote eight at a time in a 64-bit word (SWAR: a byte equal to '"' turns
// its high bit on), which beats both a per-byte loop and the call into the
// vectorized bytes.IndexByte; long strings go to the latter. The first
// quote not preceded by a backslash ends the string, so backslashes need a
// look only when one stands right before the quote found.
func strEnd(b []byte, i int) int {
	j := i + 1
	if j+16 <= len(b) {
		// Most keys and short values end within 16 bytes: the first two
		// words (the second read only when the first has no quote) give
		// the quote's position, then one test tells whether it was found.
		t := bits.TrailingZeros64(hasQuote(binary.LittleEndian.Uint64(b[j:])))
		if t == 64 {
			t += bits.TrailingZeros64(hasQuote(binary.LittleEndian.Uint64(b[j+8:])))
		}
		if t < 128 {
			k := j + t>>3
			if b[k-1] != '\\' {
				return k
			}
			return strEndSlow(b, i)
		}
		j += 16
	}
	for n := 0; n < swarWords && j+8 <= len(b); n++ {
		if m := hasQuote(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			k := j + bits.TrailingZeros64(m)>>3
			if b[k-1] != '\\' {
				return k
			}
			return strEndSlow(b, i)
		}
		j += 8
	}
	return strEndSlow(b, i)
}

// swarWords bounds the words strEnd tests before handing a long string to
// the vectorized search.
const swarWords = 4

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasQuote returns a mask whose lowest set bit is the high bit of the
// first byte of w (little-endian) that is '"'. Bits above the first match
// may be spurious (a borrow), so only the lowest is used.
func hasQuote(w uint64) uint64 {
	q := w ^ (lsb * '"')
	return (q - lsb) &^ q & msb
}

// strEndSlow is strEnd for long strings, strings with an escaped quote and
// the last bytes of the input: it jumps between quotes with the vectorized
// search and counts the backslashes before each.
func strEndSlow(b []byte, i int) int {
	j := i + 1
	for j <= len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		j = q + 1
	}
	return -1
}

// scanInt reads a non-negative integer (a token count); the index is -1
// when the value is not one.
func scanInt(b []byte, i int) (int64, int) {
	var n int64
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		n = n*10 + int64(b[j]-'0')
		j++
	}
	if j == i || (j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E')) {
		return 0, -1
	}
	return n, j
}

// skipValue returns the index after the JSON value starting at b[i], or
// -1.
//
// Note: containers and scalars are walked with lookup tables (byteClass)
// so that the loop over uninteresting bytes is one load and one test per
// byte rather than a switch; strings inside containers jump to their end
// with strEnd.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		e := strEnd(b, i)
		if e < 0 {
			return -1
		}
		return e + 1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			for byteClass[b[j]]&classStruct == 0 {
				if j++; j >= len(b) {
					return -1
				}
			}
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			default: // '"'
				e := strEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e
			}
		}
		return -1
	default:
		j := i
		for j < len(b) && byteClass[b[j]]&classScalarEnd == 0 {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// Byte classes for skipValue.
const (
	classStruct    = 1 << iota // '{', '}', '[', ']', '"': a container's structure
	classScalarEnd             // ',', '}', ']' or white space: ends a number or literal
)

// byteClass maps each byte to its classes.
var byteClass = func() (t [256]uint8) {
	for _, c := range []byte("{}[]\"") {
		t[c] |= classStruct
	}
	for _, c := range []byte(",}] \n\t\r") {
		t[c] |= classScalarEnd
	}
	return t
}()

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
