package archive

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"speedmatrix/schema"
)

// Reading runs back: Load and LoadColumns find the batches that hold the
// ids asked for and read their rows, decoding only the columns asked for.

// Load returns the runs with the given ids as matrices with their
// measurements and samples, in the order asked; with no ids, every run in
// the order of Runs. An id the archive lacks is an error wrapping
// ErrNotFound.
func (a *Archive) Load(ctx context.Context, runIDs ...string) ([]*schema.Matrix, error) {
	return a.loadColumns(ctx, nil, runIDs)
}

// LoadColumns is Load reading only the named columns of the measurements
// and samples tables (and run_id); the other fields of their rows stay
// zero (nil for pointers and lists). Runs are read whole. It suits
// listings that need a few small columns of many runs: the wide printed
// and extra columns are most of the cost of Load. A name that is a column
// of neither table is an error.
func (a *Archive) LoadColumns(ctx context.Context, columns []string, runIDs ...string) ([]*schema.Matrix, error) {
	known := map[string]bool{}
	for _, t := range []string{TableMeasurements, TableSamples} {
		for _, c := range Columns(t) {
			known[c.Name] = true
		}
	}
	for _, c := range columns {
		if !known[c] {
			return nil, fmt.Errorf("archive: no measurements or samples column %q", c)
		}
	}
	if columns == nil {
		columns = []string{}
	}
	return a.loadColumns(ctx, columns, runIDs)
}

// loadColumns is Load and LoadColumns: cols nil reads every column.
func (a *Archive) loadColumns(ctx context.Context, cols, runIDs []string) ([]*schema.Matrix, error) {
	unlock, err := a.lock(ctx, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	l, err := a.scanned(ctx)
	if err != nil {
		return nil, err
	}
	stems := l.committed()
	var keep *runSet
	if len(runIDs) > 0 {
		// Decode only the runs asked for, and only in the runs files
		// holding them, found from their run_id columns.
		if stems, err = a.stemsWith(ctx, l, stems, runIDs); err != nil {
			return nil, err
		}
		keep = newRunSet(runIDs)
	}
	srs, err := a.readRuns(ctx, l, stems, keep)
	if err != nil {
		return nil, err
	}
	return a.load(ctx, l, srs, runIDs, cols)
}

// load attaches measurements and samples to the chosen runs, reading only
// the files of the stems that hold them, and only the columns cols (all
// when nil).
func (a *Archive) load(ctx context.Context, l *layout, srs []storedRun, runIDs, cols []string) ([]*schema.Matrix, error) {
	byID := make(map[string]int, len(srs))
	for i, r := range srs {
		byID[r.run.RunID] = i
	}
	var chosen []int
	if len(runIDs) == 0 {
		for i := range srs {
			chosen = append(chosen, i)
		}
	} else {
		for _, id := range runIDs {
			i, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("archive: %s: %w", id, ErrNotFound)
			}
			chosen = append(chosen, i)
		}
	}
	out := make([]*schema.Matrix, len(chosen))
	// want maps stem → run id → matrix, so rows of a duplicate run kept in
	// another stem are not attached twice.
	want := map[string]map[string]*schema.Matrix{}
	for k, i := range chosen {
		r := srs[i]
		m, ok := want[r.stem][r.run.RunID]
		if !ok {
			m = &schema.Matrix{Run: r.run, Measurements: []schema.Measurement{}}
			if want[r.stem] == nil {
				want[r.stem] = map[string]*schema.Matrix{}
			}
			want[r.stem][r.run.RunID] = m
		}
		out[k] = m
	}
	stems := make([]string, 0, len(want))
	for s := range want {
		stems = append(stems, s)
	}
	slices.Sort(stems)
	ms := make([][][]schema.Measurement, len(stems))
	ss := make([][][]schema.Sample, len(stems))
	// Without ids every run is wanted and the files are read whole (rows
	// of a run kept from another stem are dropped below).
	keeps := make([]*runSet, len(stems))
	if len(runIDs) > 0 {
		for k, s := range stems {
			keeps[k] = newRunSet(slices.Collect(maps.Keys(want[s])))
		}
	}
	err := parallel(ctx, 2*len(stems), func(k int) (err error) {
		s, keep := stems[k/2], keeps[k/2]
		if k%2 == 0 {
			if p, ok := l.files[TableMeasurements][s]; ok {
				ms[k/2], err = readRows[schema.Measurement](p, keep, cols)
			}
		} else if p, ok := l.files[TableSamples][s]; ok {
			ss[k/2], err = readRows[schema.Sample](p, keep, cols)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for k, s := range stems {
		byRun := want[s]
		for _, c := range ms[k] {
			attach(c, byRun, func(r *schema.Measurement) string { return r.RunID },
				func(m *schema.Matrix) *[]schema.Measurement { return &m.Measurements })
		}
		for _, c := range ss[k] {
			attach(c, byRun, func(r *schema.Sample) string { return r.RunID },
				func(m *schema.Matrix) *[]schema.Sample { return &m.Samples })
		}
	}
	return out, nil
}

// attach gives each matrix of byRun its rows of rows, in file order. A
// run whose rows are contiguous (files are written in run_id order) gets
// a subslice of rows, capped so an append cannot spill into the next run;
// the others get a copy.
//
// Note: a row is hundreds of bytes and a load of every run holds
// hundreds of thousands of them: copying them into per-run slices would
// double the time and the memory of the load.
func attach[R any](rows []R, byRun map[string]*schema.Matrix, id func(*R) string, field func(*schema.Matrix) *[]R) {
	type span struct{ start, end, n int }
	spans := map[*schema.Matrix]*span{}
	for i := range rows {
		m := byRun[id(&rows[i])]
		if m == nil {
			continue
		}
		sp := spans[m]
		if sp == nil {
			sp = &span{start: i, end: i}
			spans[m] = sp
		}
		sp.end, sp.n = i+1, sp.n+1
	}
	for m, sp := range spans {
		f := field(m)
		if sp.end-sp.start == sp.n && len(*f) == 0 {
			*f = rows[sp.start:sp.end:sp.end]
			continue
		}
		for i := sp.start; i < sp.end; i++ {
			if byRun[id(&rows[i])] == m {
				*f = append(*f, rows[i])
			}
		}
	}
}
