// Package comparecmd is the `speedmatrix compare` subcommand, which
// compares speed-test runs: the first argument is the baseline, the
// others are compared with it cell by cell.
//
//	speedmatrix compare [-archive DIR [-skip-damaged]] [-format text|markdown|csv|json] [-table NAME] [-plots DIR] [-html FILE]
//	        [-min-user-tps T] [-max-ttft MS] [-max-tbt MS] [-tolerance 3%] [-all-contexts]
//	        [-metrics COLS] [-labels L,…] BASELINE OTHER...
//	speedmatrix compare [-archive DIR] -list [SELECTOR...]
//	speedmatrix compare [-archive DIR] -trend [-cell phase:context:N]... [-metric COL] [-order version|date]
//	        [-threshold 5%] [SELECTOR|FILE...]
//
// An argument is a document file (any form ingest reads) or a selector
// of an archived run: a run-id prefix, or comma-separated metadata
// filters key=value (equal, ignoring case) and key=~value (contains,
// ignoring case), such as "gpu=~H200,quantization=BF16". Each selector
// must match exactly one run; one that matches none lists the values
// present for its key, closest first, and one that matches several says
// where they differ and the selector that picks each (analysis.NoMatch,
// analysis.Ambiguous). The archive is -archive DIR, else
// $SPEEDMATRIX_ARCHIVE, else ./archive when it exists
// (internal/archivepath).
//
// The pipeline: arguments ──► inputs.go (parse documents, select and load
// archived runs) ──► analysis (align, deltas, geometric means, scaling,
// USL fit, frontier, targets, serving curves: numbers only) ──► report
// (summary first, tables, ratio matrices as text, Markdown, CSV or JSON;
// with -html the self-contained page; with -plots the chart specs)
// ──► package plots (each chart as PNG and SVG into the -plots
// directory). report opens no file: this command creates the -html file.
//
// Flags are checked before any work: an unknown metric, table or selector
// key, a percentage without %, a malformed -cell, a flag after the runs,
// an -html or -plots path that cannot be written and a directory given
// as a document are usage errors (exit 2) and nothing is written.
//
// -prices FILE (a TOML price file: as_of and "GPU model" = US dollars
// per GPU-hour), -price GPU=USD and -gpus RUN=N (the GPU count of a run
// that records none) add the answer per dollar; energy a run records
// adds the answer per joule (docs/prices.md). A bad price file is a
// usage error at its line.
//
// -trend follows chosen cells across the archived runs that share the
// model and GPU of the selected run (or the runs a selector matches, or
// every model and GPU in the archive when no selector is given), ordered
// by engine version or date, flagging changes beyond -threshold.
//
// Exit status: 0 on success, 1 when inputs cannot be read or selected,
// 2 on a usage error.
//
// The package is named comparecmd, not compare, so that it reads apart from the
// library package it drivess (analysis, report); cmd/speedmatrix runs it through Main.
package comparecmd
