// Package report composes what package analysis computed about a
// comparison into what a reader sees: the summary first (the answer in
// one or two sentences, geometric-mean ratios with their spread, the
// cells left out and why, the targets' answers side by side, the best
// configuration per context), a ratio matrix, the long tables, the charts
// (specs for package plots) and the HTML page, as text, Markdown, CSV
// and one JSON object.
//
// The pipeline:
//
//	analysis.Comparison ──► New ──► Report (analysis.Report + Summary)
//	    ├─► Write (text, Markdown, CSV per table, JSON)
//	    ├─► Charts ──► plots specs (PNG, SVG)
//	    └─► WriteHTML ──► plots.WriteReport (one self-contained page)
//	archived runs ──► NewTrends ──► Trends (per model and GPU) ──► Write, Charts, WriteHTML
//
// It knows neither where the runs came from nor where the output goes:
// cmd/compare opens the files.
package report
