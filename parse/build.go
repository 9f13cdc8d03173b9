package parse

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"speedmatrix/schema"
)

// column is a known column of the All measurements table.
type column int

const (
	colUnknown column = iota
	colPhase
	colContext
	colConcurrency
	colStatus
	colTotal
	colPerRequest
	colTTFT
	colTBT
	colAvgActive
	colCompleted
	colOutput
	colMeasured
	numColumns
)

// columnNames names the columns in messages.
var columnNames = [numColumns]string{"", "Phase", "Context", "Requests at once", "Status", "Total tok/s",
	"Per request tok/s", "TTFT", "Time between tokens", "Average active requests", "Completed requests",
	"Output tokens", "Measured for"}

// headerAliases maps a normalized header (lower case, letters and digits
// only) to its column. Close variants seen in other tools' tables are
// listed too; anything else is an extra column, kept as printed.
var headerAliases = map[string]column{
	"phase": colPhase, "kind": colPhase, "test": colPhase, "stage": colPhase,
	"context": colContext, "contextlength": colContext, "ctx": colContext, "contextlen": colContext,
	"contexttokens": colContext, "promptlength": colContext, "promptlen": colContext, "contextsize": colContext,
	"requestsatonce": colConcurrency, "concurrency": colConcurrency, "simultaneousrequests": colConcurrency,
	"concurrentrequests": colConcurrency, "requests": colConcurrency, "parallel": colConcurrency,
	"parallelrequests": colConcurrency, "users": colConcurrency, "concurrent": colConcurrency, "clients": colConcurrency,
	"status": colStatus, "state": colStatus, "result": colStatus,
	"totaltoks": colTotal, "totaltokenspersecond": colTotal, "totalthroughput": colTotal, "throughput": colTotal,
	"toks": colTotal, "outputtoks": colTotal, "totaloutputtoks": colTotal, "tokenspersecond": colTotal, "total": colTotal,
	"perrequesttoks": colPerRequest, "perrequest": colPerRequest, "perrequesttokenspersecond": colPerRequest,
	"perusertoks": colPerRequest, "toksperrequest": colPerRequest, "perrequestthroughput": colPerRequest,
	"requesttoks": colPerRequest, "toksperuser": colPerRequest,
	"ttft": colTTFT, "timetofirsttoken": colTTFT, "medianttft": colTTFT, "ttftmedian": colTTFT, "ttftp50": colTTFT,
	"timebetweentokens": colTBT, "tbt": colTBT, "itl": colTBT, "intertokenlatency": colTBT, "tpot": colTBT,
	"timepertoken": colTBT, "timeperoutputtoken": colTBT, "mediantbt": colTBT, "tbtmedian": colTBT,
	"averageactiverequests": colAvgActive, "avgactiverequests": colAvgActive, "activerequests": colAvgActive,
	"meanactiverequests": colAvgActive, "averageactive": colAvgActive, "avgactive": colAvgActive,
	"completedrequests": colCompleted, "completed": colCompleted, "requestscompleted": colCompleted,
	"finishedrequests": colCompleted,
	"outputtokens":     colOutput, "generatedtokens": colOutput, "tokensgenerated": colOutput, "totaloutputtokens": colOutput,
	"measuredfor": colMeasured, "measured": colMeasured, "duration": colMeasured, "window": colMeasured,
	"measurementtime": colMeasured, "timepermeasurement": colMeasured, "measuredtime": colMeasured, "elapsed": colMeasured,
}

// headerKey lower-cases s and keeps only letters and digits.
func headerKey(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			var buf [64]byte
			return string(appendHeaderKey(buf[:0], s))
		}
	}
	return s // already a key
}

// appendHeaderKey appends headerKey(s) to dst. Callers that only compare
// or look up the key keep it in a stack buffer.
func appendHeaderKey(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			// Lower-casing may turn a non-ASCII letter into an ASCII one
			// (the Kelvin sign is a k).
			for _, r := range strings.ToLower(s[i:]) {
				if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
					dst = append(dst, byte(r))
				}
			}
			return dst
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			dst = append(dst, c)
		}
	}
	return dst
}

// columnOf maps a printed header to its column, trying it without a unit
// suffix ("TTFT (ms)", "Measured for (s)") when the whole does not match.
func columnOf(header string) column {
	var buf [64]byte
	k := appendHeaderKey(buf[:0], header)
	if c, ok := headerAliases[string(k)]; ok {
		return c
	}
	for _, suf := range []string{"ms", "s", "sec", "seconds", "toks"} {
		if c, ok := headerAliases[string(bytes.TrimSuffix(k, []byte(suf)))]; ok && bytes.HasSuffix(k, []byte(suf)) {
			return c
		}
	}
	return colUnknown
}

// headerKind is what a header row announces.
type headerKind int

const (
	headerOther  headerKind = iota
	headerFull              // All measurements: one row per cell
	headerMatrix            // the decode matrix: contexts × concurrencies
)

// classifyHeader tells the table a header row starts, from its cell
// texts alone: a full table names Phase (or Context with Status or a
// tok/s column); a matrix has a Context (or Requests) corner and numbers
// or context labels as the other headers.
func classifyHeader(h []string) headerKind {
	if len(h) < 2 {
		return headerOther
	}
	var seen [numColumns]bool
	for _, c := range h {
		seen[columnOf(c)] = true
	}
	if seen[colPhase] && (seen[colContext] || seen[colStatus] || seen[colTotal]) ||
		seen[colContext] && (seen[colStatus] || seen[colTotal]) && seen[colConcurrency] {
		return headerFull
	}
	for _, c := range h[1:] {
		if _, err := parseConcurrency(c); err == nil {
			continue
		}
		if n, err := contextTokens(c); err == nil && n > 0 {
			continue
		}
		return headerOther
	}
	switch columnOf(h[0]) {
	case colContext, colConcurrency, colUnknown:
		return headerMatrix
	}
	return headerOther
}

// matrixCells turns a decode matrix (header row and data rows, cell texts
// as printed) into cells. The corner cell says what rows are: "Context"
// (rows are contexts, columns simultaneous requests, as in the seeds) or
// "Requests"/"Concurrency" (transposed); without a telling corner, column
// headers with a K suffix are contexts. Each cell's text goes to Glued.
func matrixCells(name string, header []string, headerLine int, rows []rawRow) ([]rawCell, error) {
	rowsAreContexts := true
	switch columnOf(header[0]) {
	case colConcurrency:
		rowsAreContexts = false
	case colContext:
	default:
		if strings.ContainsAny(header[len(header)-1], "Kk") {
			rowsAreContexts = false
		}
	}
	var cells []rawCell
	for _, r := range rows {
		if len(r.Cells) != len(header) {
			return nil, errorf(name, r.Line, "decode matrix row has %d cells, its header at line %d has %d", len(r.Cells), headerLine, len(header))
		}
		for j := 1; j < len(header); j++ {
			c := rawCell{Context: r.Cells[0], Concurrency: header[j], Glued: r.Cells[j], Line: r.Line}
			if !rowsAreContexts {
				c.Context, c.Concurrency = header[j], r.Cells[0]
			}
			cells = append(cells, c)
		}
	}
	return cells, nil
}

// parsePhase maps a printed phase to a schema phase.
func parsePhase(s string) (schema.Phase, bool) {
	var buf [64]byte
	k := appendHeaderKey(buf[:0], s)
	switch string(k) {
	case "prefill", "prompt", "promptprocessing", "pp", "prefillphase":
		return schema.PhasePrefill, true
	case "sustaineddecode", "decode", "generation", "tg", "decodephase", "sustainedgeneration":
		return schema.PhaseDecode, true
	case "serve", "serving", "servephase", "servebenchmark":
		return schema.PhaseServe, true
	}
	// Longer printings: "Prefill (prompt processing)", "Decode, sustained".
	switch {
	case bytes.Contains(k, []byte("prefill")):
		return schema.PhasePrefill, true
	case bytes.Contains(k, []byte("decode")):
		return schema.PhaseDecode, true
	case bytes.HasPrefix(k, []byte("serve")):
		return schema.PhaseServe, true
	}
	return "", false
}

// parseStatus maps a printed status to a schema status.
func parseStatus(s string) (schema.Status, bool) {
	var buf [64]byte
	k := appendHeaderKey(buf[:0], s)
	switch string(k) {
	case "valid", "ok":
		return schema.StatusValid, true
	case "looped", "loop":
		return schema.StatusLooped, true
	case "overcapacity":
		return schema.StatusOverCapacity, true
	case "skipped", "skip", "notrun":
		return schema.StatusSkipped, true
	case "error", "errored", "failed", "failure":
		return schema.StatusError, true
	}
	// Longer printings: "Over capacity (KV cache)", "Looped – discarded".
	for _, p := range []struct {
		word string
		st   schema.Status
	}{{"overcapacity", schema.StatusOverCapacity}, {"looped", schema.StatusLooped}, {"skipped", schema.StatusSkipped}, {"error", schema.StatusError}} {
		if bytes.HasPrefix(k, []byte(p.word)) {
			return p.st, true
		}
	}
	return "", false
}

// tableRow is one parsed row of the All measurements table with what the
// agreement checks need: its line, its figures and their printed text.
type tableRow struct {
	m       *schema.Measurement
	line    int
	q       [numColumns]quantity
	printed [numColumns]string
	ctx     int64
	conc    int32 // 0 when not printed
}

// cellName names a cell in messages: "decode 8K×128", "prefill 8K".
func cellName(phase schema.Phase, label string, conc int32) string {
	switch {
	case phase == schema.PhasePrefill:
		return "prefill " + label
	case phase == schema.PhaseServe && conc == 0:
		return "serve " + label
	}
	return string(phase) + " " + label + "×" + strconv.FormatInt(int64(conc), 10)
}

// rowName names a row in messages: its cell, then its repeat and request
// rate when it has them ("decode 8K×128 repeat 2", "serve 1K at 4 req/s").
func rowName(r *tableRow) string {
	s := cellName(r.m.Phase, r.m.ContextLabel, r.conc)
	if r.m.Phase == schema.PhaseServe && r.m.RequestRate != nil {
		s += " at " + strconv.FormatFloat(*r.m.RequestRate, 'g', -1, 64) + " req/s"
	}
	if r.m.Repeat != nil {
		s += " repeat " + strconv.FormatInt(int64(*r.m.Repeat), 10)
	}
	return s
}

// tableCell is a cell of the matrix: what a decode-matrix cell or a prefill
// figure refers to.
type tableCell struct {
	phase schema.Phase
	ctx   int64
	conc  int32
}

// rowKey identifies a row of the All measurements table: its cell, its
// repeat (-1 when it has none) and, for serve rows, its request rate (a
// rate sweep has no concurrency).
type rowKey struct {
	tableCell
	repeat  int64
	rate    uint64 // math.Float64bits of the rate
	hasRate bool
}

func keyOf(r *tableRow) rowKey {
	k := rowKey{tableCell: tableCell{r.m.Phase, r.ctx, r.conc}, repeat: -1}
	if r.m.Repeat != nil {
		k.repeat = int64(*r.m.Repeat)
	}
	if r.m.Phase == schema.PhaseServe && r.m.RequestRate != nil {
		k.rate, k.hasRate = math.Float64bits(*r.m.RequestRate), true
	}
	return k
}

// build turns a rawDoc into a matrix: the run's metadata, one measurement
// per row of the All measurements table, and the checks that the decode
// matrix and the prefill figures agree with that table.
func build(raw *rawDoc) (*schema.Matrix, error) {
	m := &schema.Matrix{}
	if err := buildRun(raw, &m.Run); err != nil {
		return nil, err
	}
	if raw.Table.HeaderLine == 0 {
		return nil, errorf(raw.Name, lastLine(raw), "no All measurements table by the end of the document (a table whose header names Phase, Context, Requests at once, Status, …): not a complete speed-test document")
	}
	rows, measurements, err := readRows(raw)
	if err != nil {
		return nil, err
	}
	index := make(map[rowKey]*tableRow, len(rows))
	// cells maps a cell to its first row: the one a summary figure shows
	// when the cell was measured more than once.
	cells := make(map[tableCell]*tableRow, len(rows))
	for _, r := range rows {
		k := keyOf(r)
		if prev, ok := index[k]; ok {
			what := "repeats"
			for i, kv := range r.m.Printed {
				switch columnOf(kv.Key) {
				case colPhase, colContext, colConcurrency:
					continue // equal once normalized ("Decode" and "Sustained decode")
				}
				if i < len(prev.m.Printed) && kv.Value != prev.m.Printed[i].Value {
					what = fmt.Sprintf("contradicts (%s %q vs %q)", kv.Key, kv.Value, prev.m.Printed[i].Value)
					break
				}
			}
			return nil, errorf(raw.Name, r.line, "%s: duplicated row: line %d %s line %d", rowName(r), r.line, what, prev.line)
		}
		index[k] = r
		if _, ok := cells[k.tableCell]; !ok {
			cells[k.tableCell] = r
		}
	}
	// Every row is a measurement, in table order (a duplicated row is an
	// error above).
	m.Measurements = measurements
	if err := checkMatrix(raw, cells); err != nil {
		return nil, err
	}
	if err := checkPrefill(raw, rows); err != nil {
		return nil, err
	}
	return m, nil
}

// lastLine is the last line the document is known to have, for errors
// about something missing (1 when nothing was recognized at all).
func lastLine(raw *rawDoc) int {
	n := max(1, raw.TitleLine, raw.SubtitleLine, raw.LaunchLine, raw.MatrixLine, raw.Table.HeaderLine)
	for _, f := range raw.Fields {
		n = max(n, f.Line)
	}
	for _, p := range raw.Prefill {
		n = max(n, p.Line)
	}
	for _, c := range raw.Matrix {
		n = max(n, c.Line)
	}
	return n
}

// columnKinds gives the unit each numeric column is read in.
var columnKinds = [numColumns]unitKind{
	colTotal: kindRate, colPerRequest: kindRate, colTTFT: kindMillis, colTBT: kindMillis,
	colAvgActive: kindPlain, colCompleted: kindCount, colOutput: kindCount, colMeasured: kindSeconds,
}

// typedColumn is a Measurement field a column of the All measurements
// table sets when its header is the field's column name (its JSON tag),
// as render prints every figure beyond the seeds' twelve columns
// ("ttft_p90_ms", "errored_requests", "context_tokens", "repeat").
type typedColumn struct {
	name  string
	field int          // index in schema.Measurement
	kind  reflect.Kind // of the value: Float64, Int64, Int32 or String
	unit  unitKind     // the unit the value is read in
}

// notTyped are the Measurement fields no typed column sets: the row's
// identity and status, which the base columns read with their own rules,
// the base columns' figures, and what is not a figure.
var notTyped = map[string]bool{
	"RunID": true, "Phase": true, "ContextLabel": true, "Concurrency": true, "Status": true,
	"TotalTokS": true, "PerRequestTokS": true, "TTFTMs": true, "TBTMs": true, "AvgActiveRequests": true,
	"CompletedRequests": true, "OutputTokens": true, "MeasuredS": true,
	"Extra": true, "SourceLine": true, "Printed": true,
}

// typedColumns maps a column name to the field it sets, built once by
// reflection over schema.Measurement's JSON tags, so a column added to
// the schema is read back without touching the parser.
var typedColumns = func() map[string]typedColumn {
	out := map[string]typedColumn{}
	t := reflect.TypeFor[schema.Measurement]()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if notTyped[f.Name] || name == "" || name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		c := typedColumn{name: name, field: i, kind: ft.Kind()}
		switch c.kind {
		case reflect.Float64:
			switch {
			case strings.HasSuffix(name, "_tok_s"):
				c.unit = kindRate
			case strings.HasSuffix(name, "_ms"):
				c.unit = kindMillis
			case strings.HasSuffix(name, "_s"):
				c.unit = kindSeconds
			default:
				c.unit = kindPlain
			}
		case reflect.Int64, reflect.Int32:
			c.unit = kindCount
		case reflect.String:
			if f.Type != reflect.TypeFor[string]() {
				continue // a named string type (Phase, Status) has its own rules
			}
		default:
			continue
		}
		out[name] = c
	}
	return out
}()

// typedColumnOf returns the typed column a header names, if any: the
// header is a column name, matched without surrounding space or case.
func typedColumnOf(header string) (typedColumn, bool) {
	c, ok := typedColumns[strings.ToLower(trimSpace(header))]
	return c, ok
}

// set stores a cell's text in the column's field of m. A null text ("—")
// makes the field null (empty for a string).
func (c typedColumn) set(m *schema.Measurement, text string) error {
	f := reflect.ValueOf(m).Elem().Field(c.field)
	t := trimSpace(text)
	if nullTexts[t] {
		f.SetZero() // null: context_tokens "—" is no token count, not the label's
		return nil
	}
	if c.kind == reflect.String {
		f.SetString(t)
		return nil
	}
	var v float64
	if inf, ok := infinity(t); ok && c.kind == reflect.Float64 {
		v = inf
	} else {
		q, err := parseQuantity(t)
		if err == nil {
			q, err = q.convert(c.unit)
		}
		if err != nil {
			return err
		}
		v = q.Value
	}
	switch c.kind {
	case reflect.Float64:
		f.Set(reflect.ValueOf(&v))
	case reflect.Int64:
		n := int64(v)
		f.Set(reflect.ValueOf(&n))
	case reflect.Int32:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("%v is out of range", v)
		}
		n := int32(v)
		f.Set(reflect.ValueOf(&n))
	}
	return nil
}

// infinity reads the printings of an infinite figure ("inf", "Infinity",
// "-inf"), which other tools write for an unbounded request rate.
func infinity(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity", "∞":
		return math.Inf(1), true
	case "-inf", "-infinity", "−inf", "−infinity", "-∞", "−∞":
		return math.Inf(-1), true
	}
	return 0, false
}

// identityColumns are the base columns that identify a row.
var identityColumns = [numColumns]bool{colPhase: true, colContext: true, colConcurrency: true, colStatus: true}

// tableColumns resolves the header of the All measurements table: the
// base column each header is, or the typed column it names. A header
// that names a typed column sets that field ("context_tokens" beside
// "Context", "ttft_p50_ms" beside "TTFT"), unless it is the table's only
// column for a base identity column ("context_tokens" alone is the
// context). A second header for a base column is kept as an extra.
func tableColumns(header []string) ([]column, []*typedColumn, [numColumns]int) {
	cols := make([]column, len(header))
	typed := make([]*typedColumn, len(header))
	var plain [numColumns]bool // base columns some header names without being a typed column
	for i, h := range header {
		cols[i] = columnOf(h)
		if tc, ok := typedColumnOf(h); ok {
			typed[i] = &tc
		} else {
			plain[cols[i]] = true
		}
	}
	var at [numColumns]int // header index + 1 of each base column
	for i := range header {
		c := cols[i]
		if typed[i] != nil {
			if c != colUnknown && identityColumns[c] && !plain[c] && at[c] == 0 {
				typed[i] = nil // the table's only column for c
			} else {
				cols[i] = colUnknown
				continue
			}
		}
		if c != colUnknown && at[c] != 0 {
			c = colUnknown // a second column with a known name is kept as an extra
		}
		cols[i] = c
		if c != colUnknown {
			at[c] = i + 1
		}
	}
	return cols, typed, at
}

// buildRows reads the All measurements table: columns by header text,
// one measurement per row, every cell kept as printed.
func buildRows(raw *rawDoc) ([]*tableRow, error) {
	rows, _, err := readRows(raw)
	return rows, err
}

// slab hands out pointers to values from chunks allocated together: a
// matrix's figures are all kept or all dropped, and one allocation per
// figure was a tenth of a document's allocations.
type slab[T any] struct{ buf []T }

// ptr returns a pointer to a new value v.
func (s *slab[T]) ptr(v T) *T {
	if len(s.buf) == cap(s.buf) {
		// A new chunk; pointers into the old one keep it alive.
		s.buf = make([]T, 0, max(16, 2*cap(s.buf)))
	}
	s.buf = append(s.buf, v)
	return &s.buf[len(s.buf)-1]
}

// readRows is buildRows that also returns the measurements the rows
// point into, in table order (the matrix's measurements).
func readRows(raw *rawDoc) ([]*tableRow, []schema.Measurement, error) {
	t := raw.Table
	cols, typed, at := tableColumns(t.Header)
	for _, need := range []column{colPhase, colContext} {
		if at[need] == 0 {
			return nil, nil, errorf(raw.Name, t.HeaderLine, "All measurements table has no %s column (header: %s)", columnNames[need], strings.Join(t.Header, " | "))
		}
	}
	if len(t.Rows) == 0 {
		return nil, nil, errorf(raw.Name, t.HeaderLine, "All measurements table has no rows")
	}
	n, w := len(t.Rows), len(t.Header)
	rows := make([]*tableRow, 0, n)
	backing := make([]tableRow, n)
	measurements := make([]schema.Measurement, n)
	printed := make([]schema.KV, n*w)
	floats := slab[float64]{make([]float64, 0, 6*n)}
	ints := slab[int64]{make([]int64, 0, 3*n)}
	int32s := slab[int32]{make([]int32, 0, n)}
	for ri, tr := range t.Rows {
		if len(tr.Cells) != len(t.Header) {
			return nil, nil, errorf(raw.Name, tr.Line, "row has %d cells, the All measurements header at line %d has %d (truncated or misaligned row)", len(tr.Cells), t.HeaderLine, len(t.Header))
		}
		r := &backing[ri]
		r.m, r.line = &measurements[ri], tr.Line
		r.m.SourceLine, r.m.Status = int64(tr.Line), schema.StatusValid
		for c := range r.q {
			r.q[c].Null = true // a column the table does not have
		}
		ms := r.m
		ms.Printed = printed[ri*w : (ri+1)*w : (ri+1)*w]
		// Typed columns are set after the row's base columns, so that
		// context_tokens overrides the label's nominal tokens.
		var late []int
		for i, text := range tr.Cells {
			h := t.Header[i]
			ms.Printed[i] = schema.KV{Key: h, Value: text}
			c := cols[i]
			r.printed[c] = text
			fail := func(format string, args ...any) error {
				return errorf(raw.Name, tr.Line, "column %q: %s", h, fmt.Sprintf(format, args...))
			}
			if typed[i] != nil {
				late = append(late, i)
				continue
			}
			switch c {
			case colPhase:
				p, ok := parsePhase(text)
				if !ok {
					return nil, nil, fail("unknown phase %q (want Prefill, Sustained decode or Serve)", text)
				}
				ms.Phase = p
			case colContext:
				if ms.Phase == schema.PhaseServe && trimSpace(text) == unknownContext {
					// Another tool's result that records no prompt length.
					ms.ContextLabel = unknownContext
					continue
				}
				n, err := contextTokens(text)
				if err != nil {
					return nil, nil, fail("%v", err)
				}
				ms.ContextLabel, ms.ContextTokens, r.ctx = trimSpace(text), ints.ptr(n), n
			case colConcurrency:
				if nullTexts[trimSpace(text)] {
					continue
				}
				n, err := parseConcurrency(text)
				if err != nil {
					return nil, nil, fail("%v", err)
				}
				ms.Concurrency, r.conc = int32s.ptr(n), n
			case colStatus:
				s, ok := parseStatus(text)
				if !ok {
					return nil, nil, fail("unknown status %q (want Valid, Looped, Over capacity, Skipped or Error)", text)
				}
				ms.Status = s
			case colUnknown:
				if v, ok := infinity(trimSpace(text)); ok {
					ms.Extra = append(ms.Extra, schema.Metric{Name: metricName(h, ""), Value: v})
					continue
				}
				q, err := parseQuantity(text)
				if err == nil && !q.Null {
					ms.Extra = append(ms.Extra, schema.Metric{Name: metricName(h, q.Unit), Value: q.Value})
				}
			default:
				t := trimSpace(text)
				q, bad := scanQuantity(t)
				if bad != qOK {
					return nil, nil, fail("%v", bad.err(t))
				}
				if cq, cbad := q.conv(columnKinds[c]); cbad == convOK {
					q = cq
				} else {
					_, err := q.convert(columnKinds[c])
					return nil, nil, fail("%v", err)
				}
				r.q[c] = q
				if q.Null {
					continue
				}
				switch c {
				case colTotal:
					ms.TotalTokS = floats.ptr(q.Value)
				case colPerRequest:
					ms.PerRequestTokS = floats.ptr(q.Value)
				case colTTFT:
					ms.TTFTMs = floats.ptr(q.Value)
				case colTBT:
					ms.TBTMs = floats.ptr(q.Value)
				case colAvgActive:
					ms.AvgActiveRequests = floats.ptr(q.Value)
				case colCompleted:
					ms.CompletedRequests = ints.ptr(int64(q.Value))
				case colOutput:
					ms.OutputTokens = ints.ptr(int64(q.Value))
				case colMeasured:
					ms.MeasuredS = floats.ptr(q.Value)
				}
			}
		}
		for _, i := range late {
			if err := typed[i].set(ms, tr.Cells[i]); err != nil {
				return nil, nil, errorf(raw.Name, tr.Line, "column %q: %v", t.Header[i], err)
			}
		}
		if ms.Phase == schema.PhaseDecode && ms.Concurrency == nil {
			return nil, nil, errorf(raw.Name, tr.Line, "decode row without a number of simultaneous requests")
		}
		if ms.Status == schema.StatusValid && r.q[colTotal].Null && at[colTotal] != 0 {
			return nil, nil, errorf(raw.Name, tr.Line, "%s: status Valid but no %s", cellName(ms.Phase, ms.ContextLabel, r.conc), t.Header[at[colTotal]-1])
		}
		rows = append(rows, r)
	}
	return rows, measurements, nil
}

// metricName turns an extra column's header into a column-style name:
// snake_case with a unit suffix ("p99 TTFT" printed in ms is p99_ttft_ms).
func metricName(header, unit string) string {
	var b strings.Builder
	us := true
	for _, r := range strings.ToLower(header) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			us = false
		} else if !us {
			b.WriteByte('_')
			us = true
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		name = "extra"
	}
	suffix := map[string]string{"ms": "_ms", "s": "_s", "us": "_us", "min": "_min", "tok/s": "_tok_s", "tokens": "_tokens", "GB": "_gb", "%": "_pct"}[unit]
	if suffix != "" && !strings.HasSuffix(name, suffix) {
		name += suffix
	}
	return name
}

// maxGlued bounds the length of a glued cell the splitter tries.
const maxGlued = 64

// split is one way to read a cell: tok/s text and TTFT text.
type split struct{ tok, ttft string }

// splitGlued lists the ways a matrix cell or prefill figure can be read
// as tok/s followed by TTFT. "6,091.1 783 ms" (any separator) has one;
// "6,091.1783 ms TTFT", printed without a separator, has one per split
// point that leaves a well-formed tok/s figure and a well-formed TTFT.
func splitGlued(s string) []split {
	return appendSplits(nil, s)
}

// appendSplits appends the splits of s (see splitGlued) to dst.
func appendSplits(dst []split, s string) []split {
	s = trimSpace(s)
	ttft := false
	if hasSuffixFold(s, "ttft") {
		s, ttft = trimSpace(s[:len(s)-4]), true
	}
	// A figure printed as missing beside one that is not ("40K— TTFT",
	// "—149 ms TTFT"): the dash cannot be part of a number.
	if a, ok := strings.CutSuffix(s, "—"); ok && ttft && a != "" {
		return append(dst, split{trimSpace(a), "—"})
	}
	if b, ok := strings.CutPrefix(s, "—"); ok && b != "" {
		return append(dst, split{"—", trimSpace(b)})
	}
	for _, sep := range []string{"tok/s", "·", "•", ";", "/"} {
		if a, b, ok := strings.Cut(s, sep); ok {
			return append(dst, split{trimSpace(a), strings.Trim(trimSpace(b), ",·;")})
		}
	}
	unit, full := "", s
	for _, u := range []string{"ms", "s"} {
		if strings.HasSuffix(s, u) {
			unit, s = u, trimSpace(s[:len(s)-len(u)])
			break
		}
	}
	// A TTFT "b unit" is the tail of full when one space separated the
	// unit (as printed, "325.241 ms"): no need to build it.
	spaced := unit != "" && full[len(s):] == " "+unit
	if k := strings.LastIndexAny(s, " \t\u00a0"); k >= 0 {
		return append(dst, split{trimSpace(s[:k]), trimSpace(s[k:]) + " " + unit})
	}
	if len(s) > maxGlued {
		return dst // no pair of figures is this long; do not try O(n²) splits
	}
	if unit == "" && !ttft {
		dst = append(dst, split{s, ""}) // a tok/s figure alone
	}
	for k := 1; k < len(s); k++ {
		a, b := s[:k], s[k:]
		// Only the form matters here; appendReadings reads the values.
		qa, bad := checkQuantity(trimSpace(a))
		if bad != qOK || qa.Null || qa.Unit != "" {
			continue
		}
		if b[0] == '-' || b[0] == '+' {
			continue
		}
		qb, bad := checkQuantity(trimSpace(b))
		if bad != qOK || qb.Null || qb.Unit != "" {
			continue
		}
		if spaced {
			dst = append(dst, split{a, full[k:]})
		} else {
			dst = append(dst, split{a, b + " " + unit})
		}
	}
	return dst
}

// hasSuffixFold reports whether s ends in the lower-case ASCII suffix,
// matched without case.
func hasSuffixFold(s, suffix string) bool {
	if len(s) < len(suffix) {
		return false
	}
	t := s[len(s)-len(suffix):]
	for i := 0; i < len(t); i++ {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != suffix[i] {
			return false
		}
	}
	return true
}

// cellReading is a cell read one way.
type cellReading struct {
	tok, ttft         quantity
	tokText, ttftText string
}

// readings parses the splits of a cell; ill-formed ones are dropped.
func readings(splits []split) []cellReading {
	return appendReadings(nil, splits)
}

// appendReadings appends the readings of splits (see readings) to dst.
func appendReadings(dst []cellReading, splits []split) []cellReading {
	for _, sp := range splits {
		tok, bad := scanQuantity(trimSpace(sp.tok))
		if bad != qOK {
			continue
		}
		tok, cbad := tok.conv(kindRate)
		if cbad != convOK {
			continue
		}
		r := cellReading{tok: tok, tokText: sp.tok, ttft: quantity{Null: true}, ttftText: trimSpace(sp.ttft)}
		if r.ttftText != "" {
			t, bad := scanQuantity(trimSpace(strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(r.ttftText, "TTFT"), "ttft"))))
			if bad != qOK {
				continue
			}
			t, cbad := t.conv(kindMillis)
			if cbad != convOK {
				continue
			}
			r.ttft = t
		}
		dst = append(dst, r)
	}
	return dst
}

// figure is one summary figure (a matrix cell or a prefill card) to check
// against its All measurements row.
type figure struct {
	what   string // "decode 8K×128"; "" to name the cell by phase, label and conc
	source string // "matrix" or "prefill figure"
	line   int
	tok    string // separate tok/s text, or "" with glued set
	ttft   string
	glued  string
	// The cell, named only when a message needs it (see name).
	phase schema.Phase
	label string
	conc  int32
}

// name names the figure's cell in messages: what, else its cellName.
func (f *figure) name() string {
	if f.what != "" {
		return f.what
	}
	return cellName(f.phase, f.label, f.conc)
}

// agree checks one summary figure against its row: the status, then the
// tok/s (in metric) and the TTFT, picking the split of a glued cell that
// agrees with the row. It returns the reading it chose (nil for a status
// or empty cell).
func agree(name string, f figure, r *tableRow, metric column) (*cellReading, error) {
	c, ok, err := agreeReading(name, f, r, metric)
	if !ok {
		return nil, err
	}
	return &c, nil
}

// agreeReading is agree returning the reading it chose by value, and
// false with it when there is none (a status or empty cell, an error):
// its callers discard the reading, and its readings stay on the stack.
func agreeReading(name string, f figure, r *tableRow, metric column) (cellReading, bool, error) {
	text := f.glued
	if f.tok != "" || f.ttft != "" {
		text = ""
	}
	if text != "" {
		if st, ok := parseStatus(text); ok {
			if st != r.m.Status {
				return cellReading{}, false, errorf(name, f.line, "%s: %s says %s, All measurements line %d says %s", f.name(), f.source, trimSpace(text), r.line, r.m.Status.Label())
			}
			return cellReading{}, false, nil
		}
		if nullTexts[trimSpace(text)] {
			if r.m.Status == schema.StatusValid && !r.q[metric].Null {
				return cellReading{}, false, errorf(name, f.line, "%s: %s has no figure, All measurements line %d says %s", f.name(), f.source, r.line, r.printed[metric])
			}
			return cellReading{}, false, nil
		}
	}
	// Most cells have a few readings: the buffers keep them off the heap.
	var splitBuf [8]split
	var readingBuf [8]cellReading
	rs := readingBuf[:0]
	if text != "" {
		rs = appendReadings(rs, appendSplits(splitBuf[:0], text))
	} else {
		splitBuf[0] = split{f.tok, f.ttft}
		rs = appendReadings(rs, splitBuf[:1])
	}
	// shown is the cell as error messages quote it.
	shown := func() string {
		s := text
		if s == "" {
			s = strings.TrimSpace(f.tok + " " + f.ttft)
		}
		if len(s) > 80 {
			s = strings.ToValidUTF8(s[:77], "") + "..."
		}
		return s
	}
	if len(rs) == 0 {
		return cellReading{}, false, errorf(name, f.line, "%s: %s cell %q is not a tok/s figure followed by a TTFT", f.name(), f.source, shown())
	}
	if r.m.Status != schema.StatusValid {
		return cellReading{}, false, errorf(name, f.line, "%s: %s says %q, All measurements line %d says %s", f.name(), f.source, shown(), r.line, r.m.Status.Label())
	}
	rowTok, rowTTFT := r.q[metric], r.q[colTTFT]
	// A table without a TTFT column cannot contradict a cell's TTFT.
	ttftOK := func(c cellReading) bool {
		return c.ttft.Null || rowTTFT.Null && r.printed[colTTFT] == "" || agrees(c.ttft, rowTTFT)
	}
	// Exact agreement first, then agreement at the printed precision.
	for i, c := range rs {
		if sameValue(c.tok, rowTok) && (c.ttft.Null || sameValue(c.ttft, rowTTFT)) {
			return rs[i], true, nil
		}
	}
	var matchBuf [8]cellReading
	match := matchBuf[:0]
	for _, c := range rs {
		if agrees(c.tok, rowTok) && ttftOK(c) {
			match = append(match, c)
		}
	}
	if len(match) == 1 {
		return match[0], true, nil
	}
	if len(match) > 1 {
		return cellReading{}, false, errorf(name, f.line, "%s: %s cell %q can be read as %s tok/s or %s tok/s, both agreeing with All measurements line %d", f.name(), f.source, shown(), match[0].tokText, match[1].tokText, r.line)
	}
	// Explain the disagreement with the reading closest to the row.
	for _, c := range rs {
		if ttftOK(c) {
			return cellReading{}, false, errorf(name, f.line, "%s: %s says %s tok/s, All measurements line %d says %s", f.name(), f.source, c.tokText, r.line, r.printed[metric])
		}
	}
	for _, c := range rs {
		if agrees(c.tok, rowTok) {
			return cellReading{}, false, errorf(name, f.line, "%s: %s says TTFT %s, All measurements line %d says %s", f.name(), f.source, c.ttftText, r.line, r.printed[colTTFT])
		}
	}
	return cellReading{}, false, errorf(name, f.line, "%s: %s cell %q agrees with neither the tok/s (%s) nor the TTFT (%s) of All measurements line %d", f.name(), f.source, shown(), r.printed[metric], r.printed[colTTFT], r.line)
}

// checkMatrix checks every decode matrix cell against its table row.
func checkMatrix(raw *rawDoc, index map[tableCell]*tableRow) error {
	metric := colTotal
	if c := headerKey(raw.MatrixCaption); strings.Contains(c, "perrequest") || strings.Contains(c, "peruser") {
		metric = colPerRequest
	}
	for _, c := range raw.Matrix {
		ctx, err := contextTokens(c.Context)
		if err != nil {
			return errorf(raw.Name, c.Line, "decode matrix: %v", err)
		}
		conc, err := parseConcurrency(c.Concurrency)
		if err != nil {
			return errorf(raw.Name, c.Line, "decode matrix: column %v", err)
		}
		label := trimSpace(c.Context)
		r, ok := index[tableCell{schema.PhaseDecode, ctx, conc}]
		if !ok {
			if nullTexts[trimSpace(c.Glued+c.TokS+c.TTFT)] {
				continue // an empty or "—" cell claims nothing
			}
			return errorf(raw.Name, c.Line, "%s: the matrix has a cell but All measurements (line %d) has no such row", cellName(schema.PhaseDecode, label, conc), raw.Table.HeaderLine)
		}
		f := figure{source: "matrix", line: c.Line, tok: c.TokS, ttft: c.TTFT, glued: c.Glued, phase: schema.PhaseDecode, label: label, conc: conc}
		if _, _, err := agreeReading(raw.Name, f, r, metric); err != nil {
			return err
		}
	}
	return nil
}

// checkPrefill checks every prefill figure against its table row.
func checkPrefill(raw *rawDoc, rows []*tableRow) error {
	if len(raw.Prefill) == 0 {
		return nil
	}
	// The prefill row of each context: the one at concurrency 1 when there
	// are several, else the first.
	byCtx := map[int64]*tableRow{}
	for _, x := range rows {
		if x.m.Phase != schema.PhasePrefill {
			continue
		}
		if r, ok := byCtx[x.ctx]; !ok || x.conc == 1 && r.conc != 1 {
			byCtx[x.ctx] = x
		}
	}
	for _, p := range raw.Prefill {
		ctx, err := contextTokens(p.Context)
		if err != nil {
			return errorf(raw.Name, p.Line, "prefill: %v", err)
		}
		label := trimSpace(p.Context)
		r := byCtx[ctx]
		if r == nil {
			return errorf(raw.Name, p.Line, "%s: a prefill figure but All measurements (line %d) has no Prefill row at that context", cellName(schema.PhasePrefill, label, 0), raw.Table.HeaderLine)
		}
		f := figure{source: "prefill figure", line: p.Line, tok: p.TokS, ttft: p.TTFT, glued: p.Glued, phase: schema.PhasePrefill, label: label}
		if _, _, err := agreeReading(raw.Name, f, r, colTotal); err != nil {
			return err
		}
	}
	return nil
}
