package parse

import (
	"math"
	"strconv"
	"strings"

	"speedmatrix/docspec"
	"speedmatrix/schema"
)

// serveFigure is a column of the rate table: the serve row's figure it
// shows and the unit it is read in.
type serveFigure struct {
	kind unitKind
	get  func(x *schema.Measurement) (float64, bool)
	// text, when set, is a figure printed as text, not a number: the
	// cell must be what it returns for the row ("" prints as a null).
	text func(x *schema.Measurement) string
}

// serveFigures maps a rate-table header (headerKey of its Doc header) to
// its figure: the columns render prints (docspec.ServeColumns:
// "Achieved/s", "TTFT p99 (ms)"), which the terminal summary prints too.
//
// Note: the table is a view of rows the All measurements table holds in
// full, so its cells are checked, not read; a column not listed here
// cannot be checked and is an error rather than dropped.
var serveFigures = func() map[string]serveFigure {
	figs := make(map[string]serveFigure, len(docspec.ServeColumns))
	for _, c := range docspec.ServeColumns {
		figs[headerKey(strings.ToLower(c.Doc))] = serveFigure{serveUnit[c.Kind], c.Get, c.Text}
	}
	return figs
}()

// serveUnit is the unit a rate-table figure of each kind is read in.
var serveUnit = map[docspec.ServeKind]unitKind{
	docspec.ServePerS:     kindPlain,
	docspec.ServeCount:    kindCount,
	docspec.ServeTokS:     kindRate,
	docspec.ServeMs:       kindMillis,
	docspec.ServeTBT:      kindMillis,
	docspec.ServeInFlight: kindPlain,
	docspec.ServeTrend:    kindPlain, // read as text
}

// addServe files the rate table of a document and its caption; a second
// one is an error.
func (d *rawDoc) addServe(name string, t rawTable, caption string) error {
	if d.Serve.HeaderLine != 0 {
		return errorf(name, t.HeaderLine, "a second rate table (the first is at line %d)", d.Serve.HeaderLine)
	}
	d.Serve, d.ServeCaption = t, collapse(caption)
	return nil
}

// checkServeCaption checks the arrival a rate table's caption names
// ("Arrival: poisson, seed 42.") against the run's Arrival pair, the
// record of it.
func checkServeCaption(raw *rawDoc) error {
	_, said, ok := strings.Cut(raw.ServeCaption, docspec.ServeArrival)
	if !ok {
		return nil
	}
	said = strings.TrimSuffix(strings.TrimSpace(said), ".")
	for _, f := range raw.Fields {
		if normKey(f.Key) == "arrival" {
			if v := collapse(f.Value); v != said {
				return errorf(raw.Name, raw.Serve.HeaderLine, "rate table: its caption says Arrival: %s, line %d says %s", said, f.Line, v)
			}
			return nil
		}
	}
	return errorf(raw.Name, raw.Serve.HeaderLine, "rate table: its caption says Arrival: %s, but the document has no Arrival pair", said)
}

// serveLoad is a rate table's Load cell read: a request rate ("4/s",
// "all at once"), a number of streams ("64 streams"), or both joined by
// " · ".
type serveLoad struct {
	rate    quantity // Null when the cell gives none
	streams int32    // 0 when the cell gives none
}

// parseServeLoad reads a Load cell.
func parseServeLoad(s string) (serveLoad, bool) {
	l := serveLoad{rate: quantity{Null: true}}
	s = collapse(s)
	if nullTexts[s] {
		return l, true
	}
	for _, part := range strings.Split(s, " · ") {
		part = strings.TrimSpace(part)
		switch {
		case part == "all at once":
			l.rate = quantity{Value: math.Inf(1)}
		case strings.HasSuffix(part, "/s"):
			q, err := parseQuantity(strings.TrimSuffix(part, "/s"))
			if err != nil || q.Null || q.Unit != "" {
				return l, false
			}
			l.rate = q
		case strings.HasSuffix(part, " streams") || strings.HasSuffix(part, " stream"):
			n, err := parseConcurrency(strings.Fields(part)[0])
			if err != nil {
				return l, false
			}
			l.streams = n
		default:
			return l, false
		}
	}
	return l, true
}

// matches reports whether a serve row has this load.
func (l serveLoad) matches(x *schema.Measurement) bool {
	if (x.Concurrency == nil) != (l.streams == 0) || x.Concurrency != nil && *x.Concurrency != l.streams {
		return false
	}
	switch {
	case l.rate.Null || x.RequestRate == nil:
		return l.rate.Null && x.RequestRate == nil
	case math.IsInf(l.rate.Value, 1) || math.IsInf(*x.RequestRate, 1):
		return l.rate.Value == *x.RequestRate
	}
	return agrees(l.rate, quantity{Value: *x.RequestRate})
}

// checkServe checks the rate table against the serve rows of the All
// measurements table: each of its rows names a serve row by context and
// load (the first one not yet named, in table order), and every cell
// must agree with that row at the precision printed. A row naming no
// serve row, a column that is not a serve figure, or a disagreeing cell
// is an error at the rate table's line.
func checkServe(raw *rawDoc, rows []*tableRow) error {
	t := &raw.Serve
	if t.HeaderLine == 0 {
		return nil
	}
	if err := checkServeCaption(raw); err != nil {
		return err
	}
	name := raw.Name
	ctxCol, loadCol, statusCol := -1, -1, -1
	figs := make([]*serveFigure, len(t.Header))
	for i, h := range t.Header {
		switch k := headerKey(strings.ToLower(h)); k {
		case "context":
			ctxCol = i
		case "load":
			loadCol = i
		case "status":
			statusCol = i
		default:
			f, ok := serveFigures[k]
			if !ok {
				return errorf(name, t.HeaderLine, "rate table: column %q is not a serve figure the parser can check against All measurements", h)
			}
			figs[i] = &f
		}
	}
	if ctxCol < 0 || loadCol < 0 {
		return errorf(name, t.HeaderLine, "rate table: no Context and Load columns (header: %s)", strings.Join(t.Header, " | "))
	}
	used := make([]bool, len(rows))
	for _, tr := range t.Rows {
		if len(tr.Cells) != len(t.Header) {
			return errorf(name, tr.Line, "rate table: row has %d cells, its header at line %d has %d", len(tr.Cells), t.HeaderLine, len(t.Header))
		}
		ctx, loadText := collapse(tr.Cells[ctxCol]), collapse(tr.Cells[loadCol])
		load, ok := parseServeLoad(loadText)
		if !ok {
			return errorf(name, tr.Line, "rate table: load %q is not a rate (4/s, all at once) or streams (64 streams)", loadText)
		}
		var r *tableRow
		for i, x := range rows {
			if !used[i] && x.m.Phase == schema.PhaseServe && x.m.ContextLabel == ctx && load.matches(x.m) {
				r, used[i] = x, true
				break
			}
		}
		what := "serve " + ctx + " at " + loadText
		if r == nil {
			return errorf(name, tr.Line, "rate table: %s, but All measurements (line %d) has no such serve row (or each is shown already)", what, raw.Table.HeaderLine)
		}
		for i, text := range tr.Cells {
			text = collapse(text)
			if i == statusCol {
				if st, ok := parseStatus(text); !ok || st != r.m.Status {
					return errorf(name, tr.Line, "rate table: %s: status %q, All measurements line %d says %s", what, text, r.line, r.m.Status.Label())
				}
				continue
			}
			f := figs[i]
			if f == nil {
				continue
			}
			if f.text != nil {
				if want := f.text(r.m); text != want && !(want == "" && nullTexts[text]) {
					says := "no figure"
					if want != "" {
						says = want
					}
					return errorf(name, tr.Line, "rate table: %s: %s %s, All measurements line %d says %s", what, t.Header[i], text, r.line, says)
				}
				continue
			}
			q, err := parseQuantity(text)
			if err == nil {
				q, err = q.convert(f.kind)
			}
			if err != nil {
				return errorf(name, tr.Line, "rate table: %s: column %q: %v", what, t.Header[i], err)
			}
			v, has := f.get(r.m)
			row := quantity{Value: v, Null: !has}
			if !agrees(q, row) {
				says := "no figure"
				if has {
					says = strconv.FormatFloat(v, 'g', -1, 64)
				}
				return errorf(name, tr.Line, "rate table: %s: %s %s, All measurements line %d says %s", what, t.Header[i], text, r.line, says)
			}
		}
	}
	return nil
}
