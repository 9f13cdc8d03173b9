package analysis

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format is an output format of the writers.
type Format string

// The output formats.
const (
	FormatText     Format = "text"
	FormatMarkdown Format = "markdown"
	FormatCSV      Format = "csv"
	FormatJSON     Format = "json"
)

// ParseFormat checks a -format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case FormatText, FormatMarkdown, FormatCSV, FormatJSON:
		return f, nil
	case "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("format %q: want text, markdown, csv or json", s)
}

// table is a titled grid of cells, printed as an aligned text table, a
// Markdown (GFM) table or CSV.
//
// Note: text/tabwriter pads every column the same way; numbers read
// better right-aligned and labels left-aligned, so the text form pads by
// hand (columns counted in runes: the tables hold ×, ≥, σ, κ, λ).
type table struct {
	title  string
	header []string
	right  []bool // per column: right-align (numbers)
	rows   [][]string
	class  []string   // per row, optional: see Table.Class
	notes  []string   // printed under the table
	csv    [][]string // the machine form (header first), nil: rows as printed
}

// Table is one table of a report as plain data, for renderers other than
// the writers of this package (the HTML report of package plots).
type Table struct {
	Title  string
	Header []string
	// Right marks the columns of numbers.
	Right []bool
	Rows  [][]string
	// Class, when set, classifies each row: "better", "worse" (a delta's
	// verdict), "muted" (a delta without a ratio), "flag" (a trend step
	// beyond its threshold) or "".
	Class []string
	Notes []string
	// CSV is the machine form CSV prints instead of the rows (header
	// first): long, unrounded figures (Raw), statuses in their own
	// column. Nil for tables whose cells are already plain text.
	CSV [][]string `json:"-"`
}

func (t *table) export() Table {
	return Table{Title: t.title, Header: t.header, Right: t.right, Rows: t.rows, Class: t.class, Notes: t.notes, CSV: t.csv}
}

// Write prints t as the writers of this package print their tables:
// aligned text, Markdown or CSV (JSON is not a table form: text).
func (t Table) Write(w io.Writer, f Format) error {
	right := t.Right
	if len(right) < len(t.Header) {
		right = append(slices.Clone(right), make([]bool, len(t.Header)-len(right))...)
	}
	return (&table{title: t.Title, header: t.Header, right: right, rows: t.Rows, class: t.Class, notes: t.Notes, csv: t.CSV}).write(w, f)
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// dropDashColumns removes the columns cols (indexes into the header)
// whose every row is "—" or empty, and reports whether it removed any:
// a column of dashes says once, in a note, what a cell would say per row.
// The machine form (csv) keeps them.
func (t *table) dropDashColumns(cols ...int) bool {
	drop := map[int]bool{}
	for _, c := range cols {
		empty := len(t.rows) > 0
		for _, r := range t.rows {
			if c < len(r) && r[c] != "—" && r[c] != "" {
				empty = false
				break
			}
		}
		drop[c] = empty
	}
	keep := func(row []string) []string {
		var out []string
		for i, v := range row {
			if !drop[i] {
				out = append(out, v)
			}
		}
		return out
	}
	any := false
	for _, d := range drop {
		any = any || d
	}
	if !any {
		return false
	}
	t.header = keep(t.header)
	var right []bool
	for i, v := range t.right {
		if !drop[i] {
			right = append(right, v)
		}
	}
	t.right = right
	for i := range t.rows {
		t.rows[i] = keep(t.rows[i])
	}
	return true
}

func (t *table) write(w io.Writer, f Format) error {
	switch f {
	case FormatCSV:
		cw := csv.NewWriter(w)
		if t.csv != nil {
			if err := cw.WriteAll(t.csv); err != nil {
				return err
			}
			return cw.Error()
		}
		if err := cw.Write(t.header); err != nil {
			return err
		}
		if err := cw.WriteAll(t.rows); err != nil {
			return err
		}
		return cw.Error()
	case FormatMarkdown:
		return t.markdown(w)
	}
	return t.text(w)
}

// text writes the aligned text form through one buffer, a line at a
// time: -list prints 100,000 rows with it (BenchmarkList100000).
func (t *table) text(w io.Writer) error {
	width := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if t.title != "" {
		bw.WriteString(t.title + "\n")
	}
	var l []byte
	line := func(r []string) {
		l = l[:0]
		for i, c := range r {
			pad := width[i] - utf8.RuneCountInString(c)
			if i > 0 {
				l = append(l, "  "...)
			}
			if !t.right[i] {
				l = append(l, c...)
			}
			for range pad {
				l = append(l, ' ')
			}
			if t.right[i] {
				l = append(l, c...)
			}
		}
		bw.Write(append(bytes.TrimRight(l, " "), '\n'))
	}
	line(t.header)
	for _, r := range t.rows {
		line(r)
	}
	for _, n := range t.notes {
		bw.WriteString(n + "\n")
	}
	bw.WriteString("\n")
	return bw.Flush()
}

func (t *table) markdown(w io.Writer) error {
	var b strings.Builder
	if t.title != "" {
		b.WriteString("### " + mdEscape(t.title) + "\n\n")
	}
	row := func(r []string) {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + mdEscape(c) + " |")
		}
		b.WriteString("\n")
	}
	row(t.header)
	b.WriteString("|")
	for i := range t.header {
		if t.right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		row(r)
	}
	if len(t.notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.notes {
			if len(t.notes) > 1 {
				b.WriteString("- ") // one line each, not one paragraph
			}
			b.WriteString(mdEscape(n) + "\n")
		}
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;").Replace(s)
}

// num formats a figure with thousands separators and one decimal; "—"
// for NaN.
func num(v float64) string { return group(v, 1) }

func group(v float64, prec int) string {
	if math.IsNaN(v) {
		return "—"
	}
	if math.IsInf(v, 0) {
		if v > 0 {
			return "∞"
		}
		return "-∞"
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', prec, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// raw formats a figure for CSV: at most 12 significant figures (so a
// computed 19.199999999999996 reads 19.2), empty for NaN.
func raw(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	s := strconv.FormatFloat(v, 'g', 12, 64)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return s
}

// pctSig is pct for a change computed from figures with sig
// significant figures: a ratio of 2 figures ("0.27") gives a whole
// percentage ("-73%").
func pctSig(v float64, sig int) string {
	if sig >= 3 || math.IsNaN(v) {
		return pct(v)
	}
	return fmt.Sprintf("%+.0f%%", v)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", v)
}
