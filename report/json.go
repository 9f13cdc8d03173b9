package report

import (
	"encoding/json"
	"io"
	"math"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// Note: JSON has no NaN or infinity, and analysis marks absent figures
// with NaN (a USL peak with +Inf), so the JSON form copies them into
// these shapes with null for each: docs/compare-json.md describes them.

// JSONReport is the one object -format json prints.
type JSONReport struct {
	Tolerance float64       `json:"tolerance"`
	Spread    bool          `json:"spread"`
	Runs      []JSONRun     `json:"runs"`
	Summary   Summary       `json:"summary"`
	Deltas    []DeltaRow    `json:"deltas"`
	Matrices  []JSONTable   `json:"ratio_matrices"`
	Scaling   []JSONScaling `json:"scaling"`
	Frontier  []JSONPoints  `json:"frontier"`
	Serve     []JSONServe   `json:"serve"`
	// Trend is empty in a comparison: -trend prints trends.
	Trend []TrendRow `json:"trend"`
	// Cost is the answer per dollar and per joule (report/cost.go), absent
	// when no price or GPU count was given and no run records energy.
	Cost *JSONCost `json:"cost,omitempty"`
}

// JSONRun is one run of the comparison: its label, role and metadata.
type JSONRun struct {
	Label string     `json:"label"`
	Role  string     `json:"role"`
	Cells int        `json:"cells"`
	Date  string     `json:"date"`
	Run   schema.Run `json:"run"`
}

// JSONTable is a formatted table (the ratio matrices).
type JSONTable struct {
	Name   string     `json:"name"`
	Title  string     `json:"title"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

// JSONScaling is one run's decode scaling curve at one context, with
// its USL fit.
type JSONScaling struct {
	Run      string           `json:"run"`
	Context  string           `json:"context"`
	Points   []JSONScalePoint `json:"points"`
	Excluded []JSONExcluded   `json:"excluded"`
	Fit      *JSONFit         `json:"fit"`
	FitError string           `json:"fit_error,omitempty"`
}

// JSONScalePoint is one concurrency of a scaling curve.
type JSONScalePoint struct {
	N              int32    `json:"n"`
	TotalTokS      *float64 `json:"total_tok_s"`
	Speedup        *float64 `json:"speedup"`
	Efficiency     *float64 `json:"efficiency"`
	PerRequestTokS *float64 `json:"per_request_tok_s"`
	TTFTMs         *float64 `json:"ttft_ms"`
	TBTMs          *float64 `json:"tbt_ms"`
	USL            *float64 `json:"usl_tok_s"`
}

// JSONExcluded is a concurrency left out of a curve, and why.
type JSONExcluded struct {
	N      int32  `json:"n"`
	Status string `json:"status"`
}

// JSONFit is a Universal Scalability Law fit; peak_n is null when
// throughput never falls or σ ≥ 1 (peak says which).
type JSONFit struct {
	Lambda float64  `json:"lambda"`
	Sigma  float64  `json:"sigma"`
	Kappa  float64  `json:"kappa"`
	R2     float64  `json:"r2"`
	Points int      `json:"points"`
	PeakN  *float64 `json:"peak_n"`
	PeakX  *float64 `json:"peak_tok_s"`
	Peak   string   `json:"peak"`
	Poor   string   `json:"poor,omitempty"`
}

// JSONPoints is one run's frontier: every valid decode cell and the
// Pareto-optimal ones.
type JSONPoints struct {
	Run    string      `json:"run"`
	Points []JSONPoint `json:"points"`
	Pareto []JSONPoint `json:"pareto"`
}

// JSONPoint is one decode cell on the frontier.
type JSONPoint struct {
	Context        string   `json:"context"`
	N              int32    `json:"n"`
	TotalTokS      float64  `json:"total_tok_s"`
	PerRequestTokS float64  `json:"per_request_tok_s"`
	TTFTMs         *float64 `json:"ttft_ms"`
	TBTMs          *float64 `json:"tbt_ms"`
}

// JSONServe is one run's serving curve at one input length.
type JSONServe struct {
	Run     string           `json:"run"`
	Context string           `json:"context"`
	ByRate  bool             `json:"by_rate"`
	Points  []JSONServePoint `json:"points"`
}

// JSONServePoint is one load of a serving curve; request_rate is null
// for "all at once".
type JSONServePoint struct {
	Load           string   `json:"load"`
	Concurrency    int32    `json:"concurrency"`
	RequestRate    *float64 `json:"request_rate"`
	Status         string   `json:"status"`
	TotalTokS      *float64 `json:"total_tok_s"`
	PerRequestTokS *float64 `json:"per_request_tok_s"`
	TTFTMs         *float64 `json:"ttft_ms"`
	TTFTP99Ms      *float64 `json:"ttft_p99_ms"`
	TBTMs          *float64 `json:"tbt_ms"`
	TBTP99Ms       *float64 `json:"tbt_p99_ms"`
	E2EMs          *float64 `json:"e2e_ms"`
	E2EP99Ms       *float64 `json:"e2e_p99_ms"`
}

// JSON returns the report as its JSON object.
func (r *Report) JSON() JSONReport {
	c := r.Comparison
	out := JSONReport{Tolerance: r.Tolerance(), Spread: c.Spread, Summary: r.Summary, Deltas: DeltaRows(c),
		Matrices: []JSONTable{}, Scaling: []JSONScaling{}, Frontier: []JSONPoints{}, Serve: []JSONServe{}, Trend: []TrendRow{}}
	for i, a := range r.Runs {
		role := "baseline"
		if i > 0 {
			role = "other"
		}
		run := a.Cells.Run.Run
		out.Runs = append(out.Runs, JSONRun{Label: a.Label, Role: role, Cells: len(a.Cells.List), Date: analysis.DateText(analysis.RunDate(&run)), Run: run})
		for _, s := range a.Scaling {
			js := JSONScaling{Run: a.Label, Context: s.ContextLabel, Points: []JSONScalePoint{}, Excluded: []JSONExcluded{}, FitError: errText(s.FitErr)}
			for _, p := range s.Points {
				jp := JSONScalePoint{N: p.N, TotalTokS: fp(p.X), Speedup: fp(p.Speedup), Efficiency: fp(p.Efficiency),
					PerRequestTokS: fp(p.PerRequestTokS), TTFTMs: fp(p.TTFTMs), TBTMs: fp(p.TBTMs)}
				if s.Fit != nil {
					jp.USL = fp(s.Fit.Predict(float64(p.N)))
				}
				js.Points = append(js.Points, jp)
			}
			for _, e := range s.Excluded {
				js.Excluded = append(js.Excluded, JSONExcluded{e.N, StateText(e.State)})
			}
			if f := s.Fit; f != nil {
				peak := "peak"
				switch {
				case math.IsNaN(f.PeakN):
					peak = "none (σ ≥ 1)"
				case math.IsInf(f.PeakN, 1):
					peak = "never falls"
				}
				js.Fit = &JSONFit{Lambda: f.Lambda, Sigma: f.Sigma, Kappa: f.Kappa, R2: f.R2, Points: f.Points, PeakN: fp(f.PeakN), PeakX: fp(f.PeakX), Peak: peak}
				if f.Poor {
					js.Fit.Poor = poorFitReason(f)
				}
			}
			out.Scaling = append(out.Scaling, js)
		}
		fr := JSONPoints{Run: a.Label, Points: []JSONPoint{}, Pareto: []JSONPoint{}}
		conv := func(ps []analysis.FrontierPoint) []JSONPoint {
			o := []JSONPoint{}
			for _, p := range ps {
				o = append(o, JSONPoint{p.ContextLabel, p.Concurrency, p.TotalTokS, p.PerRequestTokS, fp(p.TTFTMs), fp(p.TBTMs)})
			}
			return o
		}
		fr.Points, fr.Pareto = conv(a.Frontier.Points), conv(a.Frontier.Pareto)
		out.Frontier = append(out.Frontier, fr)
		for _, sc := range a.Serve {
			js := JSONServe{Run: a.Label, Context: sc.ContextLabel, ByRate: sc.ByRate, Points: []JSONServePoint{}}
			for _, p := range sc.Points {
				jp := JSONServePoint{Load: ServeLoadText(sc, p), Concurrency: p.Key.Concurrency, Status: StateText(p.State),
					TotalTokS: fp(p.TotalTokS), PerRequestTokS: fp(p.PerRequestTokS), TTFTMs: fp(p.TTFTMs), TTFTP99Ms: fp(p.TTFTP99Ms),
					TBTMs: fp(p.TBTMs), TBTP99Ms: fp(p.TBTP99Ms), E2EMs: fp(p.E2EMs), E2EP99Ms: fp(p.E2EP99Ms)}
				if p.Key.RequestRate != 0 {
					jp.RequestRate = fp(p.Key.RequestRate)
				}
				js.Points = append(js.Points, jp)
			}
			out.Serve = append(out.Serve, js)
		}
	}
	out.Cost = r.costJSON()
	for _, t := range r.matrices() {
		out.Matrices = append(out.Matrices, JSONTable{Name: t.Name, Title: t.Title, Header: t.Header, Rows: t.Rows})
	}
	return out
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}
