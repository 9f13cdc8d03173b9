package main

import (
	"context"
	"errors"
	"strings"
	"testing"
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

// TestParseStreamOrder checks that parseStream hands documents on in the
// order of the files whatever order the workers finish them in, reads
// standard input once however often "-" appears, and stops at consume's
// first error, leaving the rest unconsumed.
func TestParseStreamOrder(t *testing.T) {
	ctx := context.Background()
	seeds := []string{readSeed(t, 0), readSeed(t, 1)}
	names := []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"}
	content := map[string]string{}
	for i, n := range names {
		content[n] = variant(seeds[i%2], i)
	}
	paths := writeFiles(t, t.TempDir(), names, content)
	in := &countingReader{r: strings.NewReader(variant(seeds[1], 99))}
	files := []string{paths[0], "-", paths[1], paths[2], "-", paths[3], paths[4], paths[5]}

	var got []string
	var docs []*doc
	var err error
	parseStream(ctx, files, "", false, in, &progress{}, func(d *doc) error {
		got = append(got, d.arg)
		docs = append(docs, d)
		return d.err
	}, &err)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != strings.Join(files, " ") {
		t.Errorf("consumed %q, want the order of the files %q", got, files)
	}
	if docs[1].name != stdinName || docs[4].name != stdinName {
		t.Errorf("standard input named %q and %q, want %q", docs[1].name, docs[4].name, stdinName)
	}
	// A second read of standard input would find it empty: the second
	// "-" would fail or differ.
	for _, i := range []int{1, 4} {
		if docs[i].err != nil || len(docs[i].ms) != 1 {
			t.Fatalf("\"-\" at %d: %d matrices, %v", i, len(docs[i].ms), docs[i].err)
		}
	}
	if docs[1].ms[0].Run.RunID != docs[4].ms[0].Run.RunID {
		t.Error("the two readings of standard input differ")
	}
	if in.reads == 0 || in.r.Len() != 0 {
		t.Fatalf("standard input read %d times, %d bytes left", in.reads, in.r.Len())
	}

	stop := errors.New("stop")
	got, err = nil, nil
	parseStream(ctx, paths, "", false, nil, &progress{}, func(d *doc) error {
		got = append(got, d.arg)
		if len(got) == 2 {
			return stop
		}
		return nil
	}, &err)
	if !errors.Is(err, stop) || len(got) != 2 {
		t.Errorf("after consume's error: err %v, %d consumed; want stop after 2", err, len(got))
	}
}
