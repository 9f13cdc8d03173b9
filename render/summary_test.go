package render

import (
	"bytes"
	"strings"
	"testing"
)

// TestSummary writes the synthetic run as the terminal summary: a table a
// person reads (golden file), not the flattened document.
func TestSummary(t *testing.T) {
	var b bytes.Buffer
	if err := Summary(&b, withFailedPrefill(synthRun())); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Decode: total tok/s (TTFT)", "325.2 (41.2 ms)", "Prefill: prompt tok/s (TTFT)", "Error: prefill request: HTTP 500: boom",
		"decode 15K × 4: Error: 12 of 15 requests failed: HTTP 503 | upstream"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	for _, not := range []string{"Speed test matrix", "|---|", " TTFT|"} {
		if strings.Contains(out, not) {
			t.Errorf("summary holds the document's %q", not)
		}
	}
	golden(t, "synthetic.summary.txt", b.Bytes())
}
