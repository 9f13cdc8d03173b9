package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// ParseCell reads a cell as written on the command line:
// phase:context[:concurrency], such as "decode:8K:128" or "prefill:8K"
// (prefill cells default to concurrency 1, as the seeds print them).
func ParseCell(s string) (Key, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[1] == "" {
		return Key{}, fmt.Errorf("cell %q: want phase:context[:concurrency], such as decode:8K:128", s)
	}
	k := Key{Phase: schema.Phase(strings.ToLower(parts[0])), ContextLabel: parts[1]}
	if ContextTokens(parts[1]) <= 0 {
		return Key{}, fmt.Errorf("cell %q: context %q is not a token count such as 8K, 128K or 4096", s, parts[1])
	}
	switch k.Phase {
	case schema.PhasePrefill, schema.PhaseDecode, schema.PhaseServe:
	default:
		return Key{}, fmt.Errorf("cell %q: unknown phase %q (want prefill, decode or serve)", s, parts[0])
	}
	if len(parts) == 3 {
		n, err := strconv.ParseInt(parts[2], 10, 32)
		if err != nil || n <= 0 {
			return Key{}, fmt.Errorf("cell %q: concurrency %q is not a positive integer", s, parts[2])
		}
		k.Concurrency = int32(n)
	} else if k.Phase == schema.PhasePrefill {
		k.Concurrency = 1
	} else {
		return Key{}, fmt.Errorf("cell %q: a %s cell needs a concurrency (%s:%s:N)", s, k.Phase, k.Phase, k.ContextLabel)
	}
	return k, nil
}

// ParseThreshold reads a relative threshold: "5%" or "0.05".
func ParseThreshold(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("threshold %q: want a percentage such as 5%%", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

// TrendOrder is how a trend orders its runs.
type TrendOrder int

// The orders of a trend.
const (
	// ByVersion orders by engine version (CompareVersions), then date.
	ByVersion TrendOrder = iota
	// ByDate orders by run date, then engine version.
	ByDate
)

// TrendPoint is one run's figure for the trend's cell.
type TrendPoint struct {
	RunID         string
	Engine        string
	EngineVersion string
	Date          time.Time
	State         State
	// Value is NaN unless State is StateValue. ChangePct is the change
	// from the previous point with a value (NaN for the first); Flagged
	// is set when it exceeds the trend's threshold.
	Value, ChangePct float64
	Verdict          Verdict
	Flagged          bool
}

// Trend is one cell's metric across runs.
type Trend struct {
	Cell      Key
	Metric    Metric
	Threshold float64
	Order     TrendOrder
	Points    []TrendPoint
}

// BuildTrend follows one cell's metric across runs in the given order,
// flagging changes beyond threshold (relative, 0.05 for 5%) from the
// previous run with a figure.
func BuildTrend(runs []*schema.Matrix, cell Key, mt Metric, order TrendOrder, threshold float64) Trend {
	tr := Trend{Cell: cell, Metric: mt, Threshold: threshold, Order: order}
	for _, m := range runs {
		var c *Cell
		for i := range m.Measurements {
			x := &m.Measurements[i]
			if KeyOf(x) == cell {
				if c == nil {
					c = &Cell{Key: cell, Status: x.Status}
				}
				c.Rows = append(c.Rows, x)
				if x.Status == schema.StatusValid {
					c.Status = schema.StatusValid
				}
			}
		}
		st, v := stateOf(c, mt)
		if st != StateValue {
			v = math.NaN()
		}
		tr.Points = append(tr.Points, TrendPoint{RunID: m.Run.RunID, Engine: m.Run.Engine, EngineVersion: m.Run.EngineVersion,
			Date: RunDate(&m.Run), State: st, Value: v, ChangePct: math.NaN()})
	}
	slices.SortStableFunc(tr.Points, func(a, b TrendPoint) int {
		byVer := CompareVersions(a.EngineVersion, b.EngineVersion)
		// Undated runs sort after every dated one.
		byDate := cmp.Or(cmp.Compare(boolInt(a.Date.IsZero()), boolInt(b.Date.IsZero())), a.Date.Compare(b.Date))
		if order == ByDate {
			return cmp.Or(byDate, byVer, cmp.Compare(a.RunID, b.RunID))
		}
		return cmp.Or(byVer, byDate, cmp.Compare(a.RunID, b.RunID))
	})
	prev := math.NaN()
	for i := range tr.Points {
		p := &tr.Points[i]
		if p.State != StateValue {
			continue
		}
		if !math.IsNaN(prev) && prev != 0 {
			d := Delta{BaseState: StateValue, ValueState: StateValue, Baseline: prev, Value: p.Value}
			r, _ := d.Ratio()
			p.ChangePct = (r - 1) * 100
			p.Flagged = math.Abs(r-1) > threshold
			p.Verdict = verdict(&d, nil, mt, Options{SameWithin: threshold})
		}
		prev = p.Value
	}
	return tr
}

// SameSetup returns the runs that share ref's model and GPU (ignoring
// case), ref included, in their order: the series a trend follows.
func SameSetup(runs []schema.Run, ref *schema.Run) []schema.Run {
	var out []schema.Run
	for i := range runs {
		r := &runs[i]
		if strings.EqualFold(r.Model, ref.Model) && strings.EqualFold(r.GPU, ref.GPU) {
			out = append(out, *r)
		}
	}
	return out
}

// CompareVersions orders engine versions the way PEP 440 and SemVer
// agree: numeric release parts compared as numbers, then pre-releases
// (dev < a/alpha < b/beta < rc < final < post), with a ".devN" of a
// pre-release or post-release before it (0.30.1rc1.dev452 comes before
// 0.30.1rc1). A "+local" suffix only breaks ties, and a leading "v" is
// ignored. Versions that do not start with a number compare as text,
// after those that do.
//
// Note: golang.org/x/mod/semver needs "vMAJOR.MINOR.PATCH[-pre]" and
// rejects vLLM's PEP 440 versions (0.30.1rc1.dev452+g73a583112), and no
// PEP 440 package is in the module set; hence this small parser.
func CompareVersions(a, b string) int {
	va, oka := parseVersion(a)
	vb, okb := parseVersion(b)
	switch {
	case !oka && !okb:
		return cmp.Compare(a, b)
	case !oka:
		return 1
	case !okb:
		return -1
	}
	n := max(len(va.release), len(vb.release))
	for i := range n {
		var x, y int64
		if i < len(va.release) {
			x = va.release[i]
		}
		if i < len(vb.release) {
			y = vb.release[i]
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return cmp.Or(
		cmp.Compare(va.preKey(), vb.preKey()),
		cmp.Compare(va.preNum, vb.preNum),
		cmp.Compare(va.post, vb.post),
		cmp.Compare(va.dev, vb.dev),
		cmp.Compare(va.local, vb.local),
	)
}

type version struct {
	release []int64
	pre     int // 0 none, 1 a, 2 b, 3 rc
	preNum  int64
	post    int64 // -1 when none
	dev     int64 // math.MaxInt64 when none
	local   string
}

// preKey ranks the pre-release: a bare dev release (1.0.dev1) sorts
// before every pre-release of 1.0, a final release after them.
func (v version) preKey() int {
	switch {
	case v.pre > 0:
		return v.pre
	case v.post < 0 && v.dev != math.MaxInt64:
		return -1
	}
	return 4
}

func parseVersion(s string) (version, bool) {
	v := version{post: -1, dev: math.MaxInt64}
	s = strings.ToLower(strings.TrimSpace(s))
	s, v.local, _ = strings.Cut(s, "+")
	s = strings.TrimPrefix(s, "v")
	i := 0
	num := func() (int64, bool) {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if j == i {
			return 0, false
		}
		n, err := strconv.ParseInt(s[j:i], 10, 64)
		return n, err == nil
	}
	for {
		n, ok := num()
		if !ok {
			break
		}
		v.release = append(v.release, n)
		if i+1 < len(s) && s[i] == '.' && s[i+1] >= '0' && s[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	if len(v.release) == 0 {
		return v, false
	}
	for i < len(s) {
		for i < len(s) && (s[i] == '.' || s[i] == '-' || s[i] == '_') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
			i++
		}
		word := s[j:i]
		for i < len(s) && s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			i++ // semver "rc.1"
		}
		n, _ := num()
		switch word {
		case "a", "alpha":
			v.pre, v.preNum = 1, n
		case "b", "beta":
			v.pre, v.preNum = 2, n
		case "rc", "c", "pre", "preview":
			v.pre, v.preNum = 3, n
		case "post", "r", "rev":
			v.post = n
		case "dev":
			v.dev = n
		case "":
			if j == i && i < len(s) {
				i++ // skip a character we do not know
			}
		default:
			// Unknown words (a distro tag): ignore, keep reading.
		}
	}
	return v, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
