package parse

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
)

// TestScratchReuseSameMatrices parses each source document of
// TestVariantsUnchanged and variants of them twice: with a scratch of
// its own (the pool emptied first) and with the scratch the previous,
// different document used (larger or smaller), as ParseAllBytes and
// ParseAllStreamBytes reuse it. Both must give the same matrices, or the
// same error.
func TestScratchReuseSameMatrices(t *testing.T) {
	docs := variantSources(t)
	r := rand.New(rand.NewPCG(11, 13))
	var all [][]byte
	for _, d := range docs {
		all = append(all, d, mutate(r, d), mutate(r, d))
	}
	type result struct {
		ms  any
		err string
	}
	parse := func(b []byte) result {
		ms, err := ParseAllBytes(b, "v.txt", "")
		if err != nil {
			return result{err: err.Error()}
		}
		return result{ms: ms}
	}
	fresh := make([]result, len(all))
	for i, b := range all {
		// Two collections empty a sync.Pool: the parse gets a new scratch.
		runtime.GC()
		runtime.GC()
		fresh[i] = parse(b)
	}
	// In order, then backwards, each parse reusing the scratch of the one
	// before.
	for pass := range 2 {
		for k := range all {
			i := k
			if pass == 1 {
				i = len(all) - 1 - k
			}
			if got := parse(all[i]); !reflect.DeepEqual(got, fresh[i]) {
				t.Errorf("document %d (pass %d): with a reused scratch %+v, with a new one %+v", i, pass, got, fresh[i])
			}
		}
	}
}

// TestScratchReleaseClears checks that a released scratch holds nothing
// of its document: every buffer zero over its whole capacity.
func TestScratchReleaseClears(t *testing.T) {
	sc := new(scratch)
	for _, name := range []string{seed000, seed001} {
		b := readSeed(t, name)
		raw, err := extractTextOf(string(b), name, sc)
		if err != nil {
			t.Fatal(err)
		}
		raw.Name = name
		if _, err := build(raw, sc); err != nil {
			t.Fatal(err)
		}
		if len(sc.table) == 0 || len(sc.lines) == 0 || len(sc.rows.buf) == 0 || len(sc.strs.buf) == 0 {
			t.Fatalf("%s: the parse used no scratch: %d rows, %d lines", name, len(sc.table), len(sc.lines))
		}
		sc.clear()
		for what, v := range map[string]any{
			"lines": sc.lines[:cap(sc.lines)], "table": sc.table[:cap(sc.table)], "ptrs": sc.ptrs[:cap(sc.ptrs)],
			"rows": sc.rows.buf[:cap(sc.rows.buf)], "cells": sc.cells.buf[:cap(sc.cells.buf)],
			"fields": sc.fields.buf[:cap(sc.fields.buf)], "strs": sc.strs.buf[:cap(sc.strs.buf)],
		} {
			s := reflect.ValueOf(v)
			for i := range s.Len() {
				if !s.Index(i).IsZero() {
					t.Fatalf("%s: after clear, %s[%d] = %+v", name, what, i, s.Index(i))
				}
			}
		}
	}
}

// TestArenaTake checks that an arena's slices are zeroed, of the
// capacity asked, apart from one another, and reused after reset.
func TestArenaTake(t *testing.T) {
	var a arena[string]
	for round := range 3 {
		start := cap(a.buf)
		var taken [][]string
		for _, n := range []int{0, 1, 5, 64, 3, 200, 1} {
			s := a.take(n)
			if len(s) != 0 || cap(s) != n {
				t.Fatalf("round %d: take(%d): len %d cap %d", round, n, len(s), cap(s))
			}
			for _, v := range s[:n] {
				if v != "" {
					t.Fatalf("round %d: take(%d) holds %q", round, n, v)
				}
			}
			for i := range n {
				s = append(s, string(rune('a'+i%26)))
			}
			taken = append(taken, s)
		}
		for i, s := range taken {
			for j, v := range s {
				if v != string(rune('a'+j%26)) {
					t.Fatalf("round %d: slice %d [%d] = %q: written over", round, i, j, v)
				}
			}
		}
		if round == 2 && cap(a.buf) != start {
			t.Errorf("round %d: the buffer grew from %d to %d, though the round before took as much", round, start, cap(a.buf))
		}
		a.reset()
	}
}

// TestArenaBounded checks that an arena's buffers stop doubling at
// arenaMax, so that what a large document took can go piece by piece,
// and that a take larger than that still gets all it asks for.
func TestArenaBounded(t *testing.T) {
	var a arena[string]
	first := a.take(1)
	for range 10 * arenaMax {
		a.take(1)
	}
	if cap(a.buf) != arenaMax {
		t.Errorf("after %d takes of 1 the buffer holds %d, want %d", 10*arenaMax+1, cap(a.buf), arenaMax)
	}
	if big := a.take(3 * arenaMax); cap(big) != 3*arenaMax {
		t.Errorf("take(%d) has capacity %d", 3*arenaMax, cap(big))
	}
	if cap(first) != 1 {
		t.Errorf("the first slice's capacity is %d, want 1", cap(first))
	}
}
