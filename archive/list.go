package archive

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"

	"speedmatrix/schema"
)

// cellKey is the cell a measurement belongs to: the key compare aligns
// runs by (analysis.KeyOf, which cmd/compare's tests check this against).
// request_rate identifies a cell only in serve rows.
type cellKey struct {
	phase   schema.Phase
	label   string
	conc    int32
	rate    float64
	hasRate bool
}

// countCells returns the number of distinct cells of rows.
//
// Note: archive cannot import analysis (it would pull the charts'
// dependencies into every archive user), so the key is restated here in
// the four columns that make it; TestListColumns in cmd/compare fails
// when the two disagree.
func countCells(rows []schema.Measurement) int32 {
	seen := make(map[cellKey]struct{}, len(rows))
	for i := range rows {
		seen[cellOf(&rows[i])] = struct{}{}
	}
	return int32(len(seen))
}

// cellOf returns the cell of row x.
func cellOf(x *schema.Measurement) cellKey {
	k := cellKey{phase: x.Phase, label: x.ContextLabel}
	if x.Concurrency != nil {
		k.conc = *x.Concurrency
	}
	if x.Phase == schema.PhaseServe && x.RequestRate != nil && !math.IsNaN(*x.RequestRate) {
		k.rate, k.hasRate = *x.RequestRate, true
	}
	return k
}

// cellCounter counts the distinct cells of rows added in pieces, by a
// 128-bit hash of each cell.
//
// Note: a map of the cells themselves was 70 MB for a run of 540,000
// rows, of their hashes 15; two distinct cells of one 128-bit hash are
// not to be expected (one in 10^27 for a million cells).
type cellCounter struct {
	seeds [2]maphash.Seed
	seen  map[[2]uint64]struct{}
}

func newCellCounter() *cellCounter {
	return &cellCounter{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, seen: map[[2]uint64]struct{}{}}
}

// add adds the cells of rows.
func (c *cellCounter) add(rows []schema.Measurement) {
	for i := range rows {
		k := cellOf(&rows[i])
		c.seen[[2]uint64{maphash.Comparable(c.seeds[0], k), maphash.Comparable(c.seeds[1], k)}] = struct{}{}
	}
}

// count returns the number of distinct cells added.
func (c *cellCounter) count() int32 { return int32(len(c.seen)) }

// cellColumns are the measurement columns countCells reads.
var cellColumns = []string{"phase", "context_label", "concurrency", "request_rate"}

// ListRuns returns every run of the archive, sorted as Runs, with only
// the named runs columns read (run_id, ingested_at and cells always; the
// other fields stay zero), and Cells set for every run: from the runs
// table, or, for runs written before that column existed, counted from
// four measurement columns. It suits listings of many runs: 100,000 runs
// read in a fraction of the time Runs takes, because the wide columns
// (launch_flags, metadata) and the measurements are not read.
func (a *Archive) ListRuns(ctx context.Context, columns []string) ([]schema.Run, error) {
	known := map[string]bool{}
	for _, c := range Columns(TableRuns) {
		known[c.Name] = true
	}
	for _, c := range columns {
		if !known[c] {
			return nil, fmt.Errorf("archive: no runs column %q", c)
		}
	}
	cols := append([]string{"ingested_at", "cells"}, columns...)
	var srs []storedRun
	err := a.underReadLock(ctx, func(l *layout) (err error) {
		if srs, err = a.readRunsColumns(ctx, l, l.committed(), nil, cols); err != nil {
			return err
		}
		return a.fillCells(ctx, l, srs)
	})
	if err != nil {
		return nil, err
	}
	out := make([]schema.Run, len(srs))
	for i, r := range srs {
		out[i] = r.run
	}
	return out, nil
}

// fillCells sets Cells of the runs written before the runs table kept
// it, counting them from four measurement columns.
func (a *Archive) fillCells(ctx context.Context, l *layout, srs []storedRun) error {
	var missing []storedRun
	for _, r := range srs {
		if r.run.Cells == nil {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		ids := make([]string, len(missing))
		for i, r := range missing {
			ids[i] = r.run.RunID
		}
		ms, err := a.load(ctx, l, missing, ids, cellColumns)
		if err != nil {
			return err
		}
		counts := make(map[string]int32, len(ms))
		for _, m := range ms {
			counts[m.Run.RunID] = countCells(m.Measurements)
		}
		for i := range srs {
			if srs[i].run.Cells == nil {
				n := counts[srs[i].run.RunID]
				srs[i].run.Cells = &n
			}
		}
	}
	return nil
}
