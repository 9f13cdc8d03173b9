package parse

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRowIndexIsMap checks rowIndex against a Go map: n keys of each
// kind, many of them alike (the contexts, concurrencies and repeats of
// a matrix, and random ones), stored with at and read with get, in an
// index made for exactly n keys (half full or, past denseIndexRows,
// three quarters): made new, and reset from the index of the n before
// (the sizes up, then down again), as a scratch reuses it.
func TestRowIndexIsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	ctxs := []int64{0, 1, 1024, 8192, 16384, 32768, 65536, 125952, 131072, -1, math.MaxInt64}
	concs := []int32{0, 1, 2, 4, 8, 16, 32, 64, 128, -1}
	randomKey := func() rowKey {
		k := rowKey{tableCell: tableCell{ctx: ctxs[r.IntN(len(ctxs))], conc: concs[r.IntN(len(concs))], phase: int32(r.IntN(4))}, repeat: int64(r.IntN(4)) - 1}
		if r.IntN(4) == 0 {
			k.rate, k.hasRate = math.Float64bits(float64(r.IntN(8))/2), 1
		}
		if r.IntN(10) == 0 {
			k.ctx, k.conc = r.Int64(), r.Int32()
		}
		return k
	}
	sizes := []int{0, 1, 2, 3, 7, 8, 46, 100, 1000, denseIndexRows, denseIndexRows + 1, 3 * denseIndexRows}
	var reKey rowIndex[rowKey]
	var reCell rowIndex[tableCell]
	var reCtx rowIndex[ctxKey]
	order := slices.Concat(sizes, sizes) // made new, then reset: up
	for _, n := range slices.Backward(sizes) {
		order = append(order, n) // reset: down
	}
	for i, n := range order {
		keys := make([]rowKey, n)
		for i := range keys {
			keys[i] = randomKey()
		}
		byKey, byCell, byCtx := newRowIndex[rowKey](n), newRowIndex[tableCell](n), newRowIndex[ctxKey](n)
		if i >= len(sizes) {
			byKey, byCell, byCtx = reKey.reset(n), reCell.reset(n), reCtx.reset(n)
			if want := len(newRowIndex[rowKey](n).slots); len(byKey.slots) != want || len(byCtx.slots) != want {
				t.Fatalf("n %d: reset to %d slots, newRowIndex makes %d", n, len(byKey.slots), want)
			}
		}
		mKey, mCell, mCtx := map[rowKey]*tableRow{}, map[tableCell]*tableRow{}, map[ctxKey]*tableRow{}
		for i, k := range keys {
			row := &tableRow{line: i + 1}
			for _, c := range []struct {
				at   **tableRow
				prev *tableRow
			}{{byKey.at(k), mKey[k]}, {byCell.at(k.tableCell), mCell[k.tableCell]}, {byCtx.at(ctxKey(k.ctx)), mCtx[ctxKey(k.ctx)]}} {
				if *c.at != c.prev {
					t.Fatalf("n %d, key %d (%+v): the index holds %v, the map %v", n, i, k, *c.at, c.prev)
				}
				if *c.at == nil {
					*c.at = row
				}
			}
			if mKey[k] == nil {
				mKey[k] = row
			}
			if mCell[k.tableCell] == nil {
				mCell[k.tableCell] = row
			}
			if mCtx[ctxKey(k.ctx)] == nil {
				mCtx[ctxKey(k.ctx)] = row
			}
		}
		for range 2 * n {
			k := randomKey()
			if got, want := byKey.get(k), mKey[k]; got != want {
				t.Fatalf("n %d: get(%+v) = %v, the map %v", n, k, got, want)
			}
			if got, want := byCell.firstRow(k.tableCell), mCell[k.tableCell]; got != want {
				t.Fatalf("n %d: firstRow(%+v) = %v, the map %v", n, k.tableCell, got, want)
			}
			if got, want := byCtx.get(ctxKey(k.ctx)), mCtx[ctxKey(k.ctx)]; got != want {
				t.Fatalf("n %d: get(%d) = %v, the map %v", n, k.ctx, got, want)
			}
		}
	}
}
