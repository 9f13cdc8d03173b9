package comparecmd

import (
	"context"
	"fmt"
	"io"

	"speedmatrix/analysis"
	"speedmatrix/archive/store"
	"speedmatrix/report"
)

// list prints the archive's runs (or those the selectors match), oldest
// measured first (report.SortByMeasured), each with its title and the
// columns its metadata fills where the run's own are blank
// (report.RunListing.Complete).
//
// Note: without selectors it reads only the runs columns it prints and
// the cells column of the runs table (archive.ListRuns), not the
// measurements, and the metadata column only of the runs with a blank
// column to fill (archive.ListMetadata): 100,000 runs list in well under
// a second (BenchmarkList100000).
func list(ctx context.Context, in *inputs, o *options, stdout io.Writer) error {
	if len(o.args) == 0 {
		a, err := in.archive(ctx)
		if err != nil {
			return err
		}
		out, err := listAll(ctx, a)
		if err != nil {
			return fmt.Errorf("archive %s: %w", in.dir, err)
		}
		report.SortByMeasured(out)
		return report.WriteRuns(stdout, out, o.format)
	}
	files, runs, err := in.resolveMany(ctx, o.args)
	if err != nil {
		return err
	}
	if len(files) > 0 {
		return fmt.Errorf("-list lists archived runs: give selectors, not files")
	}
	var ids []string // runs written before the archive counted cells
	for _, r := range runs {
		if r.Cells == nil {
			ids = append(ids, r.RunID)
		}
	}
	ms, err := in.loadColumns(ctx, cellColumns, ids)
	if err != nil {
		return err
	}
	out := make([]report.RunListing, len(runs))
	k := 0
	for i := range runs {
		r := &runs[i]
		if r.Cells != nil {
			out[i] = report.ListingOf(r, int(*r.Cells))
			continue
		}
		out[i] = report.ListingOf(r, len(analysis.IndexCells(ms[k]).List))
		k++
	}
	report.SortByMeasured(out)
	return report.WriteRuns(stdout, out, o.format)
}

// listAll lists every run of a from its narrow listing, filling the
// blank columns of the runs that have some from their model's name or
// metadata (report.FillListings).
func listAll(ctx context.Context, a store.Store) ([]report.RunListing, error) {
	ls, err := a.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]report.RunListing, len(ls))
	for i := range ls {
		l := &ls[i]
		out[i] = report.RunListing{RunID: l.RunID, Title: l.Title, Model: l.Model, GPU: l.GPU, Engine: l.Engine,
			EngineVersion: l.EngineVersion, Quantization: l.Quantization, BenchTool: l.BenchTool, GPUCount: l.GPUCount,
			StartedAt: l.StartedAt, IngestedAt: l.IngestedAt, Cells: int(*l.Cells)}
	}
	if err := report.FillListings(ctx, a, out); err != nil {
		return nil, err
	}
	return out, nil
}
