package comparecmd

import (
	"context"
	"io"
	"testing"

	"speedmatrix/archive/store"
	"speedmatrix/internal/archivepath"
	"speedmatrix/schema"
)

// listCounter is a Store that counts the reads of every run (Runs).
type listCounter struct {
	store.Store
	runs int
}

func (c *listCounter) Runs(ctx context.Context) ([]schema.Run, error) {
	c.runs++
	return c.Store.Runs(ctx)
}

// TestWholeIDsLoadWithoutListing: runs named by their whole ids load
// without reading every run of the archive (what picking two runs of a
// 100,000-run table by id cost 1.16 GB); a prefix, a selector or an id
// the archive lacks takes the listing path and its messages.
func TestWholeIDsLoadWithoutListing(t *testing.T) {
	dir, ms := newArchive(t)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		args  []string
		lists int
		err   bool
	}{
		{"two whole ids", []string{ms[0].Run.RunID, ms[1].Run.RunID}, 0, false},
		{"an id prefix", []string{ms[0].Run.RunID[:8], ms[1].Run.RunID}, 1, false},
		{"a whole id not held", []string{"0123456789abcdef", ms[1].Run.RunID}, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := store.Open(ctx, dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			counter := &listCounter{Store: s}
			in := &inputs{dir: dir, where: archivepath.Resolve(dir), stdin: nil, stderr: io.Discard, arc: counter}
			got, err := in.resolve(ctx, c.args)
			if (err != nil) != c.err || counter.runs != c.lists {
				t.Fatalf("resolve(%v): %d listings, err %v; want %d, error %v", c.args, counter.runs, err, c.lists, c.err)
			}
			if err == nil && (len(got) != 2 || got[1].Run.RunID != ms[1].Run.RunID) {
				t.Errorf("resolve(%v) loaded %d runs", c.args, len(got))
			}
		})
	}
}
