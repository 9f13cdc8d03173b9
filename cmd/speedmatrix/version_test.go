package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/internal/version"
)

const testRevision = "0123456789abcdef0123456789abcdef01234567"

// TestVersion checks that `speedmatrix version`, --version and every
// command's -version print the same build description on stdout, with
// the commit (here set as a link-time -X would set it: go test stamps
// none).
func TestVersion(t *testing.T) {
	defer func(r string) { version.Revision = r }(version.Revision)
	version.Revision = testRevision
	code, want, errs := call(t, "version")
	if code != exitOK || errs != "" || !strings.HasPrefix(want, "speedmatrix 0.0.0-devel\ncommit "+testRevision+"\n") {
		t.Fatalf("version: exit %d, stderr %q, stdout:\n%s", code, errs, want)
	}
	check := func(args ...string) {
		t.Helper()
		code, out, errs := call(t, args...)
		if code != exitOK || errs != "" || out != want {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", args, code, errs, out)
		}
	}
	check("--version")
	check("-version")
	for _, c := range all() {
		if c.name != "help" {
			check(c.name, "-version")
		}
	}
	if code, _, errs := call(t, "version", "extra"); code != exitUsage || !strings.Contains(errs, "takes no arguments") {
		t.Errorf("version extra: exit %d, stderr %q", code, errs)
	}
}

// TestDocumentRecordsVersion measures a one-cell matrix of the
// simulator and checks that the document names the build's commit as
// the benchmark tool's version and the client version, and that ingest
// reads both back.
func TestDocumentRecordsVersion(t *testing.T) {
	defer func(r string) { version.Revision = r }(version.Revision)
	version.Revision = testRevision
	doc := filepath.Join(t.TempDir(), "sim.md")
	code, _, errs := call(t, "run", "-simulate", "default", "-contexts", "1K", "-concurrency", "1", "-duration", "1s", "-out", doc)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	const v = "0.0.0-devel+0123456789ab"
	for _, want := range []string{"speedmatrix run v" + v + "\n", "**Client version:** " + v + "\n"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the document lacks %q", want)
		}
	}
	code, out, errs := call(t, "ingest", "-json", doc)
	if code != exitOK {
		t.Fatalf("ingest -json: exit %d\n%s", code, errs)
	}
	var ms []struct {
		Run struct {
			BenchTool     string `json:"bench_tool"`
			BenchVersion  string `json:"bench_version"`
			ClientVersion string `json:"client_version"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &ms); err != nil || len(ms) != 1 {
		t.Fatalf("ingest -json: %v (%d runs)\n%.500s", err, len(ms), out)
	}
	if r := ms[0].Run; r.BenchTool != "speedmatrix run" || r.BenchVersion != v || r.ClientVersion != v {
		t.Errorf("read back: %+v, want speedmatrix run, %s, %s", r, v, v)
	}
}
