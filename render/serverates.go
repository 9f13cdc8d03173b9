package render

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"

	"speedmatrix/schema"
)

// writeServeRates writes the valid serve rows of m as a table a person
// reads on a terminal: the context and load, then docspec.ServeColumns rounded,
// each p99 beside its p50 ("830 / 1,955"). Nothing when m has no valid
// serve row.
//
// Note: the documents print the same columns in full, a row for every
// serve row (newServeTable); this one leaves the failed rows to the
// summary's list of cells that are not valid.
func writeServeRates(b *bytes.Buffer, m *schema.Matrix) {
	var rows []*schema.Measurement
	for _, x := range serveRows(m.Measurements) {
		if x.Status == schema.StatusValid {
			rows = append(rows, x)
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nServe: by request rate (ms: p50 / p99)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 3, ' ', tabwriter.AlignRight)
	head := []string{"context", "load"}
	cols := serveColumnsOf(rows)
	for _, c := range cols {
		if c.Term != "" {
			head = append(head, c.Term)
		}
	}
	fmt.Fprintf(tw, "%s\t\n", strings.Join(head, "\t"))
	for _, x := range rows {
		cells := []string{label(x), serveLoad(x)}
		for _, c := range cols {
			s := rounded(c, x)
			if c.Term == "" { // a p99 after its p50
				if last := &cells[len(cells)-1]; *last != None && s != None {
					*last += " / " + s
				}
				continue
			}
			cells = append(cells, s)
		}
		fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t"))
	}
	tw.Flush()
}
