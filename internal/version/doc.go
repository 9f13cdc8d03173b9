// Package version says which build of speedmatrix is running: the module
// version, the commit it was built from (and whether the checkout had
// uncommitted changes) and that commit's date, read from the build
// information the Go toolchain stamps into every binary
// (runtime/debug.ReadBuildInfo).
//
// `go build` and `go install` in a git clone stamp the commit; `go run`,
// `go test`, a git worktree (where .git is a file) and -buildvcs=false
// stamp none. For those, a build may set the commit with
// -ldflags "-X speedmatrix/internal/version.Revision=$(git rev-parse HEAD)"
// (scripts/demo does). Without either, the commit is "unknown" and says so.
//
// `speedmatrix version` and every subcommand's -version print
// Info.String; documents that `run` writes record Info.Document as their
// client and benchmark version.
package version
