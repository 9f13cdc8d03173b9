package parse

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// streamed parses b with ParseAllStream and returns its matrix with the
// measurements Each gives put back.
func streamed(t *testing.T, b []byte, name string) ([]*schema.Matrix, error) {
	t.Helper()
	ms, rows, err := ParseAllStream(bytes.NewReader(b), name, "", nil)
	if err != nil || rows == nil {
		return ms, err
	}
	if len(ms) != 1 || ms[0].Measurements != nil {
		t.Fatalf("%s: streamed document gave %d matrices, the first with %d measurements", name, len(ms), len(ms[0].Measurements))
	}
	err = rows.Each(func(p []schema.Measurement) error {
		if len(p) > pieceRows {
			t.Errorf("%s: a piece of %d rows, want at most %d", name, len(p), pieceRows)
		}
		ms[0].Measurements = append(ms[0].Measurements, p...)
		return nil
	})
	if got := len(ms[0].Measurements); got != rows.Len() {
		t.Errorf("%s: Each gave %d rows, Len says %d", name, got, rows.Len())
	}
	return ms, err
}

// TestStreamSameAsWhole parses every test document both whole and in
// pieces of 3 rows (every table streams): the same matrix, run id and
// measurements, or the same error; and again with every row key of the
// same hash (the duplicate check then compares the rows themselves).
func TestStreamSameAsWhole(t *testing.T) {
	defer func(s, p int) { streamRows, pieceRows = s, p }(streamRows, pieceRows)
	streamRows, pieceRows = 0, 3
	t.Run("hashes", func(t *testing.T) { sameAsWhole(t) })
	defer func(h func(maphash.Seed, rowKey) uint64) { keyHash = h }(keyHash)
	keyHash = func(maphash.Seed, rowKey) uint64 { return 7 }
	t.Run("one hash", func(t *testing.T) { sameAsWhole(t) })
}

func sameAsWhole(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/bad/*.txt", "testdata/forms/*.md", "testdata/forms/*.html",
		filepath.Join(testtool.RepoRoot(t), "testdata", "seeds", "*.txt")} {
		ps, _ := filepath.Glob(g)
		paths = append(paths, ps...)
	}
	if len(paths) < 25 {
		t.Fatalf("only %d test documents", len(paths))
	}
	streams := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		compareStream(t, b, p)
		if _, rows, err := ParseAllStream(bytes.NewReader(b), p, "", nil); err == nil && rows != nil {
			streams++
		}
	}
	if streams < 4 {
		t.Errorf("only %d documents streamed", streams)
	}
}

// compareStream checks that b parses the same whole and streamed.
func compareStream(t *testing.T, b []byte, name string) {
	t.Helper()
	want, werr := ParseAllBytes(b, name, "")
	got, gerr := streamed(t, b, name)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Errorf("%s: streamed error\n%v\nwant\n%v", name, gerr, werr)
		return
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("%s: streamed matrix differs (run id %s, want %s)", name, got[0].Run.RunID, want[0].Run.RunID)
	}
}

// TestStreamBadLateRow grows a seed to 70,000 rows (so it streams at the
// real threshold) and breaks or duplicates a row near its end: the
// same error as the whole parse, from the first pass.
func TestStreamBadLateRow(t *testing.T) {
	ps, _ := filepath.Glob(filepath.Join(testtool.RepoRoot(t), "testdata", "seeds", "*.txt"))
	if len(ps) == 0 {
		t.Fatal("no seeds")
	}
	seed, err := os.ReadFile(ps[0])
	if err != nil {
		t.Fatal(err)
	}
	const last = "| Sustained decode | 123K | 128 | Over capacity |"
	head, tail, ok := strings.Cut(string(seed), last)
	if !ok {
		t.Fatal("seed without its last All measurements row")
	}
	end := strings.IndexByte(tail, '\n')
	grow := func(extra string) []byte {
		var b strings.Builder
		b.WriteString(head + last + tail[:end+1])
		for c := 200; c < 200+streamRows/8+100; c++ {
			for k := 0; k < 8; k++ {
				fmt.Fprintf(&b, "| Sustained decode | %dK | %d | Valid | %d.%d | 4%d.%d | %d ms | 3.%d ms | %d.0 | %d | 1 | 30.0 s |\n",
					c, 1<<k, 300+c, k, k, c%10, 100+c%900, c%10, 1<<k, k+1)
			}
		}
		b.WriteString(extra)
		b.WriteString(tail[end+1:])
		return []byte(b.String())
	}
	for _, tc := range []struct{ name, extra, want string }{
		{"good", "", ""},
		{"bad status", "| Sustained decode | 9000K | 1 | Bogus | 1.0 | 1.0 | 1 ms | 1.0 ms | 1.0 | 1 | 1 | 30.0 s |\n", "unknown status"},
		{"duplicate", "| Sustained decode | 250K | 4 | Valid | 1.0 | 1.0 | 1 ms | 1.0 ms | 1.0 | 1 | 1 | 30.0 s |\n", "duplicated row"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := grow(tc.extra)
			_, rows, err := ParseAllStream(bytes.NewReader(b), tc.name, "", nil)
			if tc.want == "" {
				if err != nil || rows == nil || rows.Len() <= streamRows {
					t.Fatalf("grown seed: rows %v, err %v; want it streamed", rows, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			compareStream(t, b, tc.name)
		})
	}
}

// FuzzParseStream checks that a text document read in pieces (every
// table streams, in pieces of 3 rows) gives the whole parse's matrix or
// its error.
func FuzzParseStream(f *testing.F) {
	addTextFuzzSeeds(f)
	defer func(s, p int) { streamRows, pieceRows = s, p }(streamRows, pieceRows)
	streamRows, pieceRows = 0, 3
	f.Fuzz(func(t *testing.T, b []byte) {
		compareStream(t, b, "fuzz.txt")
	})
}
