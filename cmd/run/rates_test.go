package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/parse"
	"speedmatrix/render"
	"speedmatrix/runner"
	"speedmatrix/schema"
)

// TestRatesUsage: -rates refuses what cannot combine with it, and the
// open-loop flags refuse to go without it.
func TestRatesUsage(t *testing.T) {
	base := []string{"-url", "http://127.0.0.1:1", "-model", "m"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"zero rate", []string{"-rates", "0"}, "rate \"0\""},
		{"negative rate", []string{"-rates", "2,-1"}, "rate \"-1\""},
		{"no rates", []string{"-rates", ","}, "no rates"},
		{"bad sweep", []string{"-rates", "sweep:0"}, "sweep:N"},
		{"rates with contexts", []string{"-rates", "1", "-contexts", "8K"}, "-contexts does not apply with -rates"},
		{"rates with max tokens", []string{"-rates", "1", "-max-tokens", "10"}, "-max-tokens does not apply"},
		{"rates with concurrency", []string{"-rates", "1,2", "-concurrency", "4"}, "-concurrency does not apply to a list of rates"},
		{"sweep with two concurrencies", []string{"-rates", "sweep", "-concurrency", "4,8"}, "one value"},
		{"duration and requests", []string{"-rates", "1", "-duration", "5s", "-requests", "10"}, "give one"},
		{"zero requests", []string{"-rates", "1", "-requests", "0"}, "-requests 0"},
		{"bad arrival", []string{"-rates", "1", "-arrival", "bursty"}, "-arrival"},
		{"bad lengths", []string{"-rates", "1", "-input-tokens", "uniform:9-3"}, "-input-tokens"},
		{"bad slo", []string{"-rates", "1", "-slo", "itl:5ms"}, "-slo"},
		{"bad seed", []string{"-rates", "1", "-seed", "-4"}, "-seed"},
		{"zero in flight", []string{"-rates", "1", "-max-inflight", "0"}, "-max-inflight 0"},
		{"max in flight without rates", []string{"-contexts", "1K", "-max-inflight", "8"}, "-max-inflight applies"},
		{"slo without rates", []string{"-contexts", "1K", "-slo", "ttft:1s"}, "-slo applies to open-loop runs"},
		{"arrival without rates", []string{"-contexts", "1K", "-arrival", "constant"}, "-arrival applies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, context.Background(), append(append([]string{}, base...), tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

// TestRatesSimulate measures two open-loop rates of the simulator into an
// archive and a document: the rows are serve rows with the rate and the
// figures other tools' serving rows have, every document form reads back
// to the archived rows, and ingesting the document is a duplicate.
func TestRatesSimulate(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "archive")
	out := filepath.Join(dir, "rates.md")
	code, stdout, stderr := runCmd(t, context.Background(), "-simulate", "default", "-rates", "20,40", "-requests", "30",
		"-arrival", "constant", "-seed", "11", "-input-tokens", "uniform:200-600", "-output-tokens", "24",
		"-slo", "ttft:1s,tbt:100ms", "-archive", arch, "-out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "seed 11") {
		t.Errorf("the seed is not printed: %s", stderr)
	}
	a, err := archive.Open(arch)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := a.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("archive runs %v, %v", runs, err)
	}
	got, err := a.Load(context.Background(), runs[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	m := got[0]
	if len(m.Measurements) != 2 || len(m.Samples) != 60 {
		t.Fatalf("%d rows, %d samples; want 2 and 60", len(m.Measurements), len(m.Samples))
	}
	for i, x := range m.Measurements {
		want := []float64{20, 40}[i]
		if x.Phase != schema.PhaseServe || x.RequestRate == nil || *x.RequestRate != want || x.Concurrency != nil ||
			x.ContextLabel != "400" || x.GoodputReqS == nil || x.TTFTP99Ms == nil || x.E2EP90Ms == nil ||
			x.ChunkGapP50Ms == nil || x.AvgActiveRequests == nil || *x.CompletedRequests != 30 {
			t.Errorf("row %d: %+v", i, x)
		}
		// Every request met an SLO this loose: goodput is the completion rate.
		if *x.GoodputReqS != *x.RequestThroughput {
			t.Errorf("row %d: goodput %v, request throughput %v", i, *x.GoodputReqS, *x.RequestThroughput)
		}
	}
	// Every form reads back to the archived rows.
	for _, ext := range []string{".txt", ".md", ".html"} {
		w, err := render.ByExtension("x" + ext)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w(&b, m); err != nil {
			t.Fatal(err)
		}
		doc, err := parse.ParseBytes(b.Bytes(), "rates"+ext, "")
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		// Note: the run id is compared on the -out document below: the
		// archive keeps times to the microsecond, so a document rendered
		// from the archived run prints other start and end times.
		if len(doc.Measurements) != len(m.Measurements) {
			t.Fatalf("%s: %d rows, archived %d", ext, len(doc.Measurements), len(m.Measurements))
		}
		for i := range m.Measurements {
			if g, w := columns(&doc.Measurements[i]), columns(&m.Measurements[i]); fmt.Sprint(g) != fmt.Sprint(w) {
				t.Errorf("%s row %d:\ndocument %v\narchived %v", ext, i, g, w)
			}
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The document leads with its rate table, a row per rate, which
	// parse checks against the rows it reads.
	doc := string(b)
	if at := strings.Index(doc, "## Serve by request rate"); at < 0 || at > strings.Index(doc, "## Hardware") ||
		!strings.Contains(doc, "| 400 | 20/s |") || !strings.Contains(doc, "| 400 | 40/s |") {
		t.Errorf("the document has no rate table before its Hardware section, a row per rate:\n%s", doc)
	}
	again, err := parse.ParseBytes(b, out, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.Run.RunID != m.Run.RunID {
		t.Errorf("the document's run id %s, archived %s", again.Run.RunID, m.Run.RunID)
	}
	res, err := a.Append(context.Background(), []*schema.Matrix{again})
	if err != nil || res.Added() != 0 {
		t.Errorf("ingesting the run's own document: %+v, %v", res, err)
	}
}

// TestRatesInterrupt: Ctrl-C during a -rates run before any rate finished
// exits 130 and says that nothing was saved.
func TestRatesInterrupt(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(1500 * time.Millisecond)
		cancel()
	}()
	code, _, stderr := runCmd(t, ctx, "-simulate", "default", "-rates", "2", "-duration", "1m", "-out", filepath.Join(dir, "r.md"))
	if code != exitInterrupted || !strings.Contains(stderr, "before any rate finished: nothing was saved") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.md")); !os.IsNotExist(err) {
		t.Error("a document was written for an interrupted run")
	}
}

// TestRatesResume: a -rates run killed after its first rate finished
// keeps that rate in its checkpoint, and -resume measures only the rest,
// with the interrupted run's seed, and writes both rows. Before, a -rates
// run kept no checkpoint: the finished rate was lost.
func TestRatesResume(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.md")
	args := []string{"-simulate", "default", "-rates", "40,20", "-duration", "1s", "-input-tokens", "256", "-output-tokens", "8", "-out", out}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(out + ".checkpoint.json"); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	code, _, stderr := runCmd(t, ctx, args...)
	if code != exitInterrupted || !strings.Contains(stderr, "1 rates finished and saved") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	cp, err := runner.LoadCheckpoint(out + ".checkpoint.json")
	if err != nil || len(cp.Matrix.Measurements) != 1 || cp.Seed == 0 {
		t.Fatalf("checkpoint %+v, %v", cp, err)
	}
	first := cp.Matrix.Measurements[0]
	code, stdout, stderr := runCmd(t, context.Background(), append(args, "-resume")...)
	if code != exitOK || !strings.Contains(stderr, "resuming 1 finished rates") || !strings.Contains(stderr, fmt.Sprintf("seed is %d", cp.Seed)) {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	m := readDocument(t, out)
	if len(m.Measurements) != 2 || *m.Measurements[0].RequestRate != 40 || *m.Measurements[1].RequestRate != 20 {
		t.Fatalf("resumed run has %d rows", len(m.Measurements))
	}
	if g, w := columns(&m.Measurements[0]), columns(&first); fmt.Sprint(g) != fmt.Sprint(w) {
		t.Errorf("the first rate was measured again:\n%v\nwant the checkpointed row\n%v", g, w)
	}
	if n := strings.Count(fmt.Sprint(m.Run.Metadata), "Arrival"); n != 1 {
		t.Errorf("metadata holds %d Arrival facts", n)
	}
}

// TestRatesSweep runs -rates sweep:2 against the simulator with
// -concurrency 8 as the saturation probe's streams: four rows (the two
// probes, two rates up to the saturation rate), the sweep told in the
// run's metadata, the document reading back.
func TestRatesSweep(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep.txt")
	code, stdout, stderr := runCmd(t, context.Background(), "-simulate", "default", "-rates", "sweep:2", "-concurrency", "8",
		"-requests", "40", "-input-tokens", "256", "-output-tokens", "16", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.ParseBytes(b, out, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 4 {
		t.Fatalf("%d rows, want 4", len(m.Measurements))
	}
	if c := m.Measurements[1].Concurrency; c == nil || *c != 8 {
		t.Errorf("saturation probe at %v streams, want 8", c)
	}
	sync, sat := *m.Measurements[0].RequestThroughput, *m.Measurements[1].RequestThroughput
	want, told := sat, "2 rates from the synchronous rate"
	if strings.Contains(string(b), "so the rates spread from 0 to the higher of the two") {
		// A saturation probe that measured no more than the synchronous
		// one (on a machine busy enough to starve its 8 streams): the
		// rates go up to the higher of the two, and the run says why.
		want, told = max(sync, sat), "is not above the synchronous rate"
	}
	if r := *m.Measurements[3].RequestRate; math.Abs(r-want) > 0.001*want {
		t.Errorf("last rate %v, want %v (synchronous %v, saturation %v)", r, want, sync, sat)
	}
	if !strings.Contains(string(b), told) {
		t.Errorf("the document does not tell the sweep (%q)", told)
	}
}
