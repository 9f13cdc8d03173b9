package archive

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestAppendLoad(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	ms := testMatrices(0, 4)
	res, err := a.Append(ctx, ms)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added() != 4 || len(res.Files) != 3 {
		t.Fatalf("first append: %d added, files %v; want 4 added in 3 files", res.Added(), res.Files)
	}
	for _, table := range Tables {
		if n := len(dataFiles(t, a.Dir(), table)); n != 1 {
			t.Errorf("%s: %d files, want 1", table, n)
		}
	}
	got, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ms) {
		t.Fatalf("Load: %d matrices, want %d", len(got), len(ms))
	}
	for i := range ms {
		if want := stored(ms[i]); !reflect.DeepEqual(got[i], want) {
			t.Errorf("matrix %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
	// Load by id, in the order asked.
	two, err := a.Load(ctx, ms[3].Run.RunID, ms[1].Run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(two) != 2 || !reflect.DeepEqual(two[0], stored(ms[3])) || !reflect.DeepEqual(two[1], stored(ms[1])) {
		t.Fatalf("Load(3, 1) returned\n%+v\nwant runs 3 and 1 with their rows", two)
	}
	if _, err := a.Load(ctx, "0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load(unknown id): err = %v, want ErrNotFound", err)
	}
}
