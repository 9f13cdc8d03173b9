package report

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// What -list prints: one row per archived run.

// RunListing is one archived run as -list prints it: the runs columns
// the listing shows (StartedAt gives its date, RunDate), and Cells, the
// number of cells, or -1 when not known.
type RunListing struct {
	RunID, Model, GPU, Engine, EngineVersion, Quantization string
	StartedAt                                              *time.Time
	Cells                                                  int
}

// ListingOf returns the listing of run r with cells cells.
func ListingOf(r *schema.Run, cells int) RunListing {
	return RunListing{RunID: r.RunID, Model: r.Model, GPU: r.GPU, Engine: r.Engine, EngineVersion: r.EngineVersion,
		Quantization: r.Quantization, StartedAt: r.StartedAt, Cells: cells}
}

// WriteRuns lists runs: id, date, model, GPU, engine and version,
// quantization and cells.
func WriteRuns(w io.Writer, runs []RunListing, f Format) error {
	if f == FormatJSON {
		type row struct {
			RunID         string `json:"run_id"`
			Date          string `json:"date"`
			Model         string `json:"model"`
			GPU           string `json:"gpu"`
			Engine        string `json:"engine"`
			EngineVersion string `json:"engine_version"`
			Quantization  string `json:"quantization"`
			Cells         *int   `json:"cells"`
		}
		rows := make([]row, len(runs))
		for i, r := range runs {
			rows[i] = row{r.RunID, analysis.DateText(startedDate(r.StartedAt)), r.Model, r.GPU, r.Engine, r.EngineVersion, r.Quantization, nil}
			if r.Cells >= 0 {
				rows[i].Cells = &runs[i].Cells
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	t := Table{Header: []string{"run id", "date", "model", "GPU", "engine", "quantization", "cells"}, Right: []bool{false, false, false, false, false, false, true}}
	for _, r := range runs {
		cells := "?"
		if r.Cells >= 0 {
			cells = strconv.Itoa(r.Cells)
		}
		t.add(r.RunID, analysis.DateText(startedDate(r.StartedAt)), r.Model, r.GPU, strings.TrimSpace(r.Engine+" "+r.EngineVersion), r.Quantization, cells)
	}
	return t.Write(w, f)
}

// startedDate is analysis.RunDate of a run started at t (nil when not
// known).
func startedDate(t *time.Time) time.Time {
	return analysis.RunDate(&schema.Run{StartedAt: t})
}
