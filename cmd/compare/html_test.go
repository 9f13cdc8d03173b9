package comparecmd

import (
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/internal/testtool"
)

// TestHTMLInChromium opens the seeds' comparison page in headless
// Chromium and checks that every chart and table rendered into the DOM.
func TestHTMLInChromium(t *testing.T) {
	testtool.Chromium(t) // skip (or fail) before any work when it is missing
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	code, _, errs := runCmd(t, "", "-html", page, "-min-user-tps", "100", "-max-ttft", "500", "-max-tbt", "10", seedBF16, seedINT4)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	dom := testtool.DumpDOM(t, page)
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
	for _, w := range []string{"0.47", "6,091.1", "13,000 tok/s (8K×128)", "delivers 0.756× the decode throughput", "looped in RTX PRO 6000 INT4", "over capacity in both", "USL 8K: λ", "0.469×"} {
		if !strings.Contains(dom, w) {
			t.Errorf("DOM lacks %q", w)
		}
	}
}
