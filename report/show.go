package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// What `speedmatrix show RUN` prints: one run at a glance, in three
// tables (summary, matrix, metadata) as text or Markdown, or as one JSON
// object.

// RunTables returns the tables of one run: "run" (what it is and its
// best figures), "cells" (every cell: its load, status and the default
// metrics of its phase) and "metadata" (every pair the source printed,
// and the launch command).
func RunTables(m *schema.Matrix) []Table {
	return []Table{runSummaryTable(m), runCellsTable(m), runMetadataTable(&m.Run)}
}

// WriteRun writes one run: its title, then RunTables, as text or
// Markdown; FormatJSON writes RunJSON.
func WriteRun(w io.Writer, m *schema.Matrix, f Format) error {
	if f == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(RunJSON(m))
	}
	title := m.Run.Title
	if title == "" {
		title = "run " + m.Run.RunID
	}
	head := title + "\n"
	if m.Run.Subtitle != "" {
		head += m.Run.Subtitle + "\n"
	}
	if f == FormatMarkdown {
		head = "# " + mdEscape(title) + "\n"
		if m.Run.Subtitle != "" {
			head += "\n" + mdEscape(m.Run.Subtitle) + "\n"
		}
	}
	if _, err := io.WriteString(w, head+"\n"); err != nil {
		return err
	}
	for _, t := range RunTables(m) {
		if err := t.Write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// RunShown is the JSON form of one run: the summary rows as pairs, the
// run's columns and its measurements as the archive holds them.
type RunShown struct {
	Summary      []schema.KV          `json:"summary"`
	Run          schema.Run           `json:"run"`
	Measurements []schema.Measurement `json:"measurements"`
}

// RunJSON returns the JSON form of m.
func RunJSON(m *schema.Matrix) RunShown {
	t := runSummaryTable(m)
	out := RunShown{Run: m.Run, Measurements: m.Measurements}
	for _, r := range t.Rows {
		out.Summary = append(out.Summary, schema.KV{Key: r[0], Value: r[1]})
	}
	if out.Measurements == nil {
		out.Measurements = []schema.Measurement{}
	}
	return out
}

// runSummaryTable is what the run is (ids, model, hardware, engine,
// tool, source, date) and its best figures: the highest total tok/s of
// each phase and the lowest TTFT, each with its cell.
func runSummaryTable(m *schema.Matrix) Table {
	r := &m.Run
	t := Table{Name: "run", Title: "Run", Header: []string{"field", "value"}, Lead: true}
	add := func(k, v string) {
		if strings.TrimSpace(v) != "" {
			t.add(k, v)
		}
	}
	add("run id", r.RunID)
	l := ListingOf(r, -1)
	add("date", l.dateText())
	model := r.Model
	if r.ServedModel != "" && r.ServedModel != r.Model {
		model += " (served as " + r.ServedModel + ")"
	}
	add("model", model)
	gpu := l.gpuText()
	if r.VRAMGB != nil {
		gpu += ", " + strconv.FormatFloat(*r.VRAMGB, 'g', -1, 64) + " GB"
	}
	add("GPU", gpu)
	add("engine", strings.TrimSpace(l.Engine+" "+r.EngineVersion))
	add("quantization", l.Quantization)
	add("bench tool", strings.TrimSpace(r.BenchTool+" "+r.BenchVersion))
	src := r.SourcePath
	if r.SourceFormat != "" {
		src += " (" + r.SourceFormat + ")"
	}
	add("source", src)
	if !r.IngestedAt.IsZero() {
		add("ingested", r.IngestedAt.UTC().Format(time.RFC3339))
	}
	add("cells", cellCounts(m.Measurements))
	for _, p := range []schema.Phase{schema.PhasePrefill, schema.PhaseDecode, schema.PhaseServe} {
		if x := bestRow(m.Measurements, p, analysis.TotalTokS, true); x != nil {
			add("best "+MetricLabel(analysis.TotalTokS, p), num(*x.TotalTokS)+" at "+cellText(x))
		}
	}
	if x := bestRow(m.Measurements, "", analysis.PerRequestTokS, true); x != nil {
		add("best per-request tok/s", num(*x.PerRequestTokS)+" at "+cellText(x))
	}
	if x := bestRow(m.Measurements, "", analysis.TTFTMs, false); x != nil {
		add("lowest TTFT", num(*x.TTFTMs)+" ms at "+cellText(x))
	}
	return t
}

// cellCounts says how many cells hold each status: "46: 40 valid, 6
// over_capacity".
func cellCounts(ms []schema.Measurement) string {
	counts := map[schema.Status]int{}
	var order []schema.Status
	for i := range ms {
		if counts[ms[i].Status] == 0 {
			order = append(order, ms[i].Status)
		}
		counts[ms[i].Status]++
	}
	slices.Sort(order)
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[s], s)
	}
	return fmt.Sprintf("%d: %s", len(ms), strings.Join(parts, ", "))
}

// bestRow returns the valid row of phase p ("" for any) with the highest
// (or lowest) metric, nil when none carries it.
func bestRow(ms []schema.Measurement, p schema.Phase, mt analysis.Metric, highest bool) *schema.Measurement {
	var out *schema.Measurement
	var bv float64
	for i := range ms {
		x := &ms[i]
		if x.Status != schema.StatusValid || p != "" && x.Phase != p {
			continue
		}
		v, ok := mt.Value(x)
		if !ok || math.IsNaN(v) {
			continue
		}
		if out == nil || highest && v > bv || !highest && v < bv {
			out, bv = x, v
		}
	}
	return out
}

// cellText names a row's cell: "decode 8K × 128", "serve 1K @4/s".
func cellText(x *schema.Measurement) string {
	k := analysis.KeyOf(x)
	s := string(x.Phase) + " " + x.ContextLabel
	if load := LoadText(k); load != "—" && !(x.Phase == schema.PhasePrefill && load == "1") {
		s += " × " + load
	}
	return s
}

// phaseOrder orders the phases as documents print them.
var phaseOrder = map[schema.Phase]int{schema.PhasePrefill: 0, schema.PhaseDecode: 1, schema.PhaseServe: 2}

// runCellsTable is every row of the run, by phase, context, load and
// repeat: its status and the four default metrics (a phase's missing
// ones print "—"); the reason of each row that is not valid is a note.
func runCellsTable(m *schema.Matrix) Table {
	t := Table{Name: "cells", Title: "Cells", Header: []string{"phase", "context", "load", "status", "total tok/s", "per-request tok/s", "TTFT ms", "TBT ms"},
		Right: []bool{false, false, true, false, true, true, true, true}}
	rows := make([]*schema.Measurement, len(m.Measurements))
	for i := range m.Measurements {
		rows[i] = &m.Measurements[i]
	}
	slices.SortStableFunc(rows, func(a, b *schema.Measurement) int {
		ka, kb := analysis.KeyOf(a), analysis.KeyOf(b)
		return cmp.Or(cmp.Compare(phaseOrder[a.Phase], phaseOrder[b.Phase]),
			cmp.Compare(contextTokens(a), contextTokens(b)), cmp.Compare(a.ContextLabel, b.ContextLabel),
			cmp.Compare(ka.Concurrency, kb.Concurrency), cmp.Compare(ka.RequestRate, kb.RequestRate))
	})
	for _, x := range rows {
		cells := []string{string(x.Phase), x.ContextLabel, LoadText(analysis.KeyOf(x)), string(x.Status)}
		for _, mt := range []analysis.Metric{analysis.TotalTokS, analysis.PerRequestTokS, analysis.TTFTMs, analysis.TBTMs} {
			v, ok := mt.Value(x)
			if !ok {
				cells = append(cells, "—")
				continue
			}
			cells = append(cells, num(v))
		}
		t.add(cells...)
		if x.Status != schema.StatusValid && x.StatusReason != "" {
			t.Notes = append(t.Notes, cellText(x)+": "+string(x.Status)+": "+oneLine(x.StatusReason, 160))
		}
	}
	return t
}

// contextTokens is a row's context length for ordering: its tokens, or
// what its label reads as.
func contextTokens(x *schema.Measurement) int64 {
	if x.ContextTokens != nil {
		return *x.ContextTokens
	}
	return analysis.ContextTokens(x.ContextLabel)
}

// oneLine joins s's lines and cuts it to at most n bytes with "…".
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// runMetadataTable is every key/value pair the source printed, in its
// order, with its section, then the launch command.
func runMetadataTable(r *schema.Run) Table {
	t := Table{Name: "metadata", Title: "Metadata", Header: []string{"section", "key", "value"}}
	for _, f := range r.Metadata {
		t.add(f.Section, f.Key, f.Value)
	}
	if r.LaunchCommand != "" {
		t.add("", "launch command", r.LaunchCommand)
	}
	return t
}
