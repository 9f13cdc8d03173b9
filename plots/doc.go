// Package plots draws single charts: scaling curves, ratio heatmaps, the
// throughput–interactivity frontier and version trends, as PNG and SVG.
// It knows nothing of the page that shows them (package report lays
// out the HTML page) nor of analysis: callers copy their numbers into
// the specs.
//
// The pipeline:
//
//	chart specs (LineChart, Heatmap, Frontier, Trend: plain data)
//	      ──► Figure (a gonum/plot Plot plus a legend column beside it)
//	      ──► SavePNG / SaveSVG (to an io.Writer) / WriteAll (files in a directory)
//	      ──► SaveSVGNoFont + WriteFont: for a page that carries the font once
//
// Chart specs are plain data: series of points with a schema.Status, so a
// looped or over-capacity cell is drawn as a marker (a cross, a hollow
// square) on its series' line rather than dropped, and a heat-map cell
// without a value is hatched and carries its note ("looped (INT4)").
// The package imports no runner, archive, parse, analysis or report code.
//
// What gonum/plot lacks is added here, each with a note saying why: power
// of two ticks (1, 2, 4 … 128) and 1-2-5 log ticks with readable labels,
// a legend column beside the plot instead of over the data, outlined
// markers thick enough for 1200 px, hatching, and a vector colour bar.
// Series of one context share a colour and series of one run share a line
// pattern and marker, so a two-run chart needs 5 + 2 legend entries, not 10.
// A chart's SVG is interactive (interactive.go): on line, trend and
// frontier charts each series a group, each valid point a hover <title>
// with its exact value, run and cell, each legend entry a group a page's
// script may use to hide or show the series it names; on a heat map each
// cell an invisible rectangle whose <title> names the cell and gives its
// exact value (or Heatmap.Hover's text). A PNG draws none of it.
// Files written by WriteAll reference the font instead of embedding it.
//
// Output is deterministic: the same spec gives the same SVG bytes (no
// times, no map iteration in drawing order), which the golden files under
// testdata check. Text is Liberation Sans throughout; PNGs are rendered at
// 192 DPI so that a 1200-pixel-wide chart stays crisp.
package plots
