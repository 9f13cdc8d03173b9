// Package archivepath decides which archive a command uses and which
// paths a command may create, the one rule every command (ingest, run,
// compare, serve, show) follows:
//
//   - the archive is -archive when given, else $SPEEDMATRIX_ARCHIVE when
//     set, else ./archive when it exists (Resolve);
//   - a read command needs an archive that exists, and when none does
//     the error names every place tried (Choice.ForRead);
//   - a write command may create the archive, and says "created archive
//     at PATH" on stderr the one time it does (Choice.ForWrite, Created);
//     ./archive is then the default even when missing;
//   - no command creates a missing parent directory: a typo in a path
//     (-archive, run -out, compare -html) is an error naming the parent
//     (CheckParent), never a new tree.
//
// An Iceberg table reference (iceberg+sqlite:…, iceberg+postgres:…,
// iceberg+rest:…) passes through untouched: it is no directory, and the
// catalog behind it decides what exists.
//
// The package opens no archive (it must not link the archive's Parquet
// code): it says which path, and whether it is new; the command opens
// it.
package archivepath
