// Package report turns what package analysis computed into what a reader
// sees: tables (typed rows and columns of formatted cells), text,
// Markdown, CSV, JSON and the self-contained HTML page. It is the one
// presentation package of the project: analysis computes, plots draws
// single charts, report lays them out.
//
// A comparison's report leads with the summary (the answer in one or
// two sentences, geometric-mean ratios with their spread, the cells left
// out and why, the targets' answers side by side, the best configuration
// per context), then the ratio matrices, the serving curves, the long
// tables (runs, deltas, geometric means per context, scaling with the
// USL fits, context scaling, frontier, targets per run) and the charts.
//
// The pipeline:
//
//	analysis.Comparison ──► New ──► Report (analysis.Report + Summary)
//	    ├─► Tables ──► []Table (Name, Title, Header, Rows, Class, Notes, CSV)
//	    ├─► Write (text, Markdown, CSV per table, JSON) ◄── Table.Write, WriteJSON
//	    ├─► Charts ──► []Chart (plots specs, drawn once to check them)
//	    └─► WriteHTML ──► WritePage (page.go: one HTML page, inline SVG, the font once)
//	analysis.GroupTrends ──► NewTrends ──► Trends (per model and GPU) ──► Write, Charts, WriteHTML
//	run listings ──► FillListings (blank columns from names, metadata) ──► WriteRuns (-list), the dashboard's Runs
//
// Files by idea: table.go (Table and its three printed forms), words.go
// (the names of what analysis returns typed: states, verdicts, metrics,
// a delta's note, unmeasured cells, a poor fit), deltarow.go (a delta
// flattened into the row of CSV and JSON), figures.go (how a figure, a
// ratio and a load are printed), summary.go and
// outcome.go (the answer), servetargets.go (the targets answered for
// serving runs: the most requests/s within p99 latencies), where.go
// (where the ratio changes, by load and by context), tables.go (the summary's tables and the ratio
// matrices), deltas.go and runtables.go (the long tables), csv.go (every
// machine form), json.go (the JSON object), charts.go and servecharts.go
// (chart specs), html.go and page.go (the page), trend.go, listing.go,
// listingfill.go (a listing's blank columns filled: FillListings, one
// fill for -list and the dashboard, over a MetadataLister),
// labels.go (run names of at most MaxLabel characters), alsodiffer.go
// (what else differs among the runs), cost.go (the answer per dollar and
// per joule: its sentence, tables, JSON and charts, shown only when
// prices, GPU counts or energy are there).
//
// A second face: a caller (cmd/compare today, an HTTP handler tomorrow)
// passes analysis results and either takes the Tables, Summary, JSON
// value and Charts to render itself, or has report write text,
// Markdown, CSV, JSON or the page to an io.Writer. The package holds no
// state between calls and opens no file: cmd/compare opens them.
package report
