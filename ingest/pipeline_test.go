package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// countingReader counts the reads of standard input.
type countingReader struct {
	r     *strings.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// TestPipelineOrder checks that pipeline.run hands documents on in the
// order of the files whatever order the workers finish them in, reads
// standard input once however often "-" appears, and stops at consume's
// first error, leaving the rest unconsumed.
func TestPipelineOrder(t *testing.T) {
	ctx := context.Background()
	seeds := []string{testtool.ReadSeed(t, 0), testtool.ReadSeed(t, 1)}
	names := []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"}
	content := map[string]string{}
	for i, n := range names {
		content[n] = testtool.SeedVariant(seeds[i%2], i)
	}
	paths := testtool.WriteFiles(t, t.TempDir(), names, content)
	in := &countingReader{r: strings.NewReader(testtool.SeedVariant(seeds[1], 99))}
	files := []string{paths[0], "-", paths[1], paths[2], "-", paths[3], paths[4], paths[5]}

	var got []string
	var docs []*Doc
	var p pipeline
	err := p.run(ctx, files, in, func(d *Doc) error {
		got = append(got, d.Arg)
		docs = append(docs, d)
		return d.Err
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != strings.Join(files, " ") {
		t.Errorf("consumed %q, want the order of the files %q", got, files)
	}
	if docs[1].Name != StdinName || docs[4].Name != StdinName {
		t.Errorf("standard input named %q and %q, want %q", docs[1].Name, docs[4].Name, StdinName)
	}
	// A second read of standard input would find it empty: the second
	// "-" would fail or differ.
	for _, i := range []int{1, 4} {
		if docs[i].Err != nil || len(docs[i].Runs) != 1 {
			t.Fatalf("\"-\" at %d: %d matrices, %v", i, len(docs[i].Runs), docs[i].Err)
		}
	}
	if docs[1].Runs[0].Run.RunID != docs[4].Runs[0].Run.RunID {
		t.Error("the two readings of standard input differ")
	}
	if in.reads == 0 || in.r.Len() != 0 {
		t.Fatalf("standard input read %d times, %d bytes left", in.reads, in.r.Len())
	}

	stop := errors.New("stop")
	got = nil
	err = p.run(ctx, paths, nil, func(d *Doc) error {
		got = append(got, d.Arg)
		if len(got) == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || len(got) != 2 {
		t.Errorf("after consume's error: err %v, %d consumed; want stop after 2", err, len(got))
	}
}

// TestRecycledIngest ingests the same documents with the measurements'
// memory recycled (parse.Recycler, given back by the archive writer's
// Written) and without: the printed lines, the archive's rows (every
// column) and its measurements file are the same. The documents are
// variants of both seeds in turn, so that memory a document's rows
// were read into goes to a document of other values; enough for several
// of the writer's batches, with a duplicate and bad documents between.
// A matrix released while the writer still held it would be written
// zeroed (Release clears its rows) or with another document's values.
func TestRecycledIngest(t *testing.T) {
	seeds := []string{testtool.ReadSeed(t, 0), testtool.ReadSeed(t, 1)}
	var names []string
	content := map[string]string{}
	for i := range 900 {
		name := fmt.Sprintf("doc%04d.txt", i)
		names = append(names, name)
		content[name] = testtool.SeedVariant(seeds[i%2], i)
	}
	for name, bad := range badRowDocs(t) { // found once read
		names = append(names, name)
		content[name] = bad
	}
	names = append(names, "again.txt")
	content["again.txt"] = content["doc0003.txt"]
	paths := testtool.WriteFiles(t, t.TempDir(), names, content)
	paths = slices.Insert(paths, 400, paths[len(paths)-1], paths[len(paths)-2])

	type result struct {
		failed         bool
		stdout, stderr string
		runs           []*schema.Matrix
		measurements   []byte
	}
	ingestOnce := func(recycled bool) result {
		defer func(r bool) { recycle = r }(recycle)
		recycle = recycled
		dir := filepath.Join(t.TempDir(), "archive")
		var r result
		r.stdout, r.stderr, r.failed = ingestInto(t, dir, seeds[1], append([]string{"-"}, paths...)...)
		a, err := archive.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if r.runs, err = a.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, m := range r.runs {
			m.Run.IngestedAt = time.Time{} // the time of the call
		}
		files, err := filepath.Glob(filepath.Join(dir, archive.TableMeasurements, "*.parquet"))
		if err != nil || len(files) != 1 {
			t.Fatalf("measurements files %v (%v)", files, err)
		}
		if r.measurements, err = os.ReadFile(files[0]); err != nil {
			t.Fatal(err)
		}
		return r
	}
	want, got := ingestOnce(false), ingestOnce(true)
	if !want.failed || len(want.runs) != 901 {
		t.Fatalf("without recycling: failed %v, %d runs, want true and 901", want.failed, len(want.runs))
	}
	if got.failed != want.failed || got.stdout != want.stdout || got.stderr != want.stderr {
		t.Fatalf("recycled: failed %v, printed\n%s\n%s\nwant %v,\n%s\n%s", got.failed, got.stdout, got.stderr, want.failed, want.stdout, want.stderr)
	}
	for i := range want.runs {
		if !reflect.DeepEqual(got.runs[i], want.runs[i]) {
			t.Fatalf("run %s reads back differently when recycled", want.runs[i].Run.RunID)
		}
	}
	if !bytes.Equal(got.measurements, want.measurements) {
		t.Fatal("the measurements file differs when recycled")
	}
}
