package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"speedmatrix/schema"
)

// TestRefresh: Refresh names the state and changes with it, for a
// directory and a table; a table's reads move to the state it names
// (another host's append shows), and concurrent reads and refreshes are
// safe (go test -race).
func TestRefresh(t *testing.T) {
	ctx := context.Background()
	tmp := filepath.ToSlash(t.TempDir())
	for _, ref := range []string{
		filepath.Join(tmp, "dir"),
		"iceberg+sqlite://" + tmp + "/c.db?warehouse=file://" + tmp + "/wh#ns",
	} {
		t.Run(ref, func(t *testing.T) {
			s, err := Open(ctx, ref, Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Append(ctx, []*schema.Matrix{matrix(0)}); err != nil {
				t.Fatal(err)
			}
			k1, err := s.Refresh(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if k, err := s.Refresh(ctx); err != nil || k != k1 {
				t.Fatalf("refresh of an unchanged archive: %q %v, want %q", k, err, k1)
			}
			other, err := Open(ctx, ref, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if _, err := other.Append(ctx, []*schema.Matrix{matrix(1)}); err != nil {
				t.Fatal(err)
			}
			k2, err := s.Refresh(ctx)
			if err != nil || k2 == k1 {
				t.Fatalf("refresh after another writer's append: %q %v, the same as before", k2, err)
			}
			if ls, err := s.ListRuns(ctx); err != nil || len(ls) != 2 {
				t.Fatalf("after refresh: %d runs %v, want 2", len(ls), err)
			}
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if i%2 == 0 {
						if _, err := s.Refresh(ctx); err != nil {
							t.Error(err)
						}
					} else if _, err := s.Load(ctx, matrix(1).Run.RunID); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
		})
	}
}
