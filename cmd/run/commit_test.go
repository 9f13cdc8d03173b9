package runcmd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/parse"
	"speedmatrix/runner"
	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// quickRun is a one-cell simulated run's flags.
func quickRun(dir string) []string {
	return []string{"-simulate", "default", "-contexts", "1K", "-concurrency", "1", "-duration", "300ms", "-max-tokens", "50",
		"-archive", filepath.Join(dir, "archive"), "-out", filepath.Join(dir, "run.md")}
}

// onlyRun returns the one run of an archive, failing when it holds
// another number of runs.
func onlyRun(t *testing.T, dir string) *schema.Matrix {
	t.Helper()
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := a.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("the archive holds %d runs, want 1", len(runs))
	}
	ms, err := a.Load(context.Background(), runs[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	return ms[0]
}

// checkOnce checks that dir's archive holds exactly one run, that the
// document reads back to that run's id and that no checkpoint is left.
func checkOnce(t *testing.T, dir string) {
	t.Helper()
	run := onlyRun(t, filepath.Join(dir, "archive"))
	b, err := os.ReadFile(filepath.Join(dir, "run.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parse.ParseBytes(b, "run.md", "")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Run.RunID != run.Run.RunID {
		t.Errorf("document run id %s, archived %s", doc.Run.RunID, run.Run.RunID)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.md.checkpoint.json")); !os.IsNotExist(err) {
		t.Errorf("checkpoint left behind: %v", err)
	}
}

// TestCommitFailurePoints stops a finished run at each step that ends it
// (as a crash or a kill would: nothing after the step runs), then resumes
// it: the run must be archived exactly once, under the id its document
// reads back to, and the checkpoint removed.
func TestCommitFailurePoints(t *testing.T) {
	for _, step := range []string{"checkpoint", "out", "archive"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			failpoint = func(s string) error {
				if s == step {
					return errors.New("killed after " + s)
				}
				return nil
			}
			code, _, stderr := runCmd(t, context.Background(), quickRun(dir)...)
			failpoint = func(string) error { return nil }
			if code != exitFail || !strings.Contains(stderr, "killed after "+step) {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			code, stdout, stderr := runCmd(t, context.Background(), append(quickRun(dir), "-resume")...)
			if code != exitOK {
				t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
			}
			if step == "archive" && !strings.Contains(stdout, "(duplicate)") {
				t.Errorf("resume after the archive step: stdout %q, want the run reported as a duplicate", stdout)
			}
			checkOnce(t, dir)
		})
	}
}

// TestOutWriteFails: when the document cannot be written, the run is not
// archived yet and is kept; -resume, once the path is writable, writes
// and archives it once.
func TestOutWriteFails(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run.md")
	// A non-empty directory where the document goes, made once the run
	// is measured (the path was writable when it started): the rename
	// fails.
	failpoint = func(s string) error {
		if s == "checkpoint" {
			return os.MkdirAll(filepath.Join(out, "x"), 0o755)
		}
		return nil
	}
	code, _, stderr := runCmd(t, context.Background(), quickRun(dir)...)
	failpoint = func(string) error { return nil }
	if code != exitFail || !strings.Contains(stderr, "-resume") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, context.Background(), append(quickRun(dir), "-resume")...)
	if code != exitOK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	checkOnce(t, dir)
}

// TestArchiveNewDirWithoutOut: -archive naming a directory that does not
// exist yet (its parent does: issue 25 refuses a missing parent), without
// -out, keeps its checkpoint there and archives.
func TestArchiveNewDirWithoutOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	code, stdout, stderr := runCmd(t, context.Background(), "-simulate", "default", "-contexts", "1K", "-concurrency", "1,2",
		"-duration", "300ms", "-max-tokens", "50", "-archive", dir)
	if code != exitOK || !strings.Contains(stderr, "created archive at "+dir+"\n") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	onlyRun(t, dir)
}

// TestInterruptBeforeAnyCell: an interrupt before the first cell ends
// must not claim a checkpoint that does not exist.
func TestInterruptBeforeAnyCell(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, stderr := runCmd(t, ctx, quickRun(dir)...)
	if code != exitInterrupted {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if strings.Contains(stderr, "saved in") || !strings.Contains(stderr, "nothing was saved") {
		t.Errorf("stderr %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.md.checkpoint.json")); !os.IsNotExist(err) {
		t.Errorf("checkpoint: %v", err)
	}
}

// TestSummaryWithoutOut: without -out, stdout gets the summary a person
// reads (decode by context and concurrency, prefill, statuses), not the
// flattened document; the archive line comes first.
func TestSummaryWithoutOut(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCmd(t, context.Background(), "-simulate", "default", "-contexts", "1K", "-concurrency", "1,2",
		"-duration", "300ms", "-max-tokens", "50", "-archive", filepath.Join(dir, "a"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"archived run ", "Decode: total tok/s (TTFT) by context and requests at once", "Prefill: prompt tok/s (TTFT)", "3 cells: 3 valid"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "Speed test matrix") || strings.Contains(stdout, "speedmatrix-sim speedmatrix-sim") || strings.Contains(stdout, "1K–1K") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// TestFailedPrefillArchived: a server that answers 500 to every request
// of one context (its prefill, its scouts) leaves that context's cells
// as errors, and the run is still written and archived, once, with the
// failed cells read back as errors.
func TestFailedPrefillArchived(t *testing.T) {
	front := simBehind(t, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if strings.HasSuffix(r.URL.Path, "/completions") && bytes.Contains(body, []byte(` 2K] `)) {
			http.Error(w, `{"error":"internal"}`, http.StatusInternalServerError)
			return true
		}
		return false
	})
	dir := t.TempDir()
	for _, ext := range []string{"txt", "md", "html"} {
		out := filepath.Join(dir, "run."+ext)
		code, stdout, stderr := runCmd(t, context.Background(), "-url", front, "-model", sim.DefaultProfile().ModelName,
			"-contexts", "1K,2K", "-concurrency", "1", "-duration", "300ms", "-max-tokens", "50",
			"-archive", filepath.Join(dir, "archive-"+ext), "-out", out)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", ext, code, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parse.ParseBytes(b, out, "")
		if err != nil {
			t.Fatalf("%s: the document does not read back: %v", ext, err)
		}
		var st []string
		for _, x := range doc.Measurements {
			st = append(st, string(x.Phase)+" "+x.ContextLabel+" "+string(x.Status))
		}
		if got := strings.Join(st, ", "); got != "prefill 1K valid, prefill 2K error, decode 1K valid, decode 2K error" {
			t.Errorf("%s: cells %s", ext, got)
		}
	}
}

// TestUnwritableTargetsRefusedBeforeLoad: an -archive that is a file, an
// -out below a file or naming a directory, are refused before the server
// gets any completion request, not found after the first cell was
// measured (which then was lost with the run).
func TestUnwritableTargetsRefusedBeforeLoad(t *testing.T) {
	var generated atomic.Int64
	front := simBehind(t, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			generated.Add(1)
		}
		return false
	})
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "adir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"archive is a file", []string{"-archive", file}, "-archive " + file + " is a file"},
		{"archive below a file", []string{"-archive", filepath.Join(file, "archive")}, "-archive " + filepath.Join(file, "archive") + " cannot be written"},
		{"out below a file", []string{"-out", filepath.Join(file, "run.md")}, "-out " + filepath.Join(file, "run.md") + " cannot be written"},
		{"out is a directory", []string{"-out", filepath.Join(dir, "adir.md")}, "is a directory"},
		{"rates archive is a file", []string{"-archive", file, "-rates", "1"}, "is a file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			generated.Store(0)
			args := []string{"-url", front, "-model", sim.DefaultProfile().ModelName, "-duration", "300ms"}
			if !slices.Contains(tc.args, "-rates") {
				args = append(args, "-contexts", "1K", "-max-tokens", "50")
			}
			code, _, stderr := runCmd(t, context.Background(), append(args, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
			if n := generated.Load(); n > 0 {
				t.Errorf("%d completion requests sent before the refusal", n)
			}
		})
	}
}

// TestUnreadableDocumentStillArchived: a finished run whose document does
// not read back (two serve rows at one rate that contradict each other,
// as a sweep that planned one rate five times produced) is written and
// archived as measured, with the reason in its metadata and on stderr.
// Before, commit refused it ("duplicated row: … contradicts …"), exit 1,
// and -resume repeated the refusal: the measured run was stranded in its
// checkpoint.
func TestUnreadableDocumentStillArchived(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.md")
	arch := filepath.Join(dir, "archive")
	args := []string{"-simulate", "default", "-rates", "20,30", "-requests", "6", "-seed", "1", "-input-tokens", "256", "-output-tokens", "8",
		"-out", out, "-archive", arch}
	// A finished run stopped after its complete checkpoint, whose second
	// row is then made to contradict the first at the same rate.
	failpoint = func(s string) error {
		if s == "checkpoint" {
			return errors.New("killed after " + s)
		}
		return nil
	}
	code, _, stderr := runCmd(t, context.Background(), args...)
	failpoint = func(string) error { return nil }
	if code != exitFail || !strings.Contains(stderr, "killed after checkpoint") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	cpPath := out + ".checkpoint.json"
	cp, err := runner.LoadCheckpoint(cpPath)
	if err != nil || !cp.Complete || len(cp.Matrix.Measurements) != 2 {
		t.Fatalf("checkpoint %+v, %v", cp, err)
	}
	ms := cp.Matrix.Measurements
	ms[1].RequestRate = ms[0].RequestRate
	if err := runner.SaveCheckpoint(cpPath, cp); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runCmd(t, context.Background(), append(args, "-resume")...)
	if code != exitOK || !strings.Contains(stderr, "does not read back") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	m := onlyRun(t, arch)
	if len(m.Measurements) != 2 || len(m.Samples) == 0 {
		t.Fatalf("archived %d rows, %d samples; want both rows and their samples", len(m.Measurements), len(m.Samples))
	}
	var why string
	for _, f := range m.Run.Metadata {
		if f.Key == NoteNotReadBack {
			why = f.Value
		}
	}
	if !strings.Contains(why, "duplicated row") {
		t.Errorf("archived run's %q note is %q", NoteNotReadBack, why)
	}
	b, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(b, []byte(NoteNotReadBack)) {
		t.Errorf("the document lacks the reason (%v)", err)
	}
	if _, err := os.Stat(cpPath); !os.IsNotExist(err) {
		t.Errorf("checkpoint left: %v", err)
	}
}
