package plots_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"speedmatrix/plots"
	"speedmatrix/schema"
)

// A decode chart from two runs: a line per context, runs told apart by
// pattern, the looped cell marked on its line.
func ExampleWriteAll() {
	chart := plots.LineChart{
		Title:  "Sustained decode: total throughput",
		XLabel: "Simultaneous requests", YLabel: "Total output (tok/s)",
		LogX2: true, LogY: true, GroupTitle: "Context", RunTitle: "Run",
		Series: []plots.Series{
			{Group: "8K", Run: "BF16", Points: []plots.Point{{X: 1, Y: 334.7}, {X: 2, Y: 585.4}, {X: 4, Y: 1026.3}}},
			{Group: "8K", Run: "INT4", Points: []plots.Point{{X: 1, Y: 325.2}, {X: 2, Status: schema.StatusLooped}, {X: 4, Y: 963.9}}},
		},
	}
	dir, err := os.MkdirTemp("", "plots-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := plots.WriteAll(dir, []plots.Named{{Name: "decode_total", Chart: chart}}); err != nil {
		fmt.Println(err)
		return
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// decode_total.png
	// decode_total.svg
}

// A page with the runs side by side, one table and a ratio heatmap.
func ExampleWriteReport() {
	r := plots.Report{
		Title: "INT4 against BF16",
		Runs: plots.Table{
			Header: []string{"Field", "BF16", "INT4"},
			Rows:   [][]string{{"GPU", "H200 NVL", "RTX PRO 6000"}},
		},
		Tables: []plots.Table{{
			Caption: "Decode total tok/s",
			Header:  []string{"Context", "Requests", "Baseline", "Value", "Ratio"},
			Rows:    [][]string{{"8K", "128", "13,000", "6,091.1", "0.4685"}},
		}},
		Charts: []plots.Named{{Name: "ratio", Caption: "Ratio", Chart: plots.Heatmap{
			Title: "INT4 / BF16", Rows: []string{"8K"}, Cols: []string{"16", "128"},
			Values: [][]float64{{math.NaN(), 0.4685}}, Notes: [][]string{{"looped (INT4)", ""}},
			Ratio: true,
		}}},
	}
	var page bytes.Buffer
	if err := plots.WriteReport(&page, r); err != nil {
		fmt.Println(err)
		return
	}
	s := page.String()
	fmt.Println(strings.Count(s, "<table"), "tables,", strings.Count(s, "<svg "), "chart")
	// Output:
	// 2 tables, 1 chart
}
