package plots_test

import (
	"fmt"
	"os"
	"path/filepath"

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
