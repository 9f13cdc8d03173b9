package runcmd

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// TestSimulatedRunSaysSo archives simulated runs with and without -gpu:
// each run's title says "simulated" (what compare -list and the report
// show) and its metadata names the profile. Before, a -gpu label made a
// simulated run read as a measurement of that GPU.
func TestSimulatedRunSaysSo(t *testing.T) {
	for _, tt := range []struct {
		name  string
		args  []string
		title string
	}{
		{"default labels", nil, "sim on simulated (default)"},
		{"-gpu given", []string{"-gpu", "H200 NVL"}, "sim on H200 NVL (simulated)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			arch := filepath.Join(t.TempDir(), "archive")
			args := append([]string{"-simulate", "default", "-contexts", "1K", "-duration", "200ms", "-max-tokens", "32", "-archive", arch}, tt.args...)
			code, stdout, stderr := runCmd(t, context.Background(), args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			a, err := archive.Open(arch)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := a.Runs(context.Background())
			if err != nil || len(runs) != 1 {
				t.Fatalf("runs %v, %v", runs, err)
			}
			ms, err := a.Load(context.Background(), runs[0].RunID)
			if err != nil {
				t.Fatal(err)
			}
			r := ms[0].Run
			if r.Title != tt.title {
				t.Errorf("title %q, want %q", r.Title, tt.title)
			}
			if !slices.ContainsFunc(r.Metadata, func(f schema.Field) bool {
				return f.Key == SimulatedKey && strings.Contains(f.Value, "profile default")
			}) {
				t.Errorf("no %q in the metadata: %+v", SimulatedKey, r.Metadata)
			}
		})
	}
}
