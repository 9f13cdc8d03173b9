// Package analysis compares speed-test matrices: it aligns the cells of
// runs, computes per-metric deltas and their geometric means, scaling
// curves with a Universal Scalability Law fit, context-scaling tables,
// the throughput–interactivity frontier, SLO answers and trends across
// engine versions. It knows nothing about where the runs came from (a
// document, an archive or a measuring run): everything arrives as
// *schema.Matrix or schema.Run. It computes only: its results are
// numbers and typed values (Comparison, GeoMean, Scaling, Frontier,
// Best, Trend, ServeCurve …); it writes no text, Markdown, CSV or JSON
// and draws nothing. Package report turns these results into tables,
// text and the HTML page; package plots draws them.
//
// The pipeline:
//
//	[]*schema.Matrix ──► KeyTable.Index (align.go: one Cell per phase, context, concurrency)
//	                 ──► Compare (delta.go: baseline vs each other run, per Metric)
//	                 ──► cellStats (stats.go: CIs and Mann–Whitney U when runs carry spread)
//	                 ──► Summarize (summary.go: geometric means per phase and context)
//	                 ──► NewReport (report.go: per-run scaling, frontier, targets, serving curves)
//
// A comparison against a whole archive is the demanding case (see
// BenchmarkCompare10000): runs share one KeyTable so aligning them hashes
// each key once, deltas are small pointer-free values computed in
// parallel, and summaries add into slices rather than maps.
//
// Beside it: Scale and FitUSL (scaling.go, usl.go), ContextScaling,
// Frontier and BestAtUserRate (frontier.go), MeetSLO (slo.go), Serve
// (serve.go), BuildTrend and CompareVersions (trend.go), GroupTrends
// (trendgroup.go: runs by model and GPU, the cell to follow), SigFigs, the
// precision a figure was printed with (precision.go), Select / Filter
// over archived runs (select.go), the checks of names given on the
// command line (strict.go), and the answer per dollar and per joule
// (efficiency.go: PriceRuns, a run's price entry and GPU count, never
// guessed; Costs, each cell's $/1M output tokens, tokens per joule and
// per GPU; CostRatios beside the throughput ratio).
//
// Some results carry words because they are part of the answer, not of
// its layout: a delta's Note says why it has no ratio ("looped in
// INT4"), Best.Beyond names the cells a run could not measure, Row is a
// delta flattened with its statuses, and DateText is a run's date as
// selectors match it. How any of it is laid out is package report's.
//
// Published seeds carry one median per cell and no spread, so their
// ratios are point estimates (Comparison.Spread is false); the report
// says so instead of implying significance.
package analysis
