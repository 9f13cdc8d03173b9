package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Revision, when set at link time (-ldflags "-X
// speedmatrix/internal/version.Revision=HASH"), names the commit of a
// build whose build information carries none (go run, a git worktree,
// -buildvcs=false). A commit in the build information wins.
var Revision string

// Info is what a binary knows of its build.
type Info struct {
	// Module is the main module's path ("speedmatrix").
	Module string
	// Version is the module version without its "v" ("0.0.0-devel" for
	// a build from a checkout that no tag names).
	Version string
	// Revision is the full commit hash, or "" when the build carries none.
	Revision string
	// Time is the commit's date as the VCS gives it (RFC 3339), or "".
	Time string
	// Modified reports uncommitted changes in the checkout at build time.
	Modified bool
	// Go is the toolchain that built the binary ("go1.26.8").
	Go string
}

// Read returns the running binary's Info.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo returns the Info held by bi (nil: none at all), with the
// link-time Revision where bi carries no commit.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: "speedmatrix", Version: "0.0.0-devel", Go: runtime.Version()}
	if bi == nil {
		in.Revision = Revision
		return in
	}
	if bi.Main.Path != "" {
		in.Module = bi.Main.Path
	}
	if bi.GoVersion != "" {
		in.Go = bi.GoVersion
	}
	if v := strings.TrimPrefix(bi.Main.Version, "v"); v != "" && v != "(devel)" {
		in.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	if in.Revision == "" {
		in.Revision = Revision
	}
	return in
}

// short is the first 12 characters of the commit, the length Go's
// pseudo-versions use.
func (in Info) short() string {
	if len(in.Revision) > 12 {
		return in.Revision[:12]
	}
	return in.Revision
}

// Document returns the version a document records after the tool's name:
// Version, plus "+COMMIT" (12 characters) and ".dirty" for a build of a
// modified checkout, when Version does not already name the commit (a
// pseudo-version such as 0.0.0-20261207054500-8a7f83b0a1b2+dirty does).
// It holds no space, so parsers split it off the tool's name.
func (in Info) Document() string {
	v := in.Version
	if in.Revision == "" || strings.Contains(v, in.short()) {
		return v
	}
	sep := "+"
	if strings.Contains(v, "+") {
		sep = "."
	}
	v += sep + in.short()
	if in.Modified {
		v += ".dirty"
	}
	return v
}

// String returns the lines `speedmatrix version` prints:
//
//	speedmatrix 0.0.0-devel
//	commit 8a7f83b0a1b2c3d4e5f60718293a4b5c6d7e8f90 (modified)
//	date   2026-12-07T05:45:00Z (the commit's)
//	go     go1.26.8 linux/amd64
func (in Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", in.Module, in.Version)
	switch {
	case in.Revision == "":
		b.WriteString("commit unknown (this build carries none: go run, go test, a git worktree and -buildvcs=false stamp no commit; go build or go install in a git clone does)\n")
	case in.Modified:
		fmt.Fprintf(&b, "commit %s (modified: the checkout had uncommitted changes)\n", in.Revision)
	default:
		fmt.Fprintf(&b, "commit %s\n", in.Revision)
	}
	if in.Time != "" {
		fmt.Fprintf(&b, "date   %s (the commit's)\n", in.Time)
	}
	fmt.Fprintf(&b, "go     %s %s/%s\n", in.Go, runtime.GOOS, runtime.GOARCH)
	return b.String()
}
