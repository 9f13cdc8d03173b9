package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// seedMatrices reads testdata/seeds.json: the two seed documents as
// parse reads them (parse/testdata/golden, their printed texts left out,
// which the id leaves out too), each with the run id parse gave it.
func seedMatrices(t testing.TB) []*Matrix {
	t.Helper()
	b, err := os.ReadFile("testdata/seeds.json")
	if err != nil {
		t.Fatal(err)
	}
	var ms []*Matrix
	if err := json.Unmarshal(b, &ms); err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || len(ms[0].Measurements) != 46 {
		t.Fatalf("testdata/seeds.json: %d matrices, want 2 of 46 rows", len(ms))
	}
	return ms
}

// TestComputeRunIDSeeds pins the ids of the seed documents (stored keys
// of every archive that holds them) and checks the canonical encoding of
// each against encoding/json's.
func TestComputeRunIDSeeds(t *testing.T) {
	for i, m := range seedMatrices(t) {
		want := m.Run.RunID
		if got := ComputeRunID(m); got != want {
			t.Errorf("seed %d: id %s, want %s", i, got, want)
		}
		if got, want := canonBytes(m), marshalContent(m); !bytes.Equal(got, want) {
			t.Errorf("seed %d: canonical encoding differs from encoding/json:\n got %s\nwant %s", i, got, want)
		}
	}
}

// BenchmarkComputeRunIDSeed computes the id of a seed document (46
// rows), what ingest does once per document.
func BenchmarkComputeRunIDSeed(b *testing.B) {
	m := seedMatrices(b)[0]
	b.SetBytes(int64(len(canonBytes(m))))
	b.ReportAllocs()
	for b.Loop() {
		ComputeRunID(m)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/id")
}
