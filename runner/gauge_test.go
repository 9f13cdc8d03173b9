package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

// TestRunningGaugeNotSampled runs decode cells whose window (300 ms) ends
// before the first scrape of the server's running gauge (every 500 ms),
// as a window does on a machine that starves the process: the figure is
// empty and the cell says why, instead of a blank nobody explains.
func TestRunningGaugeNotSampled(t *testing.T) {
	_, c := startSim(t, fastProfile(), ClientConfig{})
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency, cfg.Duration = []int64{1024}, []int{2}, 300*time.Millisecond
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := cellsByKey(m)[cellKey(schema.PhaseDecode, "1K", 2)]
	if d.Status != schema.StatusValid || d.ServerGenerationTokens == nil {
		t.Fatalf("cell %s %q, server tokens %v", d.Status, d.StatusReason, d.ServerGenerationTokens)
	}
	if d.ServerRunningAvg != nil || !strings.Contains(d.StatusReason, NoteNoRunningGauge) {
		t.Errorf("server_running_avg %v, reason %q: want none, and a note saying why", d.ServerRunningAvg, d.StatusReason)
	}
}
