// Command speedmatrix is the one command of this module: it dispatches
// to its subcommands the way go, gh and vegeta do.
//
//	speedmatrix ingest  [flags] FILE...      parse documents and result files into an archive
//	speedmatrix run     [flags]              measure a server (or the simulator)
//	speedmatrix compare [flags] BASE OTHER... which setup is better
//	speedmatrix serve   [flags]              a read-only dashboard over an archive
//	speedmatrix version                      module version, commit and date of this build
//	speedmatrix completion bash|zsh          a shell completion script
//	speedmatrix help [COMMAND]
//
// Each subcommand is a package under cmd/ (cmd/ingest is package
// ingestcmd, and so on) exporting Main(ctx, args, stdin, stdout,
// stderr) int; commands (run.go) is the table that names them, one line
// each. Every subcommand parses its flags with internal/cliflag, which
// gives them the same strictness, the same -h layout and -version.
//
// The completion scripts are generated from the subcommands' flag sets:
// completion runs each Main with cliflag.ListArg, which prints the flag
// set instead of running, and writes the names into the script.
//
// The first interrupt (Ctrl-C or SIGTERM) cancels the context the
// subcommand runs under, so it stops cleanly (run keeps what it measured,
// ingest writes nothing half); a second one ends the process at once.
//
// Exit status: the subcommand's (0 success, 1 its work failed, 2 a
// usage error, 130 run interrupted); 2 for an unknown subcommand.
package main
