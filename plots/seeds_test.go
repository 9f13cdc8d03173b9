package plots

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"

	"speedmatrix/schema"
)

// This file holds the two seed matrices (testdata/seeds, copied by hand
// from their "All measurements" tables) and builds every chart from them,
// as cmd/compare would from analysis results.

var na = math.NaN()

const (
	valid  = schema.StatusValid
	looped = schema.StatusLooped
	over   = schema.StatusOverCapacity
)

// seedCell is one row of a seed's "All measurements" table.
type seedCell struct {
	phase   string
	context string
	conc    float64
	status  schema.Status
	total   float64 // total tok/s (prompt tok/s for prefill)
	perReq  float64 // per-request tok/s
	ttftMs  float64
}

// seedRun is one seed document.
type seedRun struct {
	label string // legend name
	short string // name in a heatmap cell
	cells []seedCell
}

// seedINT4 is 000_acc4a01d882a0446.txt: INT4 on RTX PRO 6000, 7 looped
// cells and 1 over capacity.
var seedINT4 = seedRun{label: "INT4 · RTX PRO 6000", short: "INT4", cells: []seedCell{
	{"prefill", "8K", 1, valid, 55000, na, 149},
	{"prefill", "16K", 1, valid, 57500, na, 282},
	{"prefill", "32K", 1, valid, 55000, na, 587},
	{"prefill", "64K", 1, valid, 46400, na, 1388},
	{"prefill", "123K", 1, valid, 35400, na, 3490},
	{"prefill", "128K", 1, valid, 34600, na, 3722},
	{"decode", "8K", 1, valid, 325.2, 326.1, 41},
	{"decode", "8K", 2, valid, 538.8, 270.8, 69},
	{"decode", "8K", 4, valid, 963.9, 242.3, 70},
	{"decode", "8K", 8, valid, 1627.8, 204.8, 112},
	{"decode", "8K", 16, looped, na, na, na},
	{"decode", "8K", 32, valid, 3520.8, 110.5, 248},
	{"decode", "8K", 64, looped, na, na, na},
	{"decode", "8K", 128, valid, 6091.1, 47.4, 783},
	{"decode", "16K", 1, looped, na, na, na},
	{"decode", "16K", 2, valid, 533.1, 268.6, 117},
	{"decode", "16K", 4, valid, 938.3, 236.1, 150},
	{"decode", "16K", 8, looped, na, na, na},
	{"decode", "16K", 16, valid, 2199.0, 139.6, 364},
	{"decode", "16K", 32, looped, na, na, na},
	{"decode", "16K", 64, valid, 4207.1, 65.7, 934},
	{"decode", "16K", 128, valid, 5319.4, 41.2, 1644},
	{"decode", "32K", 1, valid, 311.5, 314.9, 101},
	{"decode", "32K", 2, valid, 516.1, 260.9, 159},
	{"decode", "32K", 4, valid, 892.0, 225.0, 218},
	{"decode", "32K", 8, valid, 1401.8, 178.1, 314},
	{"decode", "32K", 16, looped, na, na, na},
	{"decode", "32K", 32, valid, 2828.9, 88.4, 774},
	{"decode", "32K", 64, valid, 3541.5, 54.7, 1319},
	{"decode", "32K", 128, valid, 4435.8, 33.7, 2442},
	{"decode", "64K", 1, valid, 294.4, 297.7, 165},
	{"decode", "64K", 2, valid, 484.9, 246.6, 241},
	{"decode", "64K", 4, valid, 810.2, 204.8, 333},
	{"decode", "64K", 8, valid, 1222.2, 155.3, 478},
	{"decode", "64K", 16, looped, na, na, na},
	{"decode", "64K", 32, valid, 2250.3, 69.0, 1421},
	{"decode", "64K", 64, valid, 2744.9, 41.1, 2672},
	{"decode", "64K", 128, valid, 3314.2, 24.0, 5169},
	{"decode", "123K", 1, valid, 265.1, 270.6, 306},
	{"decode", "123K", 2, valid, 441.2, 223.3, 353},
	{"decode", "123K", 4, valid, 685.8, 173.8, 484},
	{"decode", "123K", 8, valid, 988.7, 125.3, 358},
	{"decode", "123K", 16, valid, 1330.0, 82.0, 1574},
	{"decode", "123K", 32, valid, 1699.3, 51.9, 3126},
	{"decode", "123K", 64, valid, 1967.7, 29.6, 5976},
	{"decode", "123K", 128, over, na, na, na},
}}

// seedBF16 is 001_03cf9c936d246394.txt: BF16 on H200 NVL, 1 over capacity.
var seedBF16 = seedRun{label: "BF16 · H200 NVL", short: "BF16", cells: []seedCell{
	{"prefill", "8K", 1, valid, 65300, na, 125},
	{"prefill", "16K", 1, valid, 60900, na, 266},
	{"prefill", "32K", 1, valid, 68700, na, 470},
	{"prefill", "64K", 1, valid, 69500, na, 926},
	{"prefill", "123K", 1, valid, 58900, na, 2096},
	{"prefill", "128K", 1, valid, 57000, na, 2255},
	{"decode", "8K", 1, valid, 334.7, 336.0, 44},
	{"decode", "8K", 2, valid, 585.4, 294.6, 93},
	{"decode", "8K", 4, valid, 1026.3, 258.7, 120},
	{"decode", "8K", 8, valid, 1406.6, 177.4, 167},
	{"decode", "8K", 16, valid, 3016.8, 190.9, 187},
	{"decode", "8K", 32, valid, 5061.8, 161.0, 232},
	{"decode", "8K", 64, valid, 8146.9, 128.2, 234},
	{"decode", "8K", 128, valid, 13000, 101.3, 780},
	{"decode", "16K", 1, valid, 327.9, 331.6, 90},
	{"decode", "16K", 2, valid, 574.0, 290.4, 168},
	{"decode", "16K", 4, valid, 1002.0, 255.2, 202},
	{"decode", "16K", 8, valid, 1376.2, 173.9, 268},
	{"decode", "16K", 16, valid, 2891.6, 183.4, 349},
	{"decode", "16K", 32, valid, 4755.3, 150.9, 440},
	{"decode", "16K", 64, valid, 7598.9, 118.3, 773},
	{"decode", "16K", 128, valid, 11400, 87.9, 1372},
	{"decode", "32K", 1, valid, 318.8, 321.9, 137},
	{"decode", "32K", 2, valid, 560.2, 284.2, 193},
	{"decode", "32K", 4, valid, 973.6, 248.2, 261},
	{"decode", "32K", 8, valid, 1325.4, 168.1, 342},
	{"decode", "32K", 16, valid, 2700.9, 171.8, 502},
	{"decode", "32K", 32, valid, 4249.3, 134.8, 547},
	{"decode", "32K", 64, valid, 6551.3, 100.3, 1292},
	{"decode", "32K", 128, valid, 9249.4, 69.6, 2378},
	{"decode", "64K", 1, valid, 302.6, 306.6, 183},
	{"decode", "64K", 2, valid, 531.8, 270.0, 209},
	{"decode", "64K", 4, valid, 930.3, 234.7, 244},
	{"decode", "64K", 8, valid, 1238.8, 156.5, 334},
	{"decode", "64K", 16, valid, 2403.5, 151.4, 434},
	{"decode", "64K", 32, valid, 3658.7, 113.4, 1519},
	{"decode", "64K", 64, valid, 5155.0, 78.2, 2649},
	{"decode", "64K", 128, valid, 6623.4, 48.5, 4728},
	{"decode", "123K", 1, valid, 274.2, 279.5, 268},
	{"decode", "123K", 2, valid, 486.8, 249.8, 338},
	{"decode", "123K", 4, valid, 867.1, 218.8, 319},
	{"decode", "123K", 8, valid, 1117.8, 141.4, 376},
	{"decode", "123K", 16, valid, 1985.9, 126.1, 438},
	{"decode", "123K", 32, valid, 2872.9, 88.8, 2669},
	{"decode", "123K", 64, valid, 3677.2, 55.9, 5236},
	{"decode", "123K", 128, over, na, na, na},
}}

// decodeContexts are the rows of the seeds' decode matrices.
var decodeContexts = []string{"8K", "16K", "32K", "64K", "123K"}

// concurrencies are the columns.
var concurrencies = []float64{1, 2, 4, 8, 16, 32, 64, 128}

// contextTokens turns a label such as "123K" into tokens (K = 1024).
func contextTokens(label string) float64 {
	var k float64
	if _, err := fmt.Sscanf(label, "%gK", &k); err != nil {
		panic(err)
	}
	return k * 1024
}

// cell finds a cell of r.
func (r seedRun) cell(phase, context string, conc float64) seedCell {
	for _, c := range r.cells {
		if c.phase == phase && c.context == context && c.conc == conc {
			return c
		}
	}
	panic(fmt.Sprintf("no cell %s %s %v", phase, context, conc))
}

// decodeSeries returns one series per run and context of metric (total
// or per-request tok/s) against concurrency.
func decodeSeries(runs []seedRun, metric func(seedCell) float64) []Series {
	var out []Series
	for _, r := range runs {
		for _, ctx := range decodeContexts {
			s := Series{Name: r.label + " " + ctx, Group: ctx, Run: r.label}
			for _, n := range concurrencies {
				c := r.cell("decode", ctx, n)
				s.Points = append(s.Points, Point{X: n, Y: metric(c), Status: c.status})
			}
			out = append(out, s)
		}
	}
	return out
}

// prefillSeries returns one series per run of metric against context.
func prefillSeries(runs []seedRun, metric func(seedCell) float64) []Series {
	var out []Series
	for _, r := range runs {
		s := Series{Name: r.label, Run: r.label}
		for _, c := range r.cells {
			if c.phase == "prefill" {
				s.Points = append(s.Points, Point{X: contextTokens(c.context), Y: metric(c), Status: c.status})
			}
		}
		out = append(out, s)
	}
	return out
}

// prefillTicks labels the prefill contexts as the documents print them.
func prefillTicks(r seedRun) []plot.Tick {
	var ticks []plot.Tick
	for _, c := range r.cells {
		if c.phase == "prefill" {
			ticks = append(ticks, plot.Tick{Value: contextTokens(c.context), Label: c.context})
		}
	}
	return ticks
}

// seedRuns is the reference comparison (issue 4): BF16 on H200 is the
// baseline, INT4 on RTX PRO 6000 the run compared with it.
var seedRuns = []seedRun{seedBF16, seedINT4}

// seedCharts builds every chart the compare command draws, from the seeds.
func seedCharts() []Named {
	return []Named{
		{Name: "ratio_total", Caption: "Throughput ratio", Chart: ratioHeatmap(seedBF16, seedINT4)},
		{Name: "decode_total", Caption: "Decode throughput", Chart: LineChart{
			Title:  "Sustained decode: total throughput",
			XLabel: "Simultaneous requests", YLabel: "Total output (tok/s)",
			LogX2: true, LogY: true, GroupTitle: "Context", RunTitle: "Run",
			Series: decodeSeries(seedRuns, func(c seedCell) float64 { return c.total }),
		}},
		{Name: "decode_per_request", Caption: "Per-request speed", Chart: LineChart{
			Title:  "Sustained decode: speed per request",
			XLabel: "Simultaneous requests", YLabel: "Output per request (tok/s)",
			LogX2: true, GroupTitle: "Context", RunTitle: "Run",
			Series: decodeSeries(seedRuns, func(c seedCell) float64 { return c.perReq }),
		}},
		{Name: "frontier", Caption: "Throughput against interactivity", Chart: Frontier{
			Title:  "Throughput–interactivity frontier (decode, all contexts)",
			XLabel: "Output per request (tok/s)", YLabel: "Total output (tok/s)",
			MinX: 50, LogY: true,
			Series: frontierSeries(seedRuns),
		}},
		{Name: "trend_8k_128", Caption: "Version trend (synthetic)", Chart: syntheticTrend()},
		{Name: "usl_int4", Caption: "Scaling fit", Chart: LineChart{
			Title:  "Decode scaling with a Universal Scalability Law fit: " + seedINT4.label,
			XLabel: "Simultaneous requests", YLabel: "Total output (tok/s)",
			LogX2: true, GroupTitle: "Context", FitLabel: "USL fit",
			Series: decodeSeries([]seedRun{seedINT4}, func(c seedCell) float64 { return c.total }),
			Fits:   uslFits(seedINT4),
		}},
		{Name: "prefill_tok_s", Caption: "Prefill speed", Chart: LineChart{
			Title:  "Prefill: prompt processing speed",
			XLabel: "Context length (tokens)", YLabel: "Prompt (tok/s)",
			LogX2: true, XTicks: prefillTicks(seedINT4), RunTitle: "Run",
			Series: prefillSeries(seedRuns, func(c seedCell) float64 { return c.total }),
		}},
		{Name: "prefill_ttft", Caption: "Time to first token", Chart: LineChart{
			Title:  "Prefill: time to first token",
			XLabel: "Context length (tokens)", YLabel: "TTFT (ms)",
			LogX2: true, LogY: true, XTicks: prefillTicks(seedINT4), RunTitle: "Run",
			Series: prefillSeries(seedRuns, func(c seedCell) float64 { return c.ttftMs }),
		}},
	}
}

// statusNote says why a cell has no ratio, as analysis reports it.
func statusNote(base, other seedCell, baseName, otherName string) string {
	switch {
	case base.status == other.status && base.status != valid:
		return short(base.status) + "\n(both)"
	case base.status != valid:
		return short(base.status) + "\n(" + baseName + ")"
	case other.status != valid:
		return short(other.status) + "\n(" + otherName + ")"
	}
	return ""
}

// short names a status in a few characters, to fit a heatmap cell.
func short(s schema.Status) string {
	if s == over {
		return "over cap."
	}
	return strings.ReplaceAll(string(s), "_", " ")
}

// ratioHeatmap is other/base total tok/s over the decode matrix: 8K×128
// is 6,091.1 / 13,000 = 0.4685, printed 0.47×.
func ratioHeatmap(base, other seedRun) Heatmap {
	h := Heatmap{
		Title:  "Decode total tok/s: " + other.label + " / " + base.label,
		XLabel: "Simultaneous requests", YLabel: "Context length",
		Rows: decodeContexts, Ratio: true, ScaleLabel: "ratio (higher is better)",
	}
	for _, n := range concurrencies {
		h.Cols = append(h.Cols, FormatCount(n))
	}
	for _, ctx := range decodeContexts {
		var vals []float64
		var notes []string
		for _, n := range concurrencies {
			b, o := base.cell("decode", ctx, n), other.cell("decode", ctx, n)
			v := na
			if b.status == valid && o.status == valid {
				v = o.total / b.total
			}
			vals = append(vals, v)
			notes = append(notes, statusNote(b, o, base.short, other.short))
		}
		h.Values = append(h.Values, vals)
		h.Notes = append(h.Notes, notes)
	}
	return h
}

// frontierSeries gives one series per run: every decode cell as
// (per-request, total), labelled "context×concurrency".
func frontierSeries(runs []seedRun) []Series {
	var out []Series
	for _, r := range runs {
		s := Series{Name: r.label, Run: r.label}
		for _, c := range r.cells {
			if c.phase != "decode" {
				continue
			}
			s.Points = append(s.Points, Point{X: c.perReq, Y: c.total, Status: c.status,
				Label: fmt.Sprintf("%s×%g", c.context, c.conc)})
		}
		out = append(out, s)
	}
	return out
}

// syntheticTrend is a version history shaped like the BF16 seed. Only
// the 0.27.2 values are the seed's; the other versions are made up for
// the chart's test, with one regression beyond 5% and one looped cell.
func syntheticTrend() Trend {
	return Trend{
		Title:  "Decode total tok/s across engine versions (synthetic history)",
		XLabel: "vLLM version", YLabel: "Total output (tok/s)",
		Versions:       []string{"0.27.2rc1", "0.28.0", "0.29.1", "0.30.1rc1"},
		Threshold:      0.05,
		HigherIsBetter: true,
		Series: []Series{
			{Name: "8K × 128", Points: []Point{{X: 0, Y: 13000}, {X: 1, Y: 12800}, {X: 2, Y: 13900}, {X: 3, Y: 11700}}},
			{Name: "32K × 16", Points: []Point{{X: 0, Y: 2700.9}, {X: 1, Y: 2650}, {X: 2, Status: looped}, {X: 3, Y: 2810}}},
			{Name: "123K × 64", Points: []Point{{X: 0, Y: 3677.2}, {X: 1, Y: 3702}, {X: 2, Y: 3690}, {X: 3, Y: 3660}}},
		},
	}
}

// uslFits fits X(N) = λN / (1 + σ(N−1) + κN(N−1)) to each context of r
// by linear least squares on N/X = a + b(N−1) + cN(N−1) (a = 1/λ,
// b = σ/λ, c = κ/λ). Package analysis fits properly (gonum/optimize);
// this is only to give the chart realistic curves.
func uslFits(r seedRun) []Fit {
	var fits []Fit
	for _, ctx := range decodeContexts {
		var ata [3][3]float64
		var atb [3]float64
		for _, n := range concurrencies {
			c := r.cell("decode", ctx, n)
			if c.status != valid {
				continue
			}
			row := [3]float64{1, n - 1, n * (n - 1)}
			for i := range 3 {
				for j := range 3 {
					ata[i][j] += row[i] * row[j]
				}
				atb[i] += row[i] * n / c.total
			}
		}
		a, b, k := solve3(ata, atb)
		fits = append(fits, Fit{Group: ctx, Run: r.label, Min: 1, Max: 128,
			F: func(n float64) float64 { return n / (a + b*(n-1) + k*n*(n-1)) }})
	}
	return fits
}

// solve3 solves a 3×3 linear system by Cramer's rule.
func solve3(m [3][3]float64, v [3]float64) (x, y, z float64) {
	det := func(m [3][3]float64) float64 {
		return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
			m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
			m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	}
	d := det(m)
	var out [3]float64
	for c := range 3 {
		mc := m
		for r := range 3 {
			mc[r][c] = v[r]
		}
		out[c] = det(mc) / d
	}
	return out[0], out[1], out[2]
}
