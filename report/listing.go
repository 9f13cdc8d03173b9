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
// the listing shows (StartedAt, else IngestedAt, gives its date:
// MeasuredAt), and Cells, the number of cells, or -1 when not known.
type RunListing struct {
	RunID, Title, Model, GPU, Engine, EngineVersion, Quantization, BenchTool string
	GPUCount                                                                 *int32
	StartedAt                                                                *time.Time
	IngestedAt                                                               time.Time
	Cells                                                                    int
}

// ListingOf returns the listing of run r with cells cells, its blank
// columns filled from its metadata (Complete).
func ListingOf(r *schema.Run, cells int) RunListing {
	l := RunListing{RunID: r.RunID, Title: r.Title, Model: r.Model, GPU: r.GPU, Engine: r.Engine, EngineVersion: r.EngineVersion,
		Quantization: r.Quantization, BenchTool: r.BenchTool, GPUCount: r.GPUCount, StartedAt: r.StartedAt, IngestedAt: r.IngestedAt, Cells: cells}
	l.Complete(r.Metadata)
	return l
}

// ListingNote is what the date column of a listing means, for the
// command's help and docs.
const ListingNote = "date is when a run was measured (started_at: a measuring run's start, or the date its document gives); a run that gives none is listed \"undated\" with its ingest date, and sorted by it"

// dateText is the date column of a listed run: its measured date, else
// "undated (ingested DATE)".
func (l *RunListing) dateText() string {
	t, measured := l.MeasuredAt()
	switch {
	case measured:
		return analysis.DateText(t)
	case t.IsZero():
		return analysis.Undated
	}
	return analysis.Undated + " (ingested " + analysis.DateText(t) + ")"
}

// gpuText is the GPU column: "2× H200" when the count is known.
func (l *RunListing) gpuText() string {
	if l.GPUCount == nil || *l.GPUCount <= 0 {
		return l.GPU
	}
	gpu := l.GPU
	if gpu == "" {
		gpu = "GPUs"
		if *l.GPUCount == 1 {
			gpu = "GPU"
		}
	}
	return strconv.Itoa(int(*l.GPUCount)) + "× " + gpu
}

// WriteRuns lists runs, in the order given (SortByMeasured is -list's):
// id, date, title, model, GPU, engine and version, quantization and
// cells.
func WriteRuns(w io.Writer, runs []RunListing, f Format) error {
	if f == FormatJSON {
		type row struct {
			RunID         string    `json:"run_id"`
			Date          string    `json:"date"`
			DateFrom      string    `json:"date_from"`
			IngestedAt    time.Time `json:"ingested_at"`
			Title         string    `json:"title"`
			Model         string    `json:"model"`
			GPU           string    `json:"gpu"`
			GPUCount      *int32    `json:"gpu_count"`
			Engine        string    `json:"engine"`
			EngineVersion string    `json:"engine_version"`
			Quantization  string    `json:"quantization"`
			BenchTool     string    `json:"bench_tool"`
			Cells         *int      `json:"cells"`
		}
		rows := make([]row, len(runs))
		for i := range runs {
			r := &runs[i]
			t, measured := r.MeasuredAt()
			from := "started_at"
			if !measured {
				from, t = "ingested_at", time.Time{}
			}
			rows[i] = row{r.RunID, analysis.DateText(t), from, r.IngestedAt.UTC(), r.Title, r.Model, r.GPU, r.GPUCount,
				r.Engine, r.EngineVersion, r.Quantization, r.BenchTool, nil}
			if r.Cells >= 0 {
				rows[i].Cells = &runs[i].Cells
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	t := Table{Header: []string{"run id", "date", "title", "model", "GPU", "engine", "quantization", "cells"}, Right: []bool{false, false, false, false, false, false, false, true}}
	for i := range runs {
		r := &runs[i]
		cells := "?"
		if r.Cells >= 0 {
			cells = strconv.Itoa(r.Cells)
		}
		t.add(r.RunID, r.dateText(), r.Title, r.Model, r.gpuText(), strings.TrimSpace(r.Engine+" "+r.EngineVersion), r.Quantization, cells)
	}
	return t.Write(w, f)
}
