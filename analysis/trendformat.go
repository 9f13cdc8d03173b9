package analysis

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// This file writes trends and run listings; format.go writes
// comparisons.

// TrendRow is one point of a trend as printed in CSV and JSON.
type TrendRow struct {
	Phase         schema.Phase `json:"phase"`
	ContextLabel  string       `json:"context_label"`
	Concurrency   int32        `json:"concurrency"`
	Metric        string       `json:"metric"`
	RunID         string       `json:"run_id"`
	Engine        string       `json:"engine"`
	EngineVersion string       `json:"engine_version"`
	Date          string       `json:"date"`
	Status        string       `json:"status"`
	Value         *float64     `json:"value"`
	ChangePct     *float64     `json:"change_pct"`
	Better        string       `json:"better"`
	Flagged       bool         `json:"flagged"`
}

// Rows returns the trend's points as printed rows.
func (tr Trend) Rows() []TrendRow {
	out := make([]TrendRow, len(tr.Points))
	for i, p := range tr.Points {
		r := TrendRow{Phase: tr.Cell.Phase, ContextLabel: tr.Cell.ContextLabel, Concurrency: tr.Cell.Concurrency, Metric: tr.Metric.Name,
			RunID: p.RunID, Engine: p.Engine, EngineVersion: p.EngineVersion, Date: DateText(p.Date), Status: p.State.String(),
			Better: p.Verdict.String(), Flagged: p.Flagged}
		if !math.IsNaN(p.Value) {
			r.Value = fp(p.Value)
		}
		if !math.IsNaN(p.ChangePct) {
			r.ChangePct = fp(p.ChangePct)
		}
		out[i] = r
	}
	return out
}

// WriteTrends writes trends: a table per trend (text, Markdown), or all
// their rows (CSV, JSON array of TrendRow).
func WriteTrends(w io.Writer, trs []Trend, f Format) error {
	if f == FormatJSON {
		rows := []TrendRow{}
		for _, tr := range trs {
			rows = append(rows, tr.Rows()...)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if f == FormatCSV {
		t := &table{header: []string{"phase", "context_label", "concurrency", "metric", "run_id", "engine", "engine_version", "date", "status", "value", "change_pct", "better", "flagged"}}
		t.right = make([]bool, len(t.header))
		for _, tr := range trs {
			for _, r := range tr.Rows() {
				v, c := "", ""
				if r.Value != nil {
					v = raw(*r.Value)
				}
				if r.ChangePct != nil {
					c = raw(*r.ChangePct)
				}
				t.add(string(r.Phase), r.ContextLabel, strconv.Itoa(int(r.Concurrency)), r.Metric, r.RunID, r.Engine, r.EngineVersion, r.Date, r.Status, v, c, r.Better, strconv.FormatBool(r.Flagged))
			}
		}
		return t.write(w, FormatCSV)
	}
	for _, t := range trendTables(trs) {
		if err := t.write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// TrendTables returns the tables WriteTrends prints in text and
// Markdown, as plain data.
func TrendTables(trs []Trend) []Table {
	var out []Table
	for _, t := range trendTables(trs) {
		out = append(out, t.export())
	}
	return out
}

func trendTables(trs []Trend) []*table {
	var out []*table
	for _, tr := range trs {
		t := &table{
			title:  fmt.Sprintf("Trend of %s at %s:%s:%s (changes beyond %s flagged)", tr.Metric.Label(tr.Cell.Phase), tr.Cell.Phase, tr.Cell.ContextLabel, concurrency(tr.Cell.Concurrency), strconv.FormatFloat(tr.Threshold*100, 'g', -1, 64)+"%"),
			header: []string{"run id", "date", "engine", "version", "value", "change", "verdict", "flag"},
			right:  []bool{false, false, false, false, true, true, false, false},
		}
		for _, p := range tr.Points {
			v := num(p.Value)
			if p.State != StateValue {
				v = p.State.String()
			}
			flag, class := "", ""
			if p.Flagged {
				flag, class = "◀ beyond threshold", "flag"
			}
			t.add(p.RunID, DateText(p.Date), p.Engine, p.EngineVersion, v, pct(p.ChangePct), p.Verdict.String(), flag)
			t.class = append(t.class, class)
		}
		for _, p := range tr.Points {
			if p.Date.IsZero() {
				t.notes = append(t.notes, "Undated runs (their documents give no date) sort "+map[TrendOrder]string{ByDate: "last", ByVersion: "after the dated runs of their version"}[tr.Order]+".")
				break
			}
		}
		out = append(out, t)
	}
	return out
}

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
			rows[i] = row{r.RunID, DateText(startedDate(r.StartedAt)), r.Model, r.GPU, r.Engine, r.EngineVersion, r.Quantization, nil}
			if r.Cells >= 0 {
				rows[i].Cells = &runs[i].Cells
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	t := &table{header: []string{"run id", "date", "model", "GPU", "engine", "quantization", "cells"}, right: []bool{false, false, false, false, false, false, true}}
	for _, r := range runs {
		cells := "?"
		if r.Cells >= 0 {
			cells = strconv.Itoa(r.Cells)
		}
		t.add(r.RunID, DateText(startedDate(r.StartedAt)), r.Model, r.GPU, strings.TrimSpace(r.Engine+" "+r.EngineVersion), r.Quantization, cells)
	}
	return t.write(w, f)
}
