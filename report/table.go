package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
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

// Table is one table of a report as plain data: a caller prints it with
// Write (aligned text, Markdown, CSV) or lays it out itself (the HTML
// page, a web view). Name is what -table selects it by ("summary",
// "deltas", "matrix_decode_total_tok_s" …).
//
// Note: text/tabwriter pads every column the same way; numbers read
// better right-aligned and labels left-aligned, so the text form pads by
// hand (columns counted in runes: the tables hold ×, ≥, σ, κ, λ).
type Table struct {
	Name   string `json:"name"`
	Title  string
	Header []string
	// Right marks the columns of numbers.
	Right []bool
	Rows  [][]string
	// Class, when set, classifies each row: "better", "worse" (a delta's
	// verdict), "muted" (a delta without a ratio), "flag" (a trend step
	// beyond its threshold), "differs" (runs' metadata that differs) or "".
	Class []string
	Notes []string
	// CSV is the machine form CSV prints instead of the rows (header
	// first): long, unrounded figures (Raw), statuses in their own
	// column. Nil for tables whose cells are already plain text.
	CSV [][]string `json:"-"`
	// Lead marks the tables of the summary, which come first and stay
	// open in the HTML page.
	Lead bool `json:"-"`
}

// Write prints t as aligned text, Markdown or CSV (JSON is not a table
// form: text).
func (t Table) Write(w io.Writer, f Format) error {
	if len(t.Right) < len(t.Header) {
		t.Right = append(slices.Clone(t.Right), make([]bool, len(t.Header)-len(t.Right))...)
	}
	switch f {
	case FormatCSV:
		cw := csv.NewWriter(w)
		if t.CSV != nil {
			if err := cw.WriteAll(t.CSV); err != nil {
				return err
			}
			return cw.Error()
		}
		if err := cw.Write(t.Header); err != nil {
			return err
		}
		if err := cw.WriteAll(t.Rows); err != nil {
			return err
		}
		return cw.Error()
	case FormatMarkdown:
		return t.markdown(w)
	}
	return t.text(w)
}

func (t *Table) add(cells ...string) { t.Rows = append(t.Rows, cells) }

// dropDashColumns removes the columns cols (indexes into the header)
// whose every row is "—" or empty, and reports whether it removed any:
// a column of dashes says once, in a note, what a cell would say per row.
// The machine form (CSV) keeps them.
func (t *Table) dropDashColumns(cols ...int) bool {
	drop := map[int]bool{}
	for _, c := range cols {
		empty := len(t.Rows) > 0
		for _, r := range t.Rows {
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
	t.Header = keep(t.Header)
	var right []bool
	for i, v := range t.Right {
		if !drop[i] {
			right = append(right, v)
		}
	}
	t.Right = right
	for i := range t.Rows {
		t.Rows[i] = keep(t.Rows[i])
	}
	return true
}

// text writes the aligned text form through one buffer, a line at a
// time: -list prints 100,000 rows with it (BenchmarkList100000).
func (t *Table) text(w io.Writer) error {
	width := make([]int, len(t.Header))
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if t.Title != "" {
		bw.WriteString(t.Title + "\n")
	}
	var l []byte
	line := func(r []string) {
		l = l[:0]
		for i, c := range r {
			pad := width[i] - utf8.RuneCountInString(c)
			if i > 0 {
				l = append(l, "  "...)
			}
			if !t.Right[i] {
				l = append(l, c...)
			}
			for range pad {
				l = append(l, ' ')
			}
			if t.Right[i] {
				l = append(l, c...)
			}
		}
		bw.Write(append(bytes.TrimRight(l, " "), '\n'))
	}
	line(t.Header)
	for _, r := range t.Rows {
		line(r)
	}
	for _, n := range t.Notes {
		bw.WriteString(n + "\n")
	}
	bw.WriteString("\n")
	return bw.Flush()
}

func (t *Table) markdown(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("### " + mdEscape(t.Title) + "\n\n")
	}
	row := func(r []string) {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + mdEscape(c) + " |")
		}
		b.WriteString("\n")
	}
	row(t.Header)
	b.WriteString("|")
	for i := range t.Header {
		if t.Right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.Notes {
			if len(t.Notes) > 1 {
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
