package runcmd

import (
	"errors"
	"fmt"
	"strings"

	"speedmatrix/schema"
)

// errNoFigure fails a run none of whose cells produced a figure.
var errNoFigure = errors.New("no cell produced a figure")

// noFigure judges a committed run: it returns errNoFigure with the
// cells' statuses and the first reason of the most common one on one line
// ("2 error, 1 over_capacity; first error: HTTP 500: …"), or nil when
// some cell is valid (a run whose every request failed: HTTP 500, 429,
// an error event, a closed connection).
func noFigure(m *schema.Matrix) error {
	if len(m.Measurements) == 0 {
		return fmt.Errorf("%w: the run has no cells", errNoFigure)
	}
	var order []schema.Status
	count := map[schema.Status]int{}
	first := map[schema.Status]string{}
	for _, x := range m.Measurements {
		if x.Status == schema.StatusValid {
			return nil
		}
		if count[x.Status] == 0 {
			order = append(order, x.Status)
			first[x.Status] = x.StatusReason
		}
		count[x.Status]++
	}
	most := order[0]
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%d %s", count[s], s)
		if count[s] > count[most] {
			most = s
		}
	}
	msg := strings.Join(parts, ", ")
	if why := strings.Join(strings.Fields(first[most]), " "); why != "" {
		msg += fmt.Sprintf("; first %s: %s", most, why)
	}
	return fmt.Errorf("%w: %s", errNoFigure, msg)
}
