package runcmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// faultySim serves the default simulator with faults on every
// completion, and returns its URL and model.
func faultySim(t *testing.T, faults ...sim.Fault) (url, model string) {
	t.Helper()
	p := sim.DefaultProfile()
	p.StepBase = time.Millisecond
	p.Faults = faults
	srv, url, err := sim.Listen(p, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return url, p.ModelName
}

// TestExitNoFigure: a run whose every request fails (HTTP 500, 429, an
// error event, a reset connection) exits 1 with one line on stderr that
// says no cell produced a figure and why; its document is written all
// the same. It exited 0.
func TestExitNoFigure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault sim.Fault
		why   string
	}{
		{"HTTP 500", sim.Fault{Kind: sim.FaultHTTPStatus, Every: 1, Status: 500}, "HTTP 500"},
		{"HTTP 429", sim.Fault{Kind: sim.FaultHTTPStatus, Every: 1, Status: 429}, "HTTP 429"},
		{"error event", sim.Fault{Kind: sim.FaultStreamError, Every: 1}, "server error in stream"},
		{"reset", sim.Fault{Kind: sim.FaultReset, Every: 1}, "connection reset"},
		{"HTTP 500, -rates", sim.Fault{Kind: sim.FaultHTTPStatus, Every: 1, Status: 500}, "HTTP 500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, model := faultySim(t, tc.fault)
			out := filepath.Join(t.TempDir(), "r.md")
			args := []string{"-url", url, "-model", model, "-duration", "300ms", "-out", out}
			if strings.HasSuffix(tc.name, "-rates") {
				args = append(args, "-rates", "10", "-input-tokens", "256", "-output-tokens", "16")
			} else {
				args = append(args, "-contexts", "1K", "-max-tokens", "16")
			}
			code, _, stderr := runCmd(t, context.Background(), args...)
			var line string
			for _, l := range strings.Split(stderr, "\n") {
				if strings.Contains(l, "no cell produced a figure") {
					line = l
				}
			}
			t.Logf("exit %d: %s", code, line)
			if code != exitFail || !strings.HasPrefix(line, "run: no cell produced a figure: ") || !strings.Contains(line, tc.why) {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			m := readDocument(t, out)
			for _, x := range m.Measurements {
				if x.Status == schema.StatusValid {
					t.Errorf("%s %s valid", x.Phase, x.ContextLabel)
				}
			}
		})
	}
}

// TestExitFigure: one valid cell among failed ones is a run that
// produced figures (exit 0); none is not.
func TestExitFigure(t *testing.T) {
	cell := func(s schema.Status, why string) schema.Measurement {
		return schema.Measurement{Status: s, StatusReason: why}
	}
	for _, tc := range []struct {
		name string
		ms   []schema.Measurement
		want string // "" for no error
	}{
		{"one valid", []schema.Measurement{cell(schema.StatusError, "x"), cell(schema.StatusValid, "")}, ""},
		{"none", nil, "no cell produced a figure: the run has no cells"},
		{"errors and over capacity", []schema.Measurement{cell(schema.StatusOverCapacity, "KV"), cell(schema.StatusError, "HTTP 500:\nbody"), cell(schema.StatusError, "later")},
			"no cell produced a figure: 1 over_capacity, 2 error; first error: HTTP 500: body"},
	} {
		err := noFigure(&schema.Matrix{Measurements: tc.ms})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDrainFlag: -drain bounds the wait for the requests still streaming
// after a rate's last arrival (a fixed minute, no flag, before): against
// a server whose requests take 0.8 s, a 2 s rate with -drain 200ms ends
// soon after its last arrival, and the requests it cut are counted in
// incomplete_requests and noted on the row, never lost. run -h names it.
func TestDrainFlag(t *testing.T) {
	p := sim.DefaultProfile()
	p.StepBase, p.StepPerSeq, p.StepPerKToken = 50*time.Millisecond, 0, 0
	srv, url, err := sim.Listen(p, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "r.md")
	start := time.Now()
	code, _, stderr := runCmd(t, context.Background(), "-url", url, "-model", p.ModelName, "-rates", "4", "-arrival", "constant",
		"-duration", "2s", "-input-tokens", "256", "-output-tokens", "16", "-drain", "200ms", "-out", out)
	took := time.Since(start)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := readDocument(t, out)
	if len(m.Measurements) != 1 {
		t.Fatalf("%d rows", len(m.Measurements))
	}
	x := m.Measurements[0]
	var sent, cut float64
	for _, e := range x.Extra {
		switch e.Name {
		case "requests_sent":
			sent = e.Value
		case "incomplete_requests":
			cut = e.Value
		}
	}
	done := float64(*x.CompletedRequests + *x.ErroredRequests)
	t.Logf("%v: %s (%s); sent %v, completed and errored %v, cut %v", took, x.Status, x.StatusReason, sent, done, cut)
	if cut < 1 || done+cut != sent || !strings.Contains(x.StatusReason, "were cut") {
		t.Errorf("sent %v, completed and errored %v, cut %v, reason %q: want the cut requests counted and noted", sent, done, cut, x.StatusReason)
	}
	if took > 15*time.Second {
		t.Errorf("the run took %v: the drain is not bounded by -drain", took)
	}
	var help strings.Builder
	run(context.Background(), []string{"-h"}, strings.NewReader(""), &help, &help)
	if !strings.Contains(help.String(), "-drain duration") || !strings.Contains(help.String(), "incomplete_requests") {
		t.Errorf("run -h does not document -drain:\n%s", help.String())
	}
}
