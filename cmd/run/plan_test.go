package runcmd

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPlanBeforeLoad checks that run prints its plan line, with the
// estimate, before the first cell (and before the rates of -rates), and
// that each finished cell but the last says the time left.
func TestPlanBeforeLoad(t *testing.T) {
	tests := []struct {
		name string
		args []string
		plan string
	}{
		{"matrix", []string{"-contexts", "1K", "-concurrency", "1,2", "-duration", "300ms", "-max-tokens", "64"},
			"run: plan: 3 cells (1 context 1K: 1 prefill + 2 decode at concurrency 1, 2), 300ms window + about 5s ramp-up per decode cell: about 10 s"},
		{"rates", []string{"-rates", "20,40", "-requests", "10", "-output-tokens", "16", "-seed", "3"},
			"run: plan: 2 rates (20, 40 requests/s, poisson arrivals), 10 requests each + about 5s for the requests still streaming: about 10 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-simulate", "default", "-out", filepath.Join(t.TempDir(), "m.md")}, tt.args...)
			code, stdout, stderr := runCmd(t, context.Background(), args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			lines := strings.Split(stderr, "\n")
			plan := -1
			var cells []string
			for i, l := range lines {
				switch {
				case strings.HasPrefix(l, "run: plan: "):
					if l != tt.plan {
						t.Errorf("plan line\n%s\nwant\n%s", l, tt.plan)
					}
					plan = i
				case strings.HasPrefix(l, "cell "):
					if plan < 0 {
						t.Fatalf("cell line before the plan:\n%s", stderr)
					}
					cells = append(cells, l)
				}
			}
			if plan < 0 || len(cells) == 0 {
				t.Fatalf("no plan or no cell lines:\n%s", stderr)
			}
			left := regexp.MustCompile(` · about \d+ (s|min) left$`)
			for i, l := range cells {
				if got, want := left.MatchString(l), i < len(cells)-1; got != want {
					t.Errorf("cell line %q: time left shown %v, want %v", l, got, want)
				}
			}
		})
	}
}
