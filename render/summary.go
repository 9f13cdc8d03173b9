package render

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"speedmatrix/schema"
)

// Summary writes m for a person reading a terminal: the title and
// subtitle, the decode matrix (total tok/s and TTFT by context and
// requests at once), the prefill figures, and how many cells have each
// status with the reason of every cell that is not valid. Figures are
// rounded for reading; the documents (Text, Markdown, HTML) keep them
// in full.
func Summary(w io.Writer, m *schema.Matrix) error {
	v := newView(m)
	var b bytes.Buffer
	b.WriteString(v.Title + "\n")
	if sub := v.subtitle(); sub != "" {
		b.WriteString(sub + "\n")
	}
	if g := v.Grid; g != nil {
		b.WriteString("\nDecode: total tok/s (TTFT) by context and requests at once\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "context\t%s\t\n", strings.Join(g.Cols, "\t"))
		for _, r := range g.Rows {
			cells := []string{r.Context}
			for _, c := range r.Cells {
				cells = append(cells, humanCell(c.x))
			}
			fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
	var prefill []*schema.Measurement
	for i := range m.Measurements {
		if m.Measurements[i].Phase == schema.PhasePrefill {
			prefill = append(prefill, &m.Measurements[i])
		}
	}
	if len(prefill) > 0 {
		b.WriteString("\nPrefill: prompt tok/s (TTFT)\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', tabwriter.AlignRight)
		for _, x := range prefill {
			fmt.Fprintf(tw, "%s\t%s\t\n", label(x), humanCell(x))
		}
		tw.Flush()
	}
	writeServeRates(&b, m)
	counts := map[schema.Status]int{}
	var bad []string
	for i := range m.Measurements {
		x := &m.Measurements[i]
		counts[x.Status]++
		if x.Status != schema.StatusValid {
			line := "  " + cellName(x) + ": " + StatusLabel(x.Status)
			if x.StatusReason != "" {
				line += ": " + shorten(x.StatusReason, 160)
			}
			bad = append(bad, line)
		}
	}
	var parts []string
	for _, st := range []schema.Status{schema.StatusValid, schema.StatusLooped, schema.StatusOverCapacity, schema.StatusSkipped, schema.StatusError} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], strings.ToLower(StatusLabel(st))))
		}
	}
	fmt.Fprintf(&b, "\n%s: %s\n", plural(len(m.Measurements), "cell", "cells"), strings.Join(parts, ", "))
	for _, l := range bad {
		b.WriteString(l + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// humanCell is a cell as a person reads it: "325.2 (41 ms)", its status
// when it is not valid, "—" when the matrix has no such cell.
func humanCell(x *schema.Measurement) string {
	switch {
	case x == nil:
		return None
	case x.Status != schema.StatusValid:
		return StatusLabel(x.Status)
	}
	s := None
	if x.TotalTokS != nil {
		s = FormatDecimal(math.Round(*x.TotalTokS*10)/10, 1)
	}
	if x.TTFTMs != nil {
		s += " (" + humanMs(*x.TTFTMs) + ")"
	}
	return s
}

// humanMs rounds a latency for reading: whole milliseconds from 100 ms,
// one decimal below.
func humanMs(v float64) string {
	if math.Abs(v) >= 100 {
		return FormatDecimal(math.Round(v), 0) + " ms"
	}
	return FormatDecimal(math.Round(v*10)/10, 1) + " ms"
}

// cellName names a cell: "decode 8K × 4", "prefill 8K".
func cellName(x *schema.Measurement) string {
	s := string(x.Phase) + " " + label(x)
	if x.Phase != schema.PhasePrefill && x.Concurrency != nil {
		s += fmt.Sprintf(" × %d", *x.Concurrency)
	}
	if x.Phase == schema.PhaseServe && x.RequestRate != nil && !math.IsInf(*x.RequestRate, 0) {
		s += " at " + FormatDecimal(*x.RequestRate, 0) + "/s"
	}
	return s
}

// shorten cuts s to at most n bytes (on a rune boundary) with "…".
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
