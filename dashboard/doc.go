// Package dashboard serves a read-only web UI over an archive: the views
// `cmd/serve` puts on an address. It reads the archive through Source
// (source.go), a small interface of what it reads (ListRuns,
// ListMetadata, Load, LoadColumns, Refresh) that a store.Store of either
// kind satisfies, a directory archive or a shared Iceberg table, and
// presents through package report, so a comparison or a trend looks as
// `compare -html` writes it.
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
// The pipeline: a request asks the Source for the archive's state
// (Refresh: a directory's snapshot, a table's snapshot ids, which it
// re-pins; at most once per Options.Recheck); when it changed, the run
// listing (listing.go) is read again, else the cached one answers. The
// listing is the narrow runs columns (ListRuns) and the metadata of the
// few runs with a blank GPU, engine or quantization (ListMetadata), filled
// as compare -list fills them. Filters, sort and pagination run over that
// cached slice (runs.go), so a warm first page of 100,000 runs costs a
// filter pass, not an archive read (docs/serve.md gives the figures).
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
