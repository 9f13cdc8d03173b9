package archive

import (
	"container/heap"
	"context"
	"iter"
	"reflect"

	"speedmatrix/archive/internal/pqwrite"
)

// The streaming merge behind Compact and Drop: the measurements (and
// samples) files of many stems merged into one file in run_id order, a
// run at a time, so that what is held is a batch of rows per segment
// read and one row group written, whatever the archive's size.

// maxFanIn is the most segments one merge reads at once; more are first
// merged in passes into temp files of maxFanIn segments each.
//
// Note: each open segment holds a decoded batch (mergeBatchRows rows),
// a record batch and its row group's column chunks and pages, about 6.5
// MB; an archive ingested in one go has one segment per batch of the
// Writer (about 356 seed documents), so 10,000 runs ingested in two
// calls are 28 segments: read at once, ingest -compact peaked at 346 MB,
// with a fan-in of 8 at 194 MB for the same CPU (the in-memory
// compaction: 931 MB; docs/performance.md).
var maxFanIn = 8

// route is what a merge does with the rows of a run from one stem.
type route int

const (
	skip   route = iota // not the stem whose copy of the run is kept
	keep                // written
	dropIt              // handed to drop, not written
)

// mergeSource is one segment being read by a merge.
type mergeSource[T Row] struct {
	next func() (runRows[T], bool)
	stop func()
	err  error
	cur  runRows[T]
	ord  int    // the order of the segment (stems, then file order)
	stem string // "" for a pass's temp file: every run taken
}

// mergeHeap orders sources by their current run id, then by ord.
type mergeHeap[T Row] []*mergeSource[T]

func (h mergeHeap[T]) Len() int { return len(h) }
func (h mergeHeap[T]) Less(i, j int) bool {
	if h[i].cur.id != h[j].cur.id {
		return h[i].cur.id < h[j].cur.id
	}
	return h[i].ord < h[j].ord
}
func (h mergeHeap[T]) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap[T]) Push(x any)   { *h = append(*h, x.(*mergeSource[T])) }
func (h *mergeHeap[T]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeTable writes the rows of table T held by segs (in stem order, then
// file order) to the file of table k of tf, in run_id order, as the row
// groups one write of all of them in that order would make. take routes
// a run's rows from each stem (see route: the stem Runs keeps, the runs
// Drop removes); each is called with every run's kept rows before they
// are written, drop with the rows of a dropped run (both may keep them).
func mergeTable[T Row](ctx context.Context, tf *tempFiles, k int, segs []segment,
	take func(id, stem string) route, drop, each func(id string, rows []T)) error {
	srcs := make([]*mergeSource[T], len(segs))
	defer func() {
		for _, s := range srcs {
			if s != nil {
				s.stop()
			}
		}
	}()
	h := mergeHeap[T]{}
	for i, seg := range segs {
		s := &mergeSource[T]{ord: i, stem: seg.stem}
		s.next, s.stop = iter.Pull(eachRun[T](seg, &s.err))
		srcs[i] = s
		var ok bool
		if s.cur, ok = s.next(); ok {
			h = append(h, s)
		} else if s.err != nil {
			return s.err
		}
	}
	heap.Init(&h)
	var fw *fileWriter
	var pending []pqwrite.Run
	n := 0
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		if fw == nil {
			f, err := tf.open(k)
			if err != nil {
				return err
			}
			fw = f.fw
		}
		err := fw.writeRuns(pending)
		clear(pending)
		pending, n = pending[:0], 0
		return err
	}
	for h.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		id := h[0].cur.id
		var rows []T
		for h.Len() > 0 && h[0].cur.id == id {
			s := h[0]
			r := keep
			if s.stem != "" {
				r = take(id, s.stem)
			}
			switch r {
			case dropIt:
				drop(id, s.cur.rows)
			case keep:
				if rows == nil {
					rows = s.cur.rows
				} else {
					rows = append(rows, s.cur.rows...)
				}
			}
			var ok bool
			if s.cur, ok = s.next(); ok {
				heap.Fix(&h, 0)
			} else {
				if s.err != nil {
					return s.err
				}
				heap.Pop(&h)
			}
		}
		if len(rows) == 0 {
			continue
		}
		if each != nil {
			each(id, rows)
		}
		// One group per flush: the groups WriteGroups cuts (see
		// pqwrite.Table.groups).
		if n > 0 && n+len(rows) > groupRows {
			if err := flush(); err != nil {
				return err
			}
		}
		pending = append(pending, pqwrite.Run{Rows: reflect.ValueOf(rows), ID: id})
		n += len(rows)
	}
	return flush()
}

// mergeFiles merges the files of table T (measurements or samples) of
// stems into the file of table k of tf (see mergeTable), in passes when
// they hold more than maxFanIn segments.
func mergeFiles[T Row](ctx context.Context, l *layout, tf *tempFiles, k int, stems []string,
	take func(id, stem string) route, drop, each func(id string, rows []T)) error {
	var segs []segment
	for _, s := range stems {
		p, ok := l.files[renameOrder[k]][s]
		if !ok {
			continue
		}
		ss, err := segments(p, s)
		if err != nil {
			return damaged(p, err)
		}
		segs = append(segs, ss...)
	}
	// Passes: each maxFanIn segments become one temp file (a single
	// sorted segment) holding only the rows taken.
	var passes []*tempFiles
	defer func() {
		for _, p := range passes {
			p.abort()
		}
	}()
	for len(segs) > maxFanIn {
		var next []segment
		for from := 0; from < len(segs); from += maxFanIn {
			part := segs[from:min(from+maxFanIn, len(segs))]
			if len(part) == 1 {
				next = append(next, part...)
				continue
			}
			pt := &tempFiles{dir: tf.dir, stem: tf.stem + "-merge-" + itoa(len(passes))}
			passes = append(passes, pt)
			if err := mergeTable[T](ctx, pt, k, part, take, drop, nil); err != nil {
				return err
			}
			f := pt.files[k]
			if f == nil {
				continue // nothing taken
			}
			if err := pt.close(); err != nil {
				return err
			}
			seg, err := segments(f.temp, "")
			if err != nil {
				return err
			}
			next = append(next, seg...)
		}
		segs = next
	}
	return mergeTable[T](ctx, tf, k, segs, take, drop, each)
}

// itoa formats a small non-negative number.
func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
