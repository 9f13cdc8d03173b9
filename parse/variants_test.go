package parse

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// variantsGolden holds one line per variant document of
// TestVariantsUnchanged: its number, "ok" or "err", and a hash of the
// parsed matrices (as JSON) or of the error message, cut to 16 hex
// digits.
var variantsGolden = filepath.Join("testdata", "golden", "variants.txt")

// variantSources are the documents the variants are made from: the two
// seeds, their Markdown and HTML forms, and the bad documents.
func variantSources(t *testing.T) [][]byte {
	t.Helper()
	var names []string
	for _, g := range []string{"../testdata/seeds/*.txt", "testdata/forms/*.md", "testdata/forms/*.html", "testdata/bad/*.txt"} {
		ns, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, ns...)
	}
	var docs [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	if len(docs) < 20 {
		t.Fatalf("%d source documents: testdata is missing", len(docs))
	}
	return docs
}

// mutate returns b with one to three random edits: bytes deleted,
// replaced by digits, separators or other bytes, lines repeated or
// dropped, figures, dashes, units and spaces inserted, line ends turned
// into CRLF.
func mutate(r *rand.Rand, b []byte) []byte {
	b = bytes.Clone(b)
	inserts := []string{"—", "\u00a0", "n/a", " ms", "K", "Looped", "Valid", " tok/s", "\xff", "µs", `\|`, "Ke", "−", " ", "\t", "\u2009"}
	for k := 1 + r.IntN(3); k > 0 && len(b) > 0; k-- {
		i := r.IntN(len(b))
		start := bytes.LastIndexByte(b[:i], '\n') + 1
		end := bytes.IndexByte(b[i:], '\n')
		switch r.IntN(9) {
		case 0:
			b = append(b[:i:i], b[min(len(b), i+1+r.IntN(20)):]...)
		case 1:
			b[i] = "0123456789"[r.IntN(10)]
		case 2:
			b[i] = " |,.-KM\n\r\t"[r.IntN(10)]
		case 3:
			if end >= 0 {
				line := bytes.Clone(b[start : i+end+1])
				b = append(b[:start:start], append(line, b[start:]...)...)
			}
		case 4:
			if end >= 0 {
				b = append(b[:start:start], b[i+end+1:]...)
			}
		case 5, 6:
			b = append(b[:i:i], append([]byte(inserts[r.IntN(len(inserts))]), b[i:]...)...)
		case 7:
			b = bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
		case 8:
			b[i] ^= 0x20
		}
	}
	return b
}

// TestVariantsUnchanged parses 60 random variants of each source
// document (and the documents themselves) and compares what each gives
// with the golden file, written by the parser before its fast paths: the
// same matrices and run ids, or the same error at the same line.
func TestVariantsUnchanged(t *testing.T) {
	docs := variantSources(t)
	r := rand.New(rand.NewPCG(7, 9))
	var out bytes.Buffer
	n := 0
	for _, d := range docs {
		for k := 0; k <= 60; k++ {
			b := d
			if k > 0 {
				b = mutate(r, d)
			}
			n++
			ms, err := ParseAllBytes(b, "v.txt", "")
			if err != nil {
				sum := sha256.Sum256([]byte(err.Error()))
				fmt.Fprintf(&out, "%d err %x\n", n, sum[:8])
				continue
			}
			j, err := json.Marshal(ms)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(j)
			fmt.Fprintf(&out, "%d ok %x\n", n, sum[:8])
		}
	}
	if *update {
		if err := os.WriteFile(variantsGolden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(variantsGolden)
	if err != nil {
		t.Fatal(err)
	}
	got, wl := bytes.Split(out.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
	if len(got) != len(wl) {
		t.Fatalf("%d variants, the golden file has %d", len(got), len(wl))
	}
	bad := 0
	for i := range got {
		if !bytes.Equal(got[i], wl[i]) {
			if bad++; bad <= 10 {
				t.Errorf("variant: got %s, want %s", got[i], wl[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d variants parse differently", bad, n)
	}
}
