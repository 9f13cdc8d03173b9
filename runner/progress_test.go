package runner

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

func TestProgressPrinter(t *testing.T) {
	events := []Progress{
		{Cell: 1, Cells: 3, Phase: "prefill", PhaseName: schema.PhasePrefill, Label: "8K", Concurrency: 1},
		{Cell: 1, Cells: 3, PhaseName: schema.PhasePrefill, Label: "8K", Concurrency: 1, Done: true, Status: schema.StatusValid, TokS: 65300},
		{Cell: 2, Cells: 3, Phase: "measure", PhaseName: schema.PhaseDecode, Label: "8K", Concurrency: 4, Elapsed: time.Second, Tokens: 1000},
		{Cell: 2, Cells: 3, PhaseName: schema.PhaseDecode, Label: "8K", Concurrency: 4, Done: true, Status: schema.StatusLooped},
	}
	for _, terminal := range []bool{false, true} {
		var b bytes.Buffer
		p := &ProgressPrinter{W: &b, Terminal: terminal}
		for _, e := range events {
			p.Print(e)
		}
		out := b.String()
		if !strings.Contains(out, "cell 1/3 prefill 8K: valid, 65300.0 tok/s") || !strings.Contains(out, "cell 2/3 decode 8K ×4: looped") {
			t.Fatalf("terminal=%v: %q", terminal, out)
		}
		if hasLive := strings.Contains(out, "elapsed"); hasLive != terminal {
			t.Fatalf("terminal=%v: live line shown %v: %q", terminal, hasLive, out)
		}
	}
}
