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
	Setup  string
	Runs   []*schema.Matrix
	Trends []Trend
}

// GroupTrends groups runs by model and GPU (RunSetup) and follows the
// cells of opt across each group.
func GroupTrends(ms []*schema.Matrix, opt TrendOptions) ([]*TrendGroup, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("no runs to follow")
	}
	var groups []*TrendGroup
	bySetup := map[string]*TrendGroup{}
	for _, m := range ms {
		k := strings.ToLower(RunSetup(&m.Run))
		g := bySetup[k]
		if g == nil {
			g = &TrendGroup{Setup: RunSetup(&m.Run)}
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
			return nil, fmt.Errorf("%s: no run has %s; give -cell phase:context:N", g.Setup, cellList(cells))
		}
		kept = append(kept, g)
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no archived run has %s; give -cell phase:context:N", cellList(opt.Cells))
	}
	return kept, nil
}

// RunSetup names the model and GPU a trend follows.
func RunSetup(r *schema.Run) string {
	model, gpu := r.Model, r.GPU
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
