package analysis

import (
	"fmt"
	"strings"

	"speedmatrix/schema"
)

// Trends over an archive: runs grouped by model and GPU, each group
// followed at chosen cells (or the one most of its runs measured).

// TrendOptions are what a trend follows and how.
type TrendOptions struct {
	// Cells are the cells followed; none: each group's most measured
	// decode (else serve) cell.
	Cells     []Key
	Metric    Metric
	Order     TrendOrder
	Threshold float64
	// Selected is set when the user chose the runs: a group without the
	// cells is then an error; over the whole archive it is left out.
	Selected bool
}

// TrendGroup is the runs of one model on one GPU and their trends.
type TrendGroup struct {
	// Model and GPU are as the group's first run gives them (runs are
	// grouped ignoring case); empty when it gives none.
	Model, GPU string
	Runs       []*schema.Matrix
	Trends     []Trend
}

// GroupTrends groups runs by model and GPU (ignoring case, as
// SameSetup) and follows the cells of opt across each group.
func GroupTrends(ms []*schema.Matrix, opt TrendOptions) ([]*TrendGroup, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("no runs to follow")
	}
	var groups []*TrendGroup
	type setup struct{ model, gpu string }
	bySetup := map[setup]*TrendGroup{}
	for _, m := range ms {
		k := setup{strings.ToLower(m.Run.Model), strings.ToLower(m.Run.GPU)}
		g := bySetup[k]
		if g == nil {
			g = &TrendGroup{Model: m.Run.Model, GPU: m.Run.GPU}
			bySetup[k] = g
			groups = append(groups, g)
		}
		g.Runs = append(g.Runs, m)
	}
	kept := groups[:0]
	for _, g := range groups {
		cells := opt.Cells
		if len(cells) == 0 {
			if k, ok := defaultCell(g.Runs); ok {
				cells = []Key{k}
			}
		}
		for _, k := range cells {
			tr := BuildTrend(g.Runs, k, opt.Metric, opt.Order, opt.Threshold)
			if hasCell(tr) {
				g.Trends = append(g.Trends, tr)
			}
		}
		// Over the whole archive a group none of whose runs has the
		// cells is noise; a group the user selected is shown anyway.
		if len(g.Trends) == 0 && !opt.Selected {
			continue
		}
		if len(g.Trends) == 0 {
			return nil, fmt.Errorf("%s: no run has %s; give -cell phase:context:N", runSetup(g.Model, g.GPU), cellList(cells))
		}
		kept = append(kept, g)
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no archived run has %s; give -cell phase:context:N", cellList(opt.Cells))
	}
	return kept, nil
}

// runSetup names a group's model and GPU in GroupTrends' errors.
func runSetup(model, gpu string) string {
	if model == "" {
		model = "(model not given)"
	}
	if gpu == "" {
		gpu = "(GPU not given)"
	}
	return model + " on " + gpu
}

// hasCell reports whether any run of a trend holds its cell (valid or
// not).
func hasCell(tr Trend) bool {
	for _, p := range tr.Points {
		if p.State != StateMissing && p.State != StateNoValue {
			return true
		}
	}
	return false
}

func cellList(cells []Key) string {
	if len(cells) == 0 {
		return "a cell to follow"
	}
	var s []string
	for _, k := range cells {
		s = append(s, fmt.Sprintf("%s:%s:%d", k.Phase, k.ContextLabel, k.Concurrency))
	}
	return strings.Join(s, ", ")
}

// defaultCell picks the cell a trend follows when none is given: the
// decode cell (else serve cell) at the shortest context with the most
// simultaneous requests that most runs measured validly.
func defaultCell(runs []*schema.Matrix) (Key, bool) {
	count := map[Key]int{}
	tokens := map[Key]int64{}
	for _, phase := range []schema.Phase{schema.PhaseDecode, schema.PhaseServe} {
		for _, m := range runs {
			for _, c := range IndexCells(m).Phase(phase) {
				if c.Status == schema.StatusValid && c.Key.Concurrency > 0 && c.Key.RequestRate == 0 {
					count[c.Key]++
					tokens[c.Key] = c.ContextTokens
				}
			}
		}
		if len(count) > 0 {
			break
		}
	}
	var best Key
	found := false
	for k, n := range count {
		if !found {
			best, found = k, true
			continue
		}
		b := count[best]
		switch {
		case n != b:
			if n > b {
				best = k
			}
		case tokens[k] != tokens[best]:
			if tokens[k] < tokens[best] {
				best = k
			}
		case k.Concurrency != best.Concurrency:
			if k.Concurrency > best.Concurrency {
				best = k
			}
		case k.ContextLabel < best.ContextLabel:
			best = k
		}
	}
	return best, found
}
