package parse

import (
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"speedmatrix/schema"
)

// recyclerDocs returns the documents of the Recycler's tests: the seeds
// and their other forms, the serve documents, and two bad documents
// whose rows fail in build (after readRange took slabs).
func recyclerDocs(t *testing.T) map[string][]byte {
	t.Helper()
	var paths []string
	for _, pat := range []string{"../testdata/seeds/*.txt", "testdata/forms/*.md", "testdata/forms/*.html", "testdata/serve/*.txt",
		"testdata/bad/duplicated-row.txt", "testdata/bad/matrix-disagrees.txt"} {
		ps, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	docs := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[p] = b
	}
	if len(docs) < 6 {
		t.Fatalf("%d documents", len(docs))
	}
	return docs
}

// parsed is a parse's result, to compare: its matrices and error text.
type parsed struct {
	ms  []*schema.Matrix
	err string
}

// parseWith parses a copy of b (which becomes the parser's) with rc.
func parseWith(rc *Recycler, name string, b []byte) parsed {
	ms, _, err := rc.ParseAllStreamBytes(append([]byte(nil), b...), name, "", nil)
	p := parsed{ms: ms}
	if err != nil {
		p.err = err.Error()
	}
	return p
}

// recyclerDocsParsed returns recyclerDocs and how each parses with new
// memory.
func recyclerDocsParsed(t *testing.T) (map[string][]byte, map[string]parsed) {
	t.Helper()
	docs := recyclerDocs(t)
	want := map[string]parsed{}
	for name, b := range docs {
		want[name] = parseWith(nil, name, b)
	}
	return docs, want
}

// TestRecyclerSameMatrices parses documents of different shapes (row
// counts, columns, forms, failures) in turns through one Recycler,
// releasing each matrix once compared: each reads as it does with new
// memory, whatever document the memory held before.
func TestRecyclerSameMatrices(t *testing.T) {
	docs, want := recyclerDocsParsed(t)
	var rc Recycler
	reused := 0
	for round := range 3 {
		for name, b := range docs { // in a different order each round
			if len(rc.free) > 0 {
				reused++
			}
			got := parseWith(&rc, name, b)
			if !reflect.DeepEqual(got, want[name]) {
				t.Fatalf("round %d: %s reads differently with recycled memory", round, name)
			}
			for _, m := range got.ms {
				rc.Release(m)
				if m.Measurements != nil {
					t.Fatalf("%s: measurements kept after Release", name)
				}
			}
			checkFree(t, &rc)
		}
	}
	if reused < 2*len(docs) {
		t.Fatalf("memory reused for %d of %d parses", reused, 3*len(docs))
	}
	if len(rc.held) != 0 {
		t.Fatalf("%d matrices held after all were released", len(rc.held))
	}
}

// checkFree fails unless rc's free list holds only zeroed memory (see
// rowSlabs), within freeRows.
func checkFree(t *testing.T, rc *Recycler) {
	t.Helper()
	rows := 0
	for _, s := range rc.free {
		if len(s.ms) != 0 || len(s.printed) != 0 {
			t.Fatalf("free slabs in use: %d measurements, %d printed", len(s.ms), len(s.printed))
		}
		for _, m := range s.ms[:cap(s.ms)] {
			if !reflect.ValueOf(m).IsZero() {
				t.Fatalf("free measurement not zero: %+v", m)
			}
		}
		for _, kv := range s.printed[:cap(s.printed)] {
			if kv != (schema.KV{}) {
				t.Fatalf("free printed text not zero: %+v", kv)
			}
		}
		rows += cap(s.ms)
	}
	if rows != rc.rows || rows > freeRows {
		t.Fatalf("free list of %d rows, counted %d, bound %d", rows, rc.rows, freeRows)
	}
}

// TestRecyclerRelease checks what Release leaves: a matrix it did not
// read as it is, a second Release of one matrix nothing more, and the
// free list within its bound.
func TestRecyclerRelease(t *testing.T) {
	b := readSeed(t, "000_acc4a01d882a0446.txt")
	var rc Recycler
	other := parseWith(nil, "seed", b).ms[0]
	rc.Release(other)
	if len(other.Measurements) == 0 {
		t.Fatal("Release of a matrix the Recycler did not read dropped its measurements")
	}
	m := parseWith(&rc, "seed", b).ms[0]
	n := len(m.Measurements)
	rc.Release(m)
	rc.Release(m)
	if len(rc.free) != 1 || rc.rows != n {
		t.Fatalf("free list of %d slabs, %d rows, want 1 of %d", len(rc.free), rc.rows, n)
	}
	var nilRC *Recycler
	nilRC.Release(other) // a nil Recycler releases nothing
	if len(other.Measurements) == 0 {
		t.Fatal("nil Recycler dropped measurements")
	}

	defer func(n int) { freeRows = n }(freeRows)
	freeRows = 2*n + 1 // room for two documents' rows
	var ms []*schema.Matrix
	for range 4 {
		ms = append(ms, parseWith(&rc, "seed", b).ms[0])
	}
	for _, m := range ms {
		rc.Release(m)
	}
	if len(rc.free) != 2 {
		t.Fatalf("free list of %d slabs, want the bound's 2", len(rc.free))
	}
	checkFree(t, &rc)
}

// TestRecyclerConcurrent parses and releases from several goroutines at
// once (run with -race): every matrix reads as with new memory.
func TestRecyclerConcurrent(t *testing.T) {
	docs, want := recyclerDocsParsed(t)
	var rc Recycler
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for range 4 {
		wg.Go(func() {
			for range 5 {
				for name, b := range docs {
					got := parseWith(&rc, name, b)
					if !reflect.DeepEqual(got, want[name]) {
						errs <- name
						return
					}
					for _, m := range got.ms {
						rc.Release(m)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s reads differently with memory recycled across goroutines", name)
	}
	checkFree(t, &rc)
}
