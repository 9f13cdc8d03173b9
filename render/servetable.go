package render

import (
	"cmp"
	"math"
	"slices"

	"speedmatrix/docspec"
	"speedmatrix/schema"
)

// serveColumnsOf returns the serve columns rows print: all of them but
// the in-flight trend when no row has a series (other tools' rows, runs
// made before it was kept), so their tables read as they always did.
func serveColumnsOf(rows []*schema.Measurement) []docspec.ServeColumn {
	for _, x := range rows {
		if schema.InFlightSeries(x) != nil {
			return docspec.ServeColumns
		}
	}
	return slices.DeleteFunc(slices.Clone(docspec.ServeColumns), func(c docspec.ServeColumn) bool { return c.Kind == docspec.ServeTrend })
}

// full prints a serve figure of column c in full for a document: the
// digits it needs to read back exactly, the unit in the header.
func full(c docspec.ServeColumn, x *schema.Measurement) string {
	if c.Text != nil {
		return cmp.Or(c.Text(x), None)
	}
	v, ok := c.Get(x)
	if !ok {
		return None
	}
	switch c.Kind {
	case docspec.ServePerS, docspec.ServeMs:
		// Note: the digits the run kept (request rates to four or six
		// significant digits), no padding: "143" is not "143.00".
		return FormatDecimal(v, 0)
	case docspec.ServeCount:
		return FormatCount(int64(v))
	case docspec.ServeTokS:
		return FormatTokS(v)
	}
	return FormatDecimal(v, 1) // docspec.ServeTBT, docspec.ServeInFlight
}

// rounded prints a serve figure of column c for the terminal.
func rounded(c docspec.ServeColumn, x *schema.Measurement) string {
	if c.Text != nil {
		return cmp.Or(c.Text(x), None)
	}
	v, ok := c.Get(x)
	if !ok {
		return None
	}
	round := func(digits int) string {
		return FormatDecimal(math.Round(v*math.Pow10(digits))/math.Pow10(digits), digits)
	}
	switch c.Kind {
	case docspec.ServePerS:
		return round(2)
	case docspec.ServeCount:
		return FormatCount(int64(v))
	case docspec.ServeMs, docspec.ServeTBT:
		return humanMs(v)[:len(humanMs(v))-len(" ms")]
	}
	return round(1) // docspec.ServeTokS, docspec.ServeInFlight
}

// serveLoad names a serve row's load: its request rate ("4/s"; "all at
// once" for another tool's unbounded rate), its streams ("64 streams",
// a closed-loop probe), or both ("4/s · 64 streams", a rate with a
// concurrency limit).
func serveLoad(x *schema.Measurement) string {
	var rate, streams string
	if x.RequestRate != nil {
		rate = "all at once"
		if !math.IsInf(*x.RequestRate, 0) {
			rate = FormatDecimal(*x.RequestRate, 0) + "/s"
		}
	}
	if x.Concurrency != nil {
		streams = plural(int(*x.Concurrency), "stream", "streams")
	}
	switch {
	case rate != "" && streams != "":
		return rate + " · " + streams
	case rate != "":
		return rate
	case streams != "":
		return streams
	}
	return None
}

// serveRows returns the serve rows of ms, in table order.
func serveRows(ms []schema.Measurement) []*schema.Measurement {
	var rows []*schema.Measurement
	for i := range ms {
		if ms[i].Phase == schema.PhaseServe {
			rows = append(rows, &ms[i])
		}
	}
	return rows
}

// newServeTable lays out the documents' rate table: every serve row of
// m, in table order, as Context, Load, a Status column when some row is
// not valid, then docspec.ServeColumns in full. Nil when m has no serve row.
//
// Note: it is a view of rows the All measurements table holds; package
// parse checks every cell of it against them.
func newServeTable(m *schema.Matrix) *table {
	rows := serveRows(m.Measurements)
	if len(rows) == 0 {
		return nil
	}
	status := false
	for _, x := range rows {
		status = status || x.Status != schema.StatusValid
	}
	t := &table{Header: []string{gridCornerHdr, "Load"}}
	if status {
		t.Header = append(t.Header, "Status")
	}
	cols := serveColumnsOf(rows)
	for _, c := range cols {
		t.Header = append(t.Header, c.Doc)
	}
	for _, x := range rows {
		r := []string{label(x), serveLoad(x)}
		if status {
			r = append(r, StatusLabel(x.Status))
		}
		for _, c := range cols {
			r = append(r, full(c, x))
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// serveCaption is the caption with the run's arrival process when its
// printed pairs say it ("poisson, seed 42").
func serveCaption(r *schema.Run) string {
	for _, f := range r.Metadata {
		if f.Key == "Arrival" && f.Value != "" {
			return docspec.ServeCaption + " " + docspec.ServeArrival + f.Value + "."
		}
	}
	return docspec.ServeCaption
}
