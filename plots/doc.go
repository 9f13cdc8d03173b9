// Package plots draws what package analysis computed: scaling curves,
// ratio heatmaps, the throughput–interactivity frontier and version
// trends, as PNG and SVG charts and as one self-contained HTML report.
//
// The pipeline:
//
//	analysis results ──► chart specs (LineChart, Heatmap, Frontier, Trend)
//	      ──► Figure (a gonum/plot Plot plus a legend column beside it)
//	      ──► SavePNG / SaveSVG / WriteAll ──► files
//	      ──► WriteReport ──► one HTML page with inline SVG and CSS
//
// Chart specs are plain data: series of points with a schema.Status, so a
// looped or over-capacity cell is drawn as a marker rather than dropped.
// The package imports no runner, archive or parse code; callers copy their
// numbers into the specs.
//
// Output is deterministic: the same spec gives the same SVG bytes (no
// times, no map iteration in drawing order), which the golden files under
// testdata check. Text is Liberation Sans throughout; PNGs are rendered at
// 192 DPI so that a 1200-pixel-wide chart stays crisp.
package plots
