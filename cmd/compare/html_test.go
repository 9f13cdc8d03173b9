package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
)

// TestHTMLInChromium opens the seeds' comparison page in headless
// Chromium and checks that every chart and table rendered into the DOM.
func TestHTMLInChromium(t *testing.T) {
	chromium := testtool.Chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	code, _, errs := runCmd(t, "", "-html", page, "-min-user-tps", "100", "-max-ttft", "500", "-max-tbt", "10", seedBF16, seedINT4)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := string(out)
	// Charts: decode total, per request, 2 USL, ratio, prefill ×2,
	// decode against context, a frontier per context (5).
	const charts = 8 + 5
	// Tables: summary, targets, best per context, 4 ratio matrices, runs,
	// deltas, geometric means, then per run scaling, context, frontier,
	// best at ≥ T and SLO.
	const tables = 3 + 4 + 3 + 2*5
	if n := strings.Count(dom, "<svg "); n != charts {
		t.Errorf("DOM has %d charts, want %d", n, charts)
	}
	if n := strings.Count(dom, "<table"); n != tables {
		t.Errorf("DOM has %d tables, want %d", n, tables)
	}
	for _, w := range []string{"0.47", "6,091.1", "13,000 tok/s (8K×128)", "delivers 0.756× the decode throughput", "looped in RTX PRO 6000 INT4", "over capacity in both", "USL 8K: λ", "0.47×"} {
		if !strings.Contains(dom, w) {
			t.Errorf("DOM lacks %q", w)
		}
	}
}
