package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// where says in one sentence where the total-throughput ratio of other
// run oi changes, read from its ratio matrix of phase ph: by load (the
// geometric mean over contexts of each column, consecutive columns that
// read alike joined: "level at N = 1–4 (0.98–1.02×), behind at N =
// 16–128 (0.47–0.81×)") and by context (the geometric mean over loads of
// each row). It returns "" when the matrix has a single row and column.
//
// Note: "level" is within the comparison's tolerance (SameWithin), the
// band a cell's verdict reads "same" in, so the sentence and the
// matrix's colours agree.
func where(c *analysis.Comparison, oi int, ph schema.Phase, tol float64) string {
	mi := slices.IndexFunc(c.Metrics, func(m analysis.Metric) bool { return m.Name == analysis.TotalTokS.Name })
	if mi < 0 {
		return ""
	}
	type acc struct {
		logSum float64
		n      int
	}
	byLoad := map[analysis.Key]*acc{}
	byCtx := map[string]*acc{}
	var loads []analysis.Key
	var ctxs []string
	for i := range c.Deltas[oi] {
		d := &c.Deltas[oi][i]
		if int(d.Metric) != mi {
			continue
		}
		k := c.Cells[d.Cell].Key
		r, ok := d.Ratio()
		if k.Phase != ph || !ok || r <= 0 {
			continue
		}
		lk := analysis.Key{Concurrency: k.Concurrency, RequestRate: k.RequestRate}
		if byLoad[lk] == nil {
			byLoad[lk] = &acc{}
			loads = append(loads, lk)
		}
		if byCtx[k.ContextLabel] == nil {
			byCtx[k.ContextLabel] = &acc{}
			ctxs = append(ctxs, k.ContextLabel)
		}
		for _, a := range []*acc{byLoad[lk], byCtx[k.ContextLabel]} {
			a.logSum += math.Log(r)
			a.n++
		}
	}
	if len(loads) < 2 && len(ctxs) < 2 {
		return ""
	}
	mean := func(a *acc) float64 { return math.Exp(a.logSum / float64(a.n)) }
	class := func(g float64) string {
		switch {
		case g > 1+tol:
			return "ahead"
		case g < 1-tol:
			return "behind"
		}
		return "level"
	}
	var parts []string
	if len(loads) > 1 {
		sortLoads(loads)
		var groups []string
		for i := 0; i < len(loads); {
			cl := class(mean(byLoad[loads[i]]))
			j := i
			lo, hi := mean(byLoad[loads[i]]), mean(byLoad[loads[i]])
			for j+1 < len(loads) && class(mean(byLoad[loads[j+1]])) == cl {
				j++
				lo, hi = min(lo, mean(byLoad[loads[j]])), max(hi, mean(byLoad[loads[j]]))
			}
			at := "at " + loadName(loads[i])
			if j > i {
				at += "–" + LoadText(loads[j])
			}
			if i == 0 && j == len(loads)-1 {
				at = "at every load"
			}
			groups = append(groups, fmt.Sprintf("%s %s (%s)", cl, at, ratioRange(lo, hi)))
			i = j + 1
		}
		parts = append(parts, "by load, "+joinAnd(groups))
	}
	if len(ctxs) > 1 {
		var cs []string
		same := true
		for _, ctx := range ctxs {
			t := ratioText(mean(byCtx[ctx]))
			same = same && t == ratioText(mean(byCtx[ctxs[0]]))
			cs = append(cs, t+" at "+ctx)
		}
		if same {
			cs = []string{ratioText(mean(byCtx[ctxs[0]])) + " at every context"}
		}
		parts = append(parts, "by context, "+joinAnd(cs))
	}
	return "Where: " + strings.Join(parts, "; ") + " (geometric means over the other axis)."
}

// loadName prints a load as "N = 8" (concurrency) or "4/s" (a rate).
func loadName(k analysis.Key) string {
	if k.RequestRate == 0 {
		return "N = " + LoadText(k)
	}
	return LoadText(k)
}

// ratioRange prints "0.47–0.81×", or one ratio when both ends print alike.
func ratioRange(lo, hi float64) string {
	a, b := ratioText(lo), ratioText(hi)
	if a == b {
		return a
	}
	return strings.TrimSuffix(a, "×") + "–" + b
}

// joinAnd joins "a, b and c".
func joinAnd(ss []string) string {
	if len(ss) < 2 {
		return strings.Join(ss, "")
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " and " + ss[len(ss)-1]
}
