package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func vcs(rev, time, modified string) []debug.BuildSetting {
	var s []debug.BuildSetting
	for _, kv := range [][2]string{{"vcs", "git"}, {"vcs.revision", rev}, {"vcs.time", time}, {"vcs.modified", modified}} {
		if kv[1] != "" {
			s = append(s, debug.BuildSetting{Key: kv[0], Value: kv[1]})
		}
	}
	return s
}

// TestFromBuildInfo covers the builds a user meets: go run (no VCS),
// go build in a clone (devel with a commit, clean or modified), a
// pseudo-version (Go 1.24+ stamps the commit into it), a tagged
// release, and no build information at all.
func TestFromBuildInfo(t *testing.T) {
	const rev = "8a7f83b0a1b2c3d4e5f60718293a4b5c6d7e8f90"
	tests := []struct {
		name      string
		bi        *debug.BuildInfo
		link      string // the -X Revision
		doc       string
		lines     []string
		notInText []string
	}{
		{"go run", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "speedmatrix", Version: "(devel)"}}, "",
			"0.0.0-devel", []string{"speedmatrix 0.0.0-devel\n", "commit unknown (", "go     go1.26.8 "}, []string{"date"}},
		{"go run with -X", &debug.BuildInfo{Main: debug.Module{Path: "speedmatrix", Version: "(devel)"}}, rev,
			"0.0.0-devel+8a7f83b0a1b2", []string{"commit " + rev + "\n"}, []string{"unknown", "modified"}},
		{"clean clone", &debug.BuildInfo{Main: debug.Module{Path: "speedmatrix", Version: "(devel)"}, Settings: vcs(rev, "2026-12-07T05:45:00Z", "false")}, "",
			"0.0.0-devel+8a7f83b0a1b2", []string{"commit " + rev + "\n", "date   2026-12-07T05:45:00Z (the commit's)\n"}, []string{"modified"}},
		{"modified clone", &debug.BuildInfo{Main: debug.Module{Path: "speedmatrix", Version: "(devel)"}, Settings: vcs(rev, "2026-12-07T05:45:00Z", "true")}, "ffff",
			"0.0.0-devel+8a7f83b0a1b2.dirty", []string{"commit " + rev + " (modified: "}, nil},
		{"pseudo-version", &debug.BuildInfo{Main: debug.Module{Path: "speedmatrix", Version: "v0.0.0-20261207054500-8a7f83b0a1b2+dirty"}, Settings: vcs(rev, "2026-12-07T05:45:00Z", "true")}, "",
			"0.0.0-20261207054500-8a7f83b0a1b2+dirty", []string{"speedmatrix 0.0.0-20261207054500-8a7f83b0a1b2+dirty\n"}, nil},
		{"tagged", &debug.BuildInfo{Main: debug.Module{Path: "speedmatrix", Version: "v1.2.0"}, Settings: vcs(rev, "2026-12-07T05:45:00Z", "false")}, "",
			"1.2.0+8a7f83b0a1b2", []string{"speedmatrix 1.2.0\n"}, nil},
		{"no build information", nil, "", "0.0.0-devel", []string{"speedmatrix 0.0.0-devel\n", "commit unknown"}, nil},
	}
	defer func(r string) { Revision = r }(Revision)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Revision = tt.link
			in := FromBuildInfo(tt.bi)
			if got := in.Document(); got != tt.doc {
				t.Errorf("Document() = %q, want %q", got, tt.doc)
			}
			if strings.ContainsAny(in.Document(), " \t\n") {
				t.Errorf("Document() %q holds a space: parsers could not split it off the tool's name", in.Document())
			}
			text := in.String()
			for _, l := range tt.lines {
				if !strings.Contains(text, l) {
					t.Errorf("String() lacks %q:\n%s", l, text)
				}
			}
			for _, l := range tt.notInText {
				if strings.Contains(text, l) {
					t.Errorf("String() holds %q:\n%s", l, text)
				}
			}
		})
	}
}

// TestReadInTest checks Read on the test binary itself: go test stamps
// no commit, so the link-time Revision shows.
func TestReadInTest(t *testing.T) {
	defer func(r string) { Revision = r }(Revision)
	Revision = "0123456789abcdef"
	in := Read()
	if in.Module != "speedmatrix" || in.Revision != "0123456789abcdef" {
		t.Errorf("Read() = %+v", in)
	}
}
