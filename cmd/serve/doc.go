// Package servecmd is the `speedmatrix serve` subcommand, which serves a
// read-only web dashboard over an archive: the Runs table (filter, sort,
// select), the comparison of selected runs, the Landscape of tok/s per
// GPU against tok/s per user, and trends across engine versions
// (package dashboard).
//
//	speedmatrix serve [-archive DIR|TABLE] [-addr 127.0.0.1:8080] [-token T | -open]
//
// The archive is -archive DIR, else $SPEEDMATRIX_ARCHIVE, else ./archive
// when it exists (internal/archivepath); when none is there, the error
// names the paths tried. A shared archive of Iceberg tables (a reference
// "iceberg+…", docs/iceberg.md) is opened through package archive/store
// as the other commands open it; serve reads its current snapshot and
// checks the catalog for a newer one at most every 5 s (tableRecheck).
//
// It binds the loopback address by default. Serving on any other
// address needs -token T (every request must then carry it; the token
// is never printed) or -open, which says at start that anyone who can
// reach the address can read the archive.
//
// The package is named servecmd, not serve, so that it reads apart from the
// library package it drives (dashboard); cmd/speedmatrix runs it through Main.
package servecmd
