package power

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseNvidiaSMI(t *testing.T) {
	b, err := os.ReadFile("testdata/nvidia-smi-h100-590.48.01.csv")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      string
		powers  []float64
		fields  []string
		wantErr string
	}{
		{name: "recorded H100 idle and load", in: string(b), powers: []float64{69.62, 625.68},
			fields: []string{"power.draw.instant", "power.draw.instant"}},
		{name: "nounits, instant not supported", in: "timestamp, index, power.draw.instant [W], power.draw [W]\n2026/12/07 06:00:00.000, 0, [N/A], 301.5\n",
			powers: []float64{301.5}, fields: []string{"power.draw"}},
		{name: "no header", in: "2026/12/07 06:00:00.000, 0, 301.5\n", wantErr: "x.csv:1: row before any header"},
		{name: "bad power", in: "timestamp, index, power.draw [W]\n2026/12/07 06:00:00.000, 0, lots\n", wantErr: "x.csv:2: power.draw"},
		{name: "bad time", in: "timestamp, index, power.draw [W]\n07.12.2026, 0, 1\n", wantErr: "x.csv:2: timestamp"},
		{name: "short row", in: "timestamp, index, power.draw [W]\n2026/12/07 06:00:00.000, 0\n", wantErr: "x.csv:2: 2 fields"},
		{name: "header without power", in: "timestamp, index\n", wantErr: "x.csv:1: header has no power"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := ParseNvidiaSMI(strings.NewReader(tt.in), "x.csv")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(tt.powers) {
				t.Fatalf("%d rows, want %d", len(rows), len(tt.powers))
			}
			for i, r := range rows {
				if !r.HasPower || r.PowerW != tt.powers[i] || r.Field != tt.fields[i] || r.Index != 0 || r.At.IsZero() || r.Text == "" {
					t.Errorf("row %d: %+v", i, r)
				}
			}
		})
	}
	// The recorded idle and load answers, 14.657 s apart, integrated as
	// one GPU's readings: the trapezoid between them.
	rows, _ := ParseNvidiaSMI(strings.NewReader(string(b)), "h100")
	var g smiGrouper
	var rs []Reading
	for _, r := range rows {
		if x, ok := g.add(r, time.Now()); ok {
			rs = append(rs, x)
		}
	}
	rs = append(rs, smiReading(g.cur))
	e, err := integrate(rs, rs[0].At, rs[1].At, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := (69.62 + 625.68) / 2 * 14.657; math.Abs(e.J-want) > 1e-6 {
		t.Errorf("J %v, want %v", e.J, want)
	}
}

// fakeCommand writes an executable shell script named name into a new
// directory and returns its path.
func fakeCommand(t *testing.T, name, script string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// smiScript prints a header, then two GPUs at 150 W each every 100 ms, as
// nvidia-smi -lms does; it refuses power.draw.instant when old is set.
func smiScript(old bool) string {
	s := ""
	if old {
		s = `case "$1" in *instant*) echo 'Field "power.draw.instant" is not a valid field to query.' >&2; exit 2;; esac
`
	}
	return s + `echo "timestamp, index, power.draw [W]"
while :; do
  ts=$(date '+%Y/%m/%d %H:%M:%S.%N' | cut -c1-23)
  echo "$ts, 0, 150.00"
  echo "$ts, 1, 150.00"
  sleep 0.1
done
`
}

func TestNvidiaSMILive(t *testing.T) {
	for _, old := range []bool{false, true} {
		path := fakeCommand(t, "nvidia-smi", smiScript(old))
		// The fake prints every 100 ms whatever -lms says; a declared
		// interval of 400 ms lets a window bridge 2 s without a reading
		// (5 intervals): a shell starved on a loaded machine stalled 713 ms,
		// past the 500 ms that an interval of 100 ms allows.
		n := &NvidiaSMI{Path: path, Interval: 400 * time.Millisecond}
		m, err := n.Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		from := time.Now()
		time.Sleep(500 * time.Millisecond)
		to := time.Now()
		e, err := m.Window(context.Background(), from, to)
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := 300 * to.Sub(from).Seconds()
		// Constant power: the trapezoids are exact whatever the edges.
		if math.Abs(e.J-want) > 1e-6*want || e.GPUs != 2 || e.Method != "power" {
			t.Errorf("old=%v: %+v, want %.3f J over 2 GPUs", old, e, want)
		}
	}
}

// TestNvidiaSMIFails: a command that prints nothing fails Start within
// its bound; one that dies reports why, with its stderr.
func TestNvidiaSMIFails(t *testing.T) {
	silent := fakeCommand(t, "nvidia-smi", "sleep 30\n")
	to := Timeouts{Request: 200 * time.Millisecond, Silence: 100 * time.Millisecond}
	start := time.Now()
	_, err := (&NvidiaSMI{Path: silent, Interval: 20 * time.Millisecond, Timeouts: to}).Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "nothing for 100ms") {
		t.Fatalf("Start = %v, want silence", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Start took %v", d)
	}
	dies := fakeCommand(t, "nvidia-smi", "echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' >&2; exit 9\n")
	_, err = (&NvidiaSMI{Path: dies, Timeouts: to}).Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "could not communicate") || !strings.Contains(err.Error(), "exit status 9") {
		t.Fatalf("Start = %v, want the exit and its message", err)
	}
}
