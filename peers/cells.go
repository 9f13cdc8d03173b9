package peers

import (
	"fmt"
	"math"
	"reflect"

	"speedmatrix/schema"
)

// cellKey identifies a cell for duplicate detection: phase, context,
// concurrency and request rate.
func cellKey(m *schema.Measurement) string {
	c, rr := "-", "-"
	if m.Concurrency != nil {
		c = fmt.Sprint(*m.Concurrency)
	}
	if m.RequestRate != nil {
		rr = fmt.Sprint(*m.RequestRate)
	}
	return fmt.Sprintf("%s|%s|%s|%s", m.Phase, m.ContextLabel, c, rr)
}

// checkPeerCells returns an error naming both lines when two rows of a
// peer file describe the same cell.
func checkPeerCells(name string, ms []schema.Measurement) error {
	seen := map[string]int64{}
	for i := range ms {
		k := cellKey(&ms[i])
		if prev, ok := seen[k]; ok {
			return errorf(name, int(ms[i].SourceLine), "duplicate %s cell (context %s, concurrency %s): already at line %d",
				ms[i].Phase, ms[i].ContextLabel, describeConcurrency(&ms[i]), prev)
		}
		seen[k] = ms[i].SourceLine
	}
	return nil
}

// numberRepeats gives the cells of one run of appended results (vLLM's
// --append-result, a sweep's array, SGLang's JSON Lines) that share a
// load repeat indices 0, 1, … in file order: one benchmark run again
// (splitRuns has put results of other configurations in other runs). A
// row whose figures repeat another's exactly is a duplicated row, an
// error naming both lines.
func numberRepeats(name string, ms []schema.Measurement) error {
	groups := map[string][]int{}
	var order []string
	for i := range ms {
		k := cellKey(&ms[i])
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		for n, j := range g[1:] {
			for _, p := range g[:n+1] {
				if sameFigures(&ms[p], &ms[j]) {
					return errorf(name, int(ms[j].SourceLine), "duplicate %s cell (context %s, concurrency %s): repeats line %d figure for figure",
						ms[j].Phase, ms[j].ContextLabel, describeConcurrency(&ms[j]), ms[p].SourceLine)
				}
			}
		}
		for r, j := range g {
			ms[j].Repeat = schema.I32(int32(r))
		}
	}
	return nil
}

// sameFigures reports whether two cells hold the same figures, wherever
// they were read.
func sameFigures(a, b *schema.Measurement) bool {
	x, y := *a, *b
	x.SourceLine, y.SourceLine, x.Repeat, y.Repeat = 0, 0, nil, nil
	return reflect.DeepEqual(x, y)
}

// describeConcurrency prints a cell's concurrency and request rate.
func describeConcurrency(m *schema.Measurement) string {
	s := "unbounded"
	if m.Concurrency != nil {
		s = fmt.Sprint(*m.Concurrency)
	}
	if m.RequestRate != nil {
		if math.IsInf(*m.RequestRate, 1) {
			s += ", request rate inf"
		} else {
			s += fmt.Sprintf(", request rate %g/s", *m.RequestRate)
		}
	}
	return s
}
