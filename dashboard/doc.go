// Package dashboard serves a read-only web UI over an archive: the views
// `cmd/serve` puts on an address. It reads the archive through its
// public API (ListRuns' wider sibling Runs, Load, LoadColumns, Snapshot)
// and presents through package report, so a comparison or a trend looks
// as `compare -html` writes it.
//
// The views:
//
//	/runs       every run: filters, sort and page in the query, checkboxes (sel=ID) to select runs
//	/compare    report.New over the selected runs (sel=BASELINE&sel=OTHER…), the report's page
//	/landscape  output tok/s per GPU against tok/s per user, one point per measured decode cell
//	/trend      one configuration (model and GPU) across engine versions, report.NewTrends
//	/run        one run: its metadata and cells; Landscape points link here
//	/static/…   the embedded stylesheet and script (go:embed, looked up by exact name)
//
// The pipeline: each request checks the archive's published snapshot
// (archive.Snapshot); when it changed, the run listing (listing.go) is
// read again, else the cached one answers. Filters, sort and pagination
// run over that cached slice (runs.go), so the first page of 100,000
// runs costs a filter pass and a sort, not an archive read (docs/serve.md
// gives the figures).
//
// Security (server.go): every handler is read-only; a token, when set,
// is checked on every request with a constant-time compare (given once
// as ?token=, then kept in an HttpOnly cookie, never logged); a path
// holding "..", a backslash or an encoded slash or dot is refused before
// routing; everything is written through html/template; a page sets a
// Content-Security-Policy that forbids any network access but the
// server's own /static. Errors a reader can cause (a malformed filter,
// an unknown run id, runs the archive no longer holds) are pages with a
// 4xx status and the reason (errors.go); damaged archive files are
// skipped and named on every page.
package dashboard
