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
// Its results carry no words: a delta's sides are States and its
// reading a Verdict, the cells past an answer that a run could not
// measure are Unmeasured (concurrency and status), a poor USL fit is
// Poor with its Points and R2, a trend group names its Model and GPU, a
// missing price is the price table's error. Package report names them
// all ("looped in INT4", "N=16 looped", "poor fit: only 3 points") and
// flattens deltas into rows. What stays text here is input syntax and
// its errors: selectors and the date they match (DateText), cells and
// percentages as written on the command line, and error messages that
// say what to do next.
//
// Published seeds carry one median per cell and no spread, so their
// ratios are point estimates (Comparison.Spread is false); the report
// says so instead of implying significance.
package analysis
