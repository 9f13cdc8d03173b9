// Package cliflag parses a subcommand's flags with package flag, strictly
// and forgivingly, so that every speedmatrix subcommand answers a
// mistake the same way and before it does any work:
//
//   - a flag after the positional arguments (`ingest -archive A FILE
//     -json`) is refused, where package flag would take it for a file;
//   - an unknown flag gets the closest defined one ("did you mean
//     -archive?", by edit distance over the flag set) and a three-line
//     usage (synopsis, suggestion, where -h is), not the whole flag list;
//   - a duration without a unit (`-duration 2`) says which unit to add;
//   - -h prints the synopsis, an example and the exit codes first, then
//     the notes and every flag;
//   - -version prints the build (package version) on stdout.
//
// Parse prints each of these itself, like package flag, and returns an
// error wrapping ErrReported (exit status 2) or flag.ErrHelp (after -h,
// -version and the flag listing: exit status 0). Parse given the single
// argument ListArg prints the flag set, one flag a line, for the shell
// completion scripts of cmd/speedmatrix, so that those are generated
// from the flag sets themselves.
package cliflag
