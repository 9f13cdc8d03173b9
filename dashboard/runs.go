package dashboard

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// filterKeys are the Runs view's filters, in the order its form shows
// them: each keeps the runs whose field holds the value (case-insensitive
// substring); q holds any field.
var filterKeys = []string{"model", "gpu", "engine", "version", "quant", "tool", "title", "q"}

// filterLabels are the filters' labels in the form.
var filterLabels = map[string]string{"model": "Model", "gpu": "GPU", "engine": "Engine", "version": "Version",
	"quant": "Quantization", "tool": "Tool", "title": "Title", "q": "Any field"}

// sortKeys are the columns a Runs view sorts by.
var sortKeys = []string{"date", "model", "gpu", "engine", "version", "quant", "tool", "title", "cells"}

// Page sizes.
const (
	defaultPer = 50
	maxPer     = 500
	maxFilter  = 200 // characters of one filter value
	maxSel     = 16  // runs one comparison takes
)

// runsQuery is a Runs view as its URL states it.
type runsQuery struct {
	Filters map[string]string // lower-cased values, only those set
	Raw     map[string]string // as typed
	Sort    string
	Desc    bool
	Page    int // from 1
	Per     int
	Sel     []string // selected run ids, in the order chosen
}

// parseRunsQuery reads a Runs view from the query, refusing a malformed
// one with the reason.
func parseRunsQuery(v url.Values) (*runsQuery, error) {
	q := &runsQuery{Filters: map[string]string{}, Raw: map[string]string{}, Sort: "date", Desc: true, Page: 1, Per: defaultPer}
	for _, k := range filterKeys {
		vs := v[k]
		if len(vs) > 1 {
			return nil, badRequest("filter %s given %d times: give it once", k, len(vs))
		}
		if len(vs) == 0 || strings.TrimSpace(vs[0]) == "" {
			continue
		}
		s := strings.TrimSpace(vs[0])
		if len(s) > maxFilter {
			return nil, badRequest("filter %s is %d characters long: at most %d", k, len(s), maxFilter)
		}
		q.Raw[k], q.Filters[k] = s, strings.ToLower(s)
	}
	if s := v.Get("sort"); s != "" {
		if !slices.Contains(sortKeys, s) {
			return nil, badRequest("sort=%q: unknown column; sort by one of %s", s, strings.Join(sortKeys, ", "))
		}
		q.Sort = s
		q.Desc = false
	}
	switch d := v.Get("dir"); d {
	case "":
	case "asc":
		q.Desc = false
	case "desc":
		q.Desc = true
	default:
		return nil, badRequest("dir=%q: want asc or desc", d)
	}
	var err error
	if s := v.Get("page"); s != "" {
		if q.Page, err = strconv.Atoi(s); err != nil || q.Page < 1 {
			return nil, badRequest("page=%q: want a page number from 1", s)
		}
	}
	if s := v.Get("per"); s != "" {
		if q.Per, err = strconv.Atoi(s); err != nil || q.Per < 1 || q.Per > maxPer {
			return nil, badRequest("per=%q: want a page size from 1 to %d", s, maxPer)
		}
	}
	seen := map[string]bool{}
	for _, id := range v["sel"] {
		if id == "" || seen[id] {
			continue
		}
		if !validID(id) {
			return nil, badRequest("sel=%q: not a run id (letters, digits, - and _ only)", id)
		}
		seen[id] = true
		q.Sel = append(q.Sel, id)
	}
	if len(q.Sel) > maxSel {
		return nil, badRequest("%d runs selected: one comparison takes at most %d", len(q.Sel), maxSel)
	}
	return q, nil
}

// validID reports whether s can be a run id (schema.ComputeRunID gives
// hex; archives from other writers may use other word characters).
func validID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// field returns the row's value a filter or sort key names.
func (r *runRow) field(k string) string {
	switch k {
	case "model":
		return r.Model
	case "gpu":
		return r.GPU
	case "engine":
		return r.Engine
	case "version":
		return r.EngineVersion
	case "quant":
		return r.Quantization
	case "tool":
		return r.Tool
	case "title":
		return r.Title
	}
	return ""
}

// match reports whether r passes every filter of q.
func (q *runsQuery) match(r *runRow) bool {
	for i, k := range filterKeys {
		v, ok := q.Filters[k]
		switch {
		case !ok:
		case k == "q":
			if !strings.Contains(r.text, v) {
				return false
			}
		case !strings.Contains(r.lower[i], v):
			return false
		}
	}
	return true
}

// filter returns the indexes of the listing's rows q keeps, sorted as q
// says.
//
// Note: the order of each sort key is computed once per listing and
// kept (order), so a page costs a filter pass, not a sort: on 100,000
// runs the warm first page went from 188 ms (sorting per request) to
// the figure docs/serve.md gives.
func (q *runsQuery) filter(l *listing) []int32 {
	order := l.order(q.Sort)
	idx := make([]int32, 0, len(order))
	if len(q.Filters) == 0 {
		idx = append(idx, order...)
	} else {
		for _, i := range order {
			if q.match(&l.rows[i]) {
				idx = append(idx, i)
			}
		}
	}
	if q.Desc {
		slices.Reverse(idx)
	}
	return idx
}

// order returns the rows' indexes sorted ascending by key (ties by run
// id), computing it on first use.
func (l *listing) order(key string) []int32 {
	l.orderMu.Lock()
	defer l.orderMu.Unlock()
	if o, ok := l.orders[key]; ok {
		return o
	}
	rows := l.rows
	o := make([]int32, len(rows))
	for i := range o {
		o[i] = int32(i)
	}
	cmpRows := func(a, b *runRow) int {
		switch key {
		case "date":
			return a.Date.Compare(b.Date)
		case "cells":
			return cmp.Compare(a.Cells, b.Cells)
		case "gpu":
			if c := strings.Compare(a.GPU, b.GPU); c != 0 {
				return c
			}
			return cmp.Compare(a.GPUCount, b.GPUCount)
		}
		return strings.Compare(a.field(key), b.field(key))
	}
	slices.SortFunc(o, func(i, j int32) int {
		if c := cmpRows(&rows[i], &rows[j]); c != 0 {
			return c
		}
		return strings.Compare(rows[i].ID, rows[j].ID)
	})
	if l.orders == nil {
		l.orders = map[string][]int32{}
	}
	l.orders[key] = o
	return o
}

// values is the query that states q, with over set on top (a key with
// the value "" is removed).
func (q *runsQuery) values(over map[string]string) url.Values {
	v := url.Values{}
	for k, s := range q.Raw {
		v.Set(k, s)
	}
	if q.Sort != "date" || !q.Desc {
		v.Set("sort", q.Sort)
		if q.Desc {
			v.Set("dir", "desc")
		} else {
			v.Set("dir", "asc")
		}
	}
	if q.Page != 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if q.Per != defaultPer {
		v.Set("per", strconv.Itoa(q.Per))
	}
	for _, id := range q.Sel {
		v.Add("sel", id)
	}
	for k, s := range over {
		if s == "" {
			v.Del(k)
		} else {
			v.Set(k, s)
		}
	}
	return v
}

// filterValues is the filters alone (for links from one view to another).
func (q *runsQuery) filterValues() url.Values {
	v := url.Values{}
	for k, s := range q.Raw {
		v.Set(k, s)
	}
	return v
}
