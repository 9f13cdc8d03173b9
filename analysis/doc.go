// Package analysis compares speed-test matrices: it aligns the cells of
// runs, computes per-metric deltas and their geometric means, scaling
// curves with a Universal Scalability Law fit, context-scaling tables,
// the throughput–interactivity frontier, SLO answers and trends across
// engine versions. It knows nothing about where the runs came from (a
// document, an archive or a measuring run): everything arrives as
// *schema.Matrix or schema.Run, and results are plain structs that
// package plots draws and the writers in format.go print.
//
// The pipeline:
//
//	[]*schema.Matrix ──► KeyTable.Index (align.go: one Cell per phase, context, concurrency)
//	                 ──► Compare (delta.go: baseline vs each other run, per Metric)
//	                 ──► cellStats (stats.go: CIs and Mann–Whitney U when runs carry spread)
//	                 ──► Summarize (summary.go: geometric means per phase and context)
//	                 ──► NewReport (report.go: per-run scaling, frontier, targets)
//	                 ──► Write* (format.go, table.go: text, markdown, csv, json)
//
// A comparison against a whole archive is the demanding case (see
// BenchmarkCompare10000): runs share one KeyTable so aligning them hashes
// each key once, deltas are small pointer-free values computed in
// parallel, and summaries add into slices rather than maps.
//
// Beside it: Scale and FitUSL (scaling.go, usl.go), ContextScaling,
// Frontier and BestAtUserRate (frontier.go), MeetSLO (slo.go), BuildTrend
// and CompareVersions (trend.go), and Select / Filter over archived runs
// (select.go).
//
// Published seeds carry one median per cell and no spread, so their
// ratios are point estimates; the writers say so instead of implying
// significance.
package analysis
