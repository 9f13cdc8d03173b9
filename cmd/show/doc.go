// Package show is the `speedmatrix show` subcommand: one run at a
// glance, with no other run to compare it with.
//
//	show [-archive DIR] [-md | -json] RUN
//
// RUN is a selector of an archived run, as compare takes it (a run-id
// prefix, or key=value / key=~value filters: analysis.Select, whose
// errors list the values present or how to pick among several), or a
// document file (any form ingest reads), or - for standard input.
// The archive is -archive DIR, else $SPEEDMATRIX_ARCHIVE, else
// ./archive when it exists (internal/archivepath).
//
// The pipeline: RUN ──► the run's matrix (archive.Load, or parse) ──►
// report.WriteRun: its title, then the summary (what the run is, its
// best figures), every cell and the metadata, as aligned text (the
// default), Markdown (-md) or one JSON object (-json). This package
// holds flags and files only; the formatting is package report's.
//
// Exit status: 0 on success, 1 when the run cannot be read or selected,
// 2 on a usage error.
package showcmd
