package canonjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendStringMatchesMarshal compares AppendString with
// encoding/json on strings of runs of plain bytes broken by every kind
// of byte it escapes or decodes.
func TestAppendStringMatchesMarshal(t *testing.T) {
	pieces := []string{"a", "plain text ", "0123456789abcdef", "\"", "\\", "<", ">", "&", "\n", "\x00", "\x1f", "\x7f",
		"é", "·", "\u2028", "\u2029", "🚀", "\xff", "\xe2\x82", " ", "%", "'"}
	r := rand.New(rand.NewPCG(4, 8))
	for range 20000 {
		var sb strings.Builder
		for n := r.IntN(12); n > 0; n-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := sb.String()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s)[1:]; !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	}
}
