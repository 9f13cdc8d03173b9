package comparecmd

import (
	"context"
	"fmt"
	"testing"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/archive"
	"speedmatrix/schema"
)

// cellsMatrix is a run whose cells differ only in one key column each:
// the columns -list reads must tell every pair apart.
func cellsMatrix(t *testing.T) *schema.Matrix {
	t.Helper()
	m := &schema.Matrix{Run: schema.Run{
		Model: "cells-test", GPU: "H200", Engine: "vllm",
		IngestedAt: time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC),
	}}
	add := func(x schema.Measurement) {
		x.Status = schema.StatusValid
		x.TotalTokS = schema.F64(1000)
		x.Printed = []schema.KV{{Key: "Total tok/s", Value: "1K"}}
		m.Measurements = append(m.Measurements, x)
	}
	// Phase, label, concurrency and request rate (serve rows only) each
	// make a cell.
	add(schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", ContextTokens: schema.I64(8192), Concurrency: schema.I32(1)})
	add(schema.Measurement{Phase: schema.PhasePrefill, ContextLabel: "8K", ContextTokens: schema.I64(8192), Concurrency: schema.I32(1)})
	add(schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "16K", ContextTokens: schema.I64(16384), Concurrency: schema.I32(1)})
	add(schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", ContextTokens: schema.I64(8192), Concurrency: schema.I32(2)})
	add(schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: schema.I32(8), RequestRate: schema.F64(2)})
	add(schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: schema.I32(8), RequestRate: schema.F64(4)})
	// A repeat of the first cell is no new cell, nor is another
	// context_tokens under the same label (it only orders cells).
	add(schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", ContextTokens: schema.I64(8000), Concurrency: schema.I32(1)})
	add(schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", ContextTokens: schema.I64(8192), Concurrency: schema.I32(1)})
	m.Run.RunID = schema.ComputeRunID(m)
	return m
}

// TestListColumns checks that the cell count -list computes from the
// columns it reads (cellColumns) equals the count over whole rows.
func TestListColumns(t *testing.T) {
	dir, seeds := newArchive(t)
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cm := cellsMatrix(t)
	if _, err := a.Append(ctx, []*schema.Matrix{cm}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		id    string
		cells int
	}{
		{"BF16 seed", seeds[0].Run.RunID, 46},
		{"INT4 seed", seeds[1].Run.RunID, 46},
		{"one key column apart", cm.Run.RunID, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full, err := a.Load(ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			part, err := a.LoadColumns(ctx, cellColumns, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			nf, np := len(analysis.IndexCells(full[0]).List), len(analysis.IndexCells(part[0]).List)
			if nf != tt.cells || np != tt.cells {
				t.Errorf("cells: %d from whole rows, %d from %v; want %d", nf, np, cellColumns, tt.cells)
			}
			code, out, errs := runCmd(t, "", "-archive", dir, "-list", "-format", "csv", tt.id[:12])
			if code != exitOK || !containsLine(out, tt.id, fmt.Sprint(tt.cells)) {
				t.Errorf("-list %s: exit %d, %s\n%s", tt.id[:12], code, errs, out)
			}
			// The count the archive keeps in its runs table (what -list
			// without selectors prints) is analysis's count too.
			listed, err := a.ListRuns(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range listed {
				if r.RunID == tt.id && (r.Cells == nil || int(*r.Cells) != tt.cells) {
					t.Errorf("runs table: cells %v, want %d", r.Cells, tt.cells)
				}
			}
			code, out, errs = runCmd(t, "", "-archive", dir, "-list", "-format", "csv")
			if code != exitOK || !containsLine(out, tt.id, fmt.Sprint(tt.cells)) {
				t.Errorf("-list: exit %d, %s\n%s", code, errs, out)
			}
		})
	}
}

// containsLine reports whether a line of out starts with prefix and ends
// with suffix.
func containsLine(out, prefix, suffix string) bool {
	for _, l := range splitLines(out) {
		if len(l) >= len(prefix)+len(suffix) && l[:len(prefix)] == prefix && l[len(l)-len(suffix):] == suffix {
			return true
		}
	}
	return false
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
