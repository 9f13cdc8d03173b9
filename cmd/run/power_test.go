package runcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// TestRunPower runs the command against a simulator whose /metrics
// serves DCGM's energy counter: -power auto finds it, every decode cell
// gets its energy and the document prints it; a named source that does
// not answer leaves the columns null with the reason; a bad -power is a
// usage error.
func TestRunPower(t *testing.T) {
	p := sim.DefaultProfile()
	p.Energy = sim.EnergyModel{GPUs: 2, IdleW: 75, JoulesPerToken: 0.05}
	srv, url, err := sim.Listen(p, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tests := []struct {
		name   string
		power  []string
		code   int
		stderr string
		source string
		note   string
	}{
		{name: "auto", code: exitOK, stderr: "run: energy from dcgm " + url + "/metrics", source: "dcgm " + url + "/metrics"},
		{name: "named source down", power: []string{"-power", "dcgm=http://127.0.0.1:1/metrics"}, code: exitOK,
			stderr: "run: warning: energy not recorded: dcgm http://127.0.0.1:1/metrics", note: "note: energy not recorded: dcgm http://127.0.0.1:1/metrics: "},
		{name: "bad flag", power: []string{"-power", "watts"}, code: exitUsage, stderr: `power source "watts"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, arch := filepath.Join(dir, "run.md"), filepath.Join(dir, "archive")
			args := append([]string{"-url", url, "-model", p.ModelName, "-contexts", "1K", "-concurrency", "1,2",
				"-duration", "500ms", "-max-tokens", "100", "-archive", arch, "-out", out}, tt.power...)
			code, stdout, stderr := runCmd(t, context.Background(), args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr lacks %q:\n%s\n%s", code, tt.code, tt.stderr, stdout, stderr)
			}
			if code != exitOK {
				return
			}
			m := onlyRun(t, arch)
			if m.Run.PowerSource != tt.source {
				t.Errorf("power source %q, want %q", m.Run.PowerSource, tt.source)
			}
			doc, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range m.Measurements {
				if x.Phase != schema.PhaseDecode {
					continue
				}
				if x.Status != schema.StatusValid {
					t.Fatalf("decode ×%d: %s %q", *x.Concurrency, x.Status, x.StatusReason)
				}
				if tt.note != "" {
					// Other notes (a running gauge not sampled in a short
					// window) may come first.
					if !strings.Contains(strings.Replace(x.StatusReason, "note: ", "", 1), strings.TrimPrefix(tt.note, "note: ")) || x.EnergyJ != nil {
						t.Errorf("decode ×%d: reason %q energy %v, want %q and none", *x.Concurrency, x.StatusReason, x.EnergyJ, tt.note)
					}
					continue
				}
				// At least the idle power of both GPUs over the window,
				// plus the tokens' share.
				idle := 2 * 75 * *x.MeasuredS
				if x.EnergyJ == nil || *x.EnergyJ < idle || x.AvgPowerW == nil || x.OutputTokPerJ == nil || strings.Contains(x.StatusReason, "energy") {
					t.Errorf("decode ×%d: energy %v (idle alone %.1f J), reason %q", *x.Concurrency, x.EnergyJ, idle, x.StatusReason)
				}
			}
			if tt.note == "" {
				if m.Run.IdlePowerW == nil || *m.Run.IdlePowerW < 149.9 || *m.Run.IdlePowerW > 150.1 {
					t.Errorf("idle power %v, want 150 W", m.Run.IdlePowerW)
				}
				for _, s := range []string{"energy_j", "avg_power_w", "output_tok_per_j", "Power source", "Idle power"} {
					if !strings.Contains(string(doc), s) {
						t.Errorf("document lacks %q", s)
					}
				}
			} else if strings.Contains(string(doc), "energy_j") {
				t.Error("document prints an energy column without energy")
			}
		})
	}
}
