package dashboard

import (
	"context"
	"strings"
	"sync"
	"time"

	"speedmatrix/archive"
	"speedmatrix/report"
)

// runRow is one run as the Runs view lists and filters it: the fields
// shown, copied out of schema.Run so the listing holds no launch flags
// or metadata lists.
type runRow struct {
	ID            string
	Date          time.Time // started_at, else ingested_at
	Measured      bool      // Date is when the run started, not when it was ingested
	Model         string
	GPU           string
	GPUCount      int // 0: not known
	Engine        string
	EngineVersion string
	Quantization  string
	Tool          string // bench tool and its version
	Title         string
	Cells         int
	// lower holds the filterable fields lower-cased (by filter key), text
	// all of them joined, for the free-text filter: computed once per
	// listing, not per request.
	lower [7]string // model, gpu, engine, version, quant, tool, title
	text  string
}

// listing is the archive's runs at one snapshot.
type listing struct {
	key  string
	rows []runRow
	byID map[string]int
	read time.Duration

	orderMu sync.Mutex
	orders  map[string][]int32 // row indexes sorted by a sort key, ascending
}

// listingCache holds the listing of the last state seen.
type listingCache struct {
	mu      sync.Mutex
	cur     *listing
	checked time.Time // when the state was last checked (Source.Refresh)
	// points caches Landscape's decode cells per run at cur's state.
	points map[string][]point
}

// get returns the listing at the archive's current state, reading it
// again only when the state changed. The state is checked at most once
// per Options.Recheck.
func (s *Server) get(ctx context.Context) (*listing, error) {
	c := &s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && s.recheck > 0 && time.Since(c.checked) < s.recheck {
		return c.cur, nil
	}
	key, err := s.src.Refresh(ctx)
	if err != nil {
		return nil, err
	}
	c.checked = time.Now()
	if c.cur != nil && c.cur.key == key {
		return c.cur, nil
	}
	l, err := readListing(ctx, s.src, key)
	if err != nil {
		return nil, err
	}
	c.cur, c.points = l, map[string][]point{}
	return l, nil
}

// readListing reads every run's listing columns (damaged files of a
// directory are skipped and recorded by the Server's Damaged), and the
// metadata of the runs whose GPU, engine or quantization only their
// metadata gives: report.FillListings, as compare -list fills them.
//
// Note: reading whole runs (Runs: launch flags, metadata lists) made the
// cold first page of a 100,000-run archive take 16.6 s (median of 3, a
// loaded 2-core machine) at 0.9–1.1 GB peak RSS; the listing, a few
// columns of the runs files and the metadata only of the runs with a
// blank to fill, takes 4.1 s at 250–265 MB (docs/serve.md).
func readListing(ctx context.Context, src Source, key string) (*listing, error) {
	start := time.Now()
	l := &listing{key: key}
	ls, err := src.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	filled := make([]report.RunListing, len(ls))
	for i := range ls {
		x := &ls[i]
		filled[i] = report.RunListing{RunID: x.RunID, Title: x.Title, Model: x.Model, GPU: x.GPU, Engine: x.Engine,
			EngineVersion: x.EngineVersion, Quantization: x.Quantization, BenchTool: x.BenchTool, GPUCount: x.GPUCount,
			StartedAt: x.StartedAt, IngestedAt: x.IngestedAt}
	}
	if err := report.FillListings(ctx, src, filled); err != nil {
		return nil, err
	}
	l.rows = make([]runRow, len(ls))
	l.byID = make(map[string]int, len(ls))
	for i := range ls {
		l.rows[i] = rowOf(&ls[i], &filled[i])
		l.byID[ls[i].RunID] = i
	}
	l.read = time.Since(start)
	return l, nil
}

// rowOf is the row of run x, its blank columns filled in f.
func rowOf(x *archive.Listing, f *report.RunListing) runRow {
	row := runRow{ID: x.RunID, Model: f.Model, GPU: f.GPU, Engine: f.Engine,
		EngineVersion: f.EngineVersion, Quantization: f.Quantization, Title: f.Title}
	row.Date, row.Measured = f.MeasuredAt()
	if f.GPUCount != nil {
		row.GPUCount = int(*f.GPUCount)
	}
	if x.Cells != nil {
		row.Cells = int(*x.Cells)
	}
	row.Tool = strings.TrimSpace(x.BenchTool + " " + x.BenchVersion)
	for i, k := range filterKeys[:len(row.lower)] {
		row.lower[i] = strings.ToLower(row.field(k))
	}
	row.text = strings.ToLower(strings.Join([]string{row.ID, row.Model, row.GPU, row.Engine,
		row.EngineVersion, row.Quantization, row.Tool, row.Title, x.Subtitle}, "\x00"))
	return row
}
