package render

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// view is a matrix laid out as a document: every string the three writers
// print, in order, already formatted. Building it once keeps the text,
// Markdown and HTML forms of one matrix from ever disagreeing.
type view struct {
	Title string
	// SubtitleHead is engine, version and quantization; SubtitleTail the
	// shape of the matrix and the prefill contexts. SubtitleGlued is set
	// when the document read printed the two with nothing between them,
	// as the seeds do ("INT45 contexts"), and every form keeps that;
	// otherwise (a measuring run) they are separated by " · ", so a
	// version is never glued to the count after it.
	SubtitleHead  []string
	SubtitleTail  []string
	SubtitleGlued bool
	Sections      []section
	Launch        string
	Prefill       []prefillFig
	Grid          *grid
	GridNotes     []string // status footnotes for the decode matrix
	Table         table
	TableNotes    []string // status footnotes for the full table
	// Serve is the rate table (nil without serve rows), printed before
	// the key/value section at ServeAt: first, after any pairs printed
	// before a heading, so a rate run's results are what a reader meets
	// first.
	Serve        *table
	ServeCaption string
	ServeAt      int
}

// prefillFig is one prefill figure: "8K", "55K", "149 ms"; a cell that
// is not valid prints its Status ("Error") instead, as the decode matrix
// does, so a failed prefill reads back as the status it has.
type prefillFig struct {
	Context, TokS, TTFT string
	Status              string
}

// grid is the sustained decode matrix: rows are contexts, columns
// concurrencies.
type grid struct {
	Cols []string
	Rows []gridRow
}

type gridRow struct {
	Context string
	Cells   []gridCell
}

// gridCell is one matrix cell: a valid cell prints TokS and TTFT; any
// other prints Status ("Looped", "Over capacity", or None when the matrix
// has no such cell).
type gridCell struct {
	Status     string
	TokS, TTFT string
	x          *schema.Measurement // nil when the matrix has no such cell
}

// table is the All measurements table as printed cells.
type table struct {
	Header []string
	Rows   [][]string
}

// Fixed texts of the seeds' pages.
const (
	kicker        = "Speed test matrix"
	prefillCap    = "prompt tok/s by context length"
	gridCap       = "total tok/s · rows are context length, columns are simultaneous requests"
	cacheNote     = "TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill."
	tableCap      = "Latencies are medians. Total tok/s is output across all simultaneous requests."
	secHardware   = "Hardware"
	secEngine     = "Engine"
	secRun        = "Run"
	secServer     = "Server"
	secLaunch     = "Launch command"
	secPrefill    = "Prefill"
	secDecode     = "Sustained decode"
	secAll        = "All measurements"
	secServe      = "Serve by request rate"
	gridCornerHdr = "Context"
)

// statusNotes explains each non-valid status, in the order the seeds
// print them.
var statusNotes = []struct {
	Status schema.Status
	Note   string
}{
	{schema.StatusLooped, "Looped: the model kept repeating the same text, so the benchmark discarded this measurement."},
	{schema.StatusOverCapacity, "Over capacity: not run because this many requests at this context would exceed the server's KV cache."},
	{schema.StatusSkipped, "Skipped: not run, by the choice of whoever ran the benchmark."},
	{schema.StatusError, "Error: too many of this measurement's requests failed, so it has no usable figures."},
}

// StatusLabel returns the word a document prints for a status ("Valid",
// "Over capacity").
func StatusLabel(s schema.Status) string { return s.Label() }

// PhaseLabel returns the words a document prints for a phase ("Prefill",
// "Sustained decode").
func PhaseLabel(p schema.Phase) string {
	switch p {
	case schema.PhasePrefill:
		return "Prefill"
	case schema.PhaseDecode:
		return "Sustained decode"
	case schema.PhaseServe:
		return "Serve"
	}
	return string(p)
}

// subtitle is the subtitle line's text: head and tail glued, or
// separated by " · " (SubtitleGlued).
func (v *view) subtitle() string {
	head, tail := strings.Join(v.SubtitleHead, " · "), strings.Join(v.SubtitleTail, " · ")
	if head != "" && tail != "" && !v.SubtitleGlued {
		return head + " · " + tail
	}
	return head + tail
}

// newView lays m out.
func newView(m *schema.Matrix) *view {
	v := &view{Title: title(&m.Run), Launch: m.Run.LaunchCommand}
	for _, s := range []string{m.Run.Engine, m.Run.EngineVersion, m.Run.Quantization} {
		if s != "" {
			v.SubtitleHead = append(v.SubtitleHead, s)
		}
	}
	switch {
	case m.Run.SourceFormat == schema.FormatRun:
		// A measuring run's pairs come from its fields. Its Metadata
		// holds what it noted besides (fields the server rejected, why
		// /tokenize is not used) and, once the run has read back as a
		// document (cmd/run archives that form), every pair printed.
		v.Sections = mergeSections(fieldSections(&m.Run), metadataSections(m.Run.Metadata))
	case len(m.Run.Metadata) > 0:
		v.Sections = metadataSections(m.Run.Metadata)
	default:
		v.Sections = fieldSections(&m.Run)
	}
	var prefillCtx []string
	for i := range m.Measurements {
		x := &m.Measurements[i]
		if x.Phase != schema.PhasePrefill {
			continue
		}
		prefillCtx = append(prefillCtx, label(x))
		if x.Status != schema.StatusValid {
			v.Prefill = append(v.Prefill, prefillFig{Context: label(x), Status: StatusLabel(x.Status)})
			continue
		}
		v.Prefill = append(v.Prefill, prefillFig{
			Context: label(x),
			TokS:    optF(x.TotalTokS, FormatTokS),
			TTFT:    optF(x.TTFTMs, FormatMs),
		})
	}
	v.Grid = newGrid(m.Measurements)
	if v.Grid != nil {
		v.SubtitleTail = append(v.SubtitleTail, fmt.Sprintf("%s (%s) × %s (%s)",
			plural(len(v.Grid.Rows), "context", "contexts"), span(v.Grid.Rows[0].Context, v.Grid.Rows[len(v.Grid.Rows)-1].Context),
			plural(len(v.Grid.Cols), "concurrency level", "concurrency levels"), span(v.Grid.Cols[0], v.Grid.Cols[len(v.Grid.Cols)-1])))
		v.GridNotes = notes(m.Measurements, schema.PhaseDecode)
	}
	if len(prefillCtx) > 0 {
		v.SubtitleTail = append(v.SubtitleTail, "prefill at "+strings.Join(prefillCtx, ", "))
	}
	v.SubtitleGlued = m.Run.Subtitle != "" && m.Run.Subtitle == strings.Join(v.SubtitleHead, " · ")+strings.Join(v.SubtitleTail, " · ")
	v.Table = newTable(m.Measurements)
	v.TableNotes = notes(m.Measurements, "")
	if v.Serve = newServeTable(m); v.Serve != nil {
		v.ServeCaption = serveCaption(&m.Run)
		if len(v.Sections) > 0 && v.Sections[0].Name == "" {
			v.ServeAt = 1
		}
	}
	return v
}

// span prints a range ("8K–123K"), or its one value when both ends are
// the same ("1K", not "1K–1K").
func span(first, last string) string {
	if first == last {
		return first
	}
	return first + "–" + last
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// title is the run's title, or one made from the model and hardware when
// the run has none (a measuring run may not).
func title(r *schema.Run) string {
	if r.Title != "" {
		return r.Title
	}
	model := cmp.Or(r.Model, r.ServedModel, r.ModelID, "Unknown model")
	t := model
	if r.GPU != "" {
		t += " on " + r.GPU
		if r.VRAMGB != nil {
			t += " " + FormatDecimal(*r.VRAMGB, 0) + "GB"
		}
	}
	return t
}

// label is a measurement's context label, or one made from its tokens
// the way the seeds' tool makes them (tokens / 1024, floored, "K").
func label(x *schema.Measurement) string {
	if x.ContextLabel != "" || x.ContextTokens == nil {
		return x.ContextLabel
	}
	return strconv.FormatInt(*x.ContextTokens/1024, 10) + "K"
}

// newGrid builds the decode matrix, or nil when m has no decode cell.
// Rows are sorted by context tokens, columns by concurrency; a cell
// measured more than once shows its first measurement.
func newGrid(ms []schema.Measurement) *grid {
	type key struct {
		ctx string
		c   int32
	}
	type rowInfo struct {
		label  string
		tokens int64
		first  int
	}
	cells := map[key]*schema.Measurement{}
	var rows []rowInfo
	seenRow := map[string]bool{}
	var cols []int32
	for i := range ms {
		x := &ms[i]
		if x.Phase != schema.PhaseDecode || x.Concurrency == nil {
			continue
		}
		l := label(x)
		if !seenRow[l] {
			seenRow[l] = true
			t := int64(-1)
			if x.ContextTokens != nil {
				t = *x.ContextTokens
			}
			rows = append(rows, rowInfo{l, t, i})
		}
		if !slices.Contains(cols, *x.Concurrency) {
			cols = append(cols, *x.Concurrency)
		}
		k := key{l, *x.Concurrency}
		if cells[k] == nil {
			cells[k] = x
		}
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortStableFunc(rows, func(a, b rowInfo) int { return cmp.Compare(a.tokens, b.tokens) })
	slices.Sort(cols)
	g := &grid{}
	for _, c := range cols {
		g.Cols = append(g.Cols, FormatCount(int64(c)))
	}
	for _, r := range rows {
		gr := gridRow{Context: r.label}
		for _, c := range cols {
			x := cells[key{r.label, c}]
			switch {
			case x == nil:
				gr.Cells = append(gr.Cells, gridCell{Status: None})
			case x.Status == schema.StatusValid:
				gr.Cells = append(gr.Cells, gridCell{
					TokS: optF(x.TotalTokS, FormatTokS),
					TTFT: optF(x.TTFTMs, FormatMs),
					x:    x,
				})
			default:
				gr.Cells = append(gr.Cells, gridCell{Status: StatusLabel(x.Status), x: x})
			}
		}
		g.Rows = append(g.Rows, gr)
	}
	return g
}

// notes returns the footnotes for the non-valid statuses among the rows
// of phase (all rows when phase is "").
func notes(ms []schema.Measurement, phase schema.Phase) []string {
	var out []string
	for _, n := range statusNotes {
		for i := range ms {
			if (phase == "" || ms[i].Phase == phase) && ms[i].Status == n.Status {
				out = append(out, n.Note)
				break
			}
		}
	}
	return out
}

// column is one column of the full table.
type column struct {
	Header string
	Cell   func(x *schema.Measurement) string
}

// baseColumns are the seeds' twelve columns, always printed.
var baseColumns = []column{
	{"Phase", func(x *schema.Measurement) string { return PhaseLabel(x.Phase) }},
	{"Context", label},
	{"Requests at once", func(x *schema.Measurement) string {
		if x.Concurrency == nil {
			return None
		}
		return FormatCount(int64(*x.Concurrency))
	}},
	{"Status", func(x *schema.Measurement) string { return StatusLabel(x.Status) }},
	{"Total tok/s", func(x *schema.Measurement) string { return optF(x.TotalTokS, FormatTokS) }},
	{"Per request tok/s", func(x *schema.Measurement) string { return optF(x.PerRequestTokS, FormatTokS) }},
	{"TTFT", func(x *schema.Measurement) string { return optF(x.TTFTMs, FormatMs) }},
	{"Time between tokens", func(x *schema.Measurement) string { return optF(x.TBTMs, FormatTBT) }},
	{"Average active requests", func(x *schema.Measurement) string {
		return optF(x.AvgActiveRequests, func(v float64) string { return FormatDecimal(v, 1) })
	}},
	{"Completed requests", func(x *schema.Measurement) string { return optI(x.CompletedRequests) }},
	{"Output tokens", func(x *schema.Measurement) string { return optI(x.OutputTokens) }},
	{"Measured for", func(x *schema.Measurement) string { return optF(x.MeasuredS, FormatSeconds) }},
}

// baseFields are the Measurement fields the base columns (and the row
// identity) print; every other nullable field gets a column of its own
// when some row has it.
var baseFields = map[string]bool{
	"ContextTokens": true, "Concurrency": true, "TotalTokS": true, "PerRequestTokS": true,
	"TTFTMs": true, "TBTMs": true, "AvgActiveRequests": true, "CompletedRequests": true,
	"OutputTokens": true, "MeasuredS": true,
}

// newTable builds the full table: the base columns, then one column per
// other figure that any row has, headed by its column name (the JSON tag,
// "ttft_p90_ms"), so a reader maps it back without a dictionary, then the
// Extra metrics by name.
//
// Note: the extra columns print plain shortest round-trip numbers without
// units or separators: the unit is in the column name, and plain numbers
// are what a program reading the table expects.
func newTable(ms []schema.Measurement) table {
	cols := slices.Clone(baseColumns)
	if tokensDiffer(ms) {
		cols = append(cols, column{"context_tokens", func(x *schema.Measurement) string { return optI(x.ContextTokens) }})
	}
	if slices.ContainsFunc(ms, func(x schema.Measurement) bool { return x.StatusReason != "" }) {
		cols = append(cols, column{"status_reason", func(x *schema.Measurement) string { return cmp.Or(x.StatusReason, None) }})
	}
	mt := reflect.TypeFor[schema.Measurement]()
	for i := 0; i < mt.NumField(); i++ {
		f := mt.Field(i)
		if baseFields[f.Name] || f.Type.Kind() != reflect.Pointer {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		idx := i
		get := func(x *schema.Measurement) reflect.Value { return reflect.ValueOf(x).Elem().Field(idx) }
		used := false
		for j := range ms {
			if !get(&ms[j]).IsNil() {
				used = true
				break
			}
		}
		if !used {
			continue
		}
		cols = append(cols, column{name, func(x *schema.Measurement) string {
			p := get(x)
			if p.IsNil() {
				return None
			}
			switch e := p.Elem(); e.Kind() {
			case reflect.Float64:
				return plainFloat(e.Float())
			case reflect.Int64, reflect.Int32:
				return strconv.FormatInt(e.Int(), 10)
			default:
				return fmt.Sprint(e.Interface())
			}
		}})
	}
	var extras []string
	for _, x := range ms {
		for _, e := range x.Extra {
			if !slices.Contains(extras, e.Name) && !slices.ContainsFunc(cols, func(c column) bool { return c.Header == e.Name }) {
				extras = append(extras, e.Name)
			}
		}
	}
	for _, name := range extras {
		cols = append(cols, column{name, func(x *schema.Measurement) string {
			for _, e := range x.Extra {
				if e.Name == name {
					return plainFloat(e.Value)
				}
			}
			return None
		}})
	}
	t := table{}
	for _, c := range cols {
		t.Header = append(t.Header, c.Header)
	}
	for i := range ms {
		row := make([]string, len(cols))
		for j, c := range cols {
			row[j] = c.Cell(&ms[i])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// tokensDiffer reports whether some row's context tokens are not what its
// label implies (label × 1024), so the table must print them.
func tokensDiffer(ms []schema.Measurement) bool {
	for _, x := range ms {
		if x.ContextTokens == nil {
			continue
		}
		n, ok := strings.CutSuffix(label(&x), "K")
		k, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil || k*1024 != *x.ContextTokens {
			return true
		}
	}
	return false
}

// plainFloat prints v in full for a named column: the shortest text that
// reads back as v, "inf" for an unbounded figure (another tool's request
// rate of "all at once"), None for NaN.
func plainFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return None
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
