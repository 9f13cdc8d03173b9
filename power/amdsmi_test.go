package power

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseAMDSMI(t *testing.T) {
	b, err := os.ReadFile("testdata/amd-smi-metric-p-rocm-changelog.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      string
		want    []AMDGPU
		wantErr string
	}{
		{name: "recorded, power only", in: string(b), want: []AMDGPU{{GPU: 0, PowerW: 10, HasPower: true}}},
		// Written from amd-smi's code (ORIGIN.md), not recorded.
		{name: "gpu_data with energy", in: `{"gpu_data": [
  {"gpu": 0, "power": {"socket_power": {"value": 350, "unit": "W"}}, "energy": {"total_energy_consumption": {"value": 12345.5, "unit": "J"}}},
  {"gpu": 1, "power": {"socket_power": "N/A"}, "energy": {"total_energy_consumption": {"value": 20, "unit": "kJ"}}}
]}`, want: []AMDGPU{{GPU: 0, PowerW: 350, HasPower: true, EnergyJ: 12345.5, HasEnergy: true}, {GPU: 1, EnergyJ: 20000, HasEnergy: true}}},
		{name: "energy N/A", in: `[{"gpu": 0, "power": {"socket_power": 12}, "energy": "N/A"}]`, want: []AMDGPU{{GPU: 0, PowerW: 12, HasPower: true}}},
		{name: "bad unit", in: "[\n{\"gpu\": 0, \"power\": {\"socket_power\": {\"value\": 1, \"unit\": \"hp\"}}}]", wantErr: "a.json:2: gpu 0: power.socket_power: unit \"hp\""},
		{name: "syntax", in: "[\n{\"gpu\": 0,,}]", wantErr: "a.json:2: "},
		{name: "no gpu", in: `[{"power": {}}]`, wantErr: "a.json:1: GPU entry 0 has no gpu field"},
		{name: "not a list", in: `"x"`, wantErr: "a.json:1: want a JSON list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAMDSMI([]byte(tt.in), "a.json")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d GPUs, want %d", len(got), len(tt.want))
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				g.PowerText, g.EnergyText = "", ""
				if g != w {
					t.Errorf("GPU %d: %+v, want %+v", i, got[i], w)
				}
			}
		})
	}
}

// TestAMDSMILive runs a fake amd-smi whose energy counter (J) follows the
// clock at 400 W.
func TestAMDSMILive(t *testing.T) {
	path := fakeCommand(t, "amd-smi", `[ "$1 $2 $3 $4" = "metric --power --energy --json" ] || { echo "bad arguments: $*" >&2; exit 2; }
now=$(date +%s.%N)
e=$(echo "$now" | awk '{printf "%.6f", ($1 - 1700000000) * 400}')
printf '[{"gpu": 0, "power": {"socket_power": {"value": 400, "unit": "W"}}, "energy": {"total_energy_consumption": {"value": %s, "unit": "J"}}}]\n' "$e"
`)
	a := &AMDSMI{Path: path, Interval: 50 * time.Millisecond}
	m, err := a.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	from := time.Now()
	time.Sleep(400 * time.Millisecond)
	to := time.Now()
	e, err := m.Window(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := 400 * to.Sub(from).Seconds()
	// The value is read while the command runs, stamped when it exits:
	// up to one run (tens of ms here) late at each edge, besides EdgeJ.
	if tol := e.EdgeJ + 400*0.2; math.Abs(e.J-want) > tol || e.Method != "counter" {
		t.Errorf("J %.2f, want %.2f ± %.2f (%s)", e.J, want, tol, e.Method)
	}
}
