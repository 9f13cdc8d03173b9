package comparecmd

import (
	"context"
	"io"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/report"
)

// trend follows the chosen cells across archived runs of one model and
// GPU: those of the one run a selector matches, the runs several
// selectors or a broad selector match, or every group in the archive.
func trend(ctx context.Context, in *inputs, o *options, stdout io.Writer) error {
	files, runs, err := in.resolveMany(ctx, o.args)
	if err != nil {
		return err
	}
	if len(files) == 0 && len(runs) == 1 && len(o.args) > 0 {
		all, err := in.archivedRuns(ctx)
		if err != nil {
			return err
		}
		runs = analysis.SameSetup(all, &runs[0])
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	ms, err := in.load(ctx, ids)
	if err != nil {
		return err
	}
	ms = append(ms, files...)
	topt := analysis.TrendOptions{Cells: o.cells, Metric: o.trendMetric, Order: o.order,
		Threshold: o.threshold, Selected: len(o.args) > 0}
	groups, err := analysis.GroupTrends(ms, topt)
	if err != nil {
		return err
	}
	tr := report.NewTrends(groups, topt)
	if err := tr.Write(stdout, o.format); err != nil {
		return err
	}
	if o.plotsDir == "" && o.html == "" {
		return nil
	}
	charts := tr.Charts()
	if o.plotsDir != "" {
		if err := plots.WriteAll(o.plotsDir, charts); err != nil {
			return err
		}
	}
	if o.html != "" {
		return writeFile(o.html, func(w io.Writer) error { return tr.WriteHTML(w, charts) })
	}
	return nil
}
