package report_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"speedmatrix/plots"
	"speedmatrix/report"
)

// A page with the runs side by side, one table and a ratio heatmap.
func ExampleWritePage() {
	r := report.Page{
		Title: "INT4 against BF16",
		Runs: report.Table{
			Header: []string{"Field", "BF16", "INT4"},
			Rows:   [][]string{{"GPU", "H200 NVL", "RTX PRO 6000"}},
		},
		Tables: []report.Table{{
			Title:  "Decode total tok/s",
			Header: []string{"Context", "Requests", "Baseline", "Value", "Ratio"},
			Rows:   [][]string{{"8K", "128", "13,000", "6,091.1", "0.4685"}},
		}},
		Charts: []report.Chart{{Name: "ratio", Caption: "Ratio", Chart: plots.Heatmap{
			Title: "INT4 / BF16", Rows: []string{"8K"}, Cols: []string{"16", "128"},
			Values: [][]float64{{math.NaN(), 0.4685}}, Notes: [][]string{{"looped (INT4)", ""}},
			Ratio: true,
		}}},
	}
	var page bytes.Buffer
	if err := report.WritePage(&page, r); err != nil {
		fmt.Println(err)
		return
	}
	s := page.String()
	fmt.Println(strings.Count(s, "<table"), "tables,", strings.Count(s, "<svg "), "chart")
	// Output:
	// 2 tables, 1 chart
}
