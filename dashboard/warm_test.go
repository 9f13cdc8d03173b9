package dashboard

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/archive/store"
)

// countingSource counts the listing reads of a Source.
type countingSource struct {
	Source
	lists atomic.Int32
}

func (c *countingSource) ListRuns(ctx context.Context) ([]archive.Listing, error) {
	c.lists.Add(1)
	return c.Source.ListRuns(ctx)
}

// TestWarmReadsTheListingBeforeTheFirstPage: after Warm (serve calls it
// before it listens) the first Runs page answers from the cache: the
// listing is read once, at Warm, not again on the page.
func TestWarmReadsTheListingBeforeTheFirstPage(t *testing.T) {
	ta := newTestArchive(t)
	src := &countingSource{Source: store.Wrap(ta.arc)}
	s := New(src, Options{})
	if err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := src.lists.Load(); n != 1 {
		t.Fatalf("Warm read the listing %d times, want 1", n)
	}
	code, body, _ := get(t, s, "/runs")
	if code != http.StatusOK || !strings.Contains(body, ta.bf16[:8]) {
		t.Fatalf("first page: %d", code)
	}
	if n := src.lists.Load(); n != 1 {
		t.Errorf("the first page read the listing again (%d reads): Warm did not fill the cache", n)
	}
}
