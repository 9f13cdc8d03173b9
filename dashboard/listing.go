package dashboard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"speedmatrix/archive"
	"speedmatrix/schema"
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

// listingCache holds the listing of the last snapshot seen.
type listingCache struct {
	mu  sync.Mutex
	cur *listing
	// points caches Landscape's decode cells per run at cur's snapshot.
	points map[string][]point
}

// snapshotKey names the archive's state: the published snapshot, and
// the runs directory's modification time for archives written without
// snapshots (or copied in by hand).
func snapshotKey(a *archive.Archive) string {
	name, _, err := a.Snapshot()
	if err != nil {
		name = "error:" + err.Error()
	}
	var mod string
	if st, err := os.Stat(filepath.Join(a.Dir(), archive.TableRuns)); err == nil {
		mod = st.ModTime().UTC().Format(time.RFC3339Nano)
	}
	return name + "|" + mod
}

// get returns the listing at the archive's current snapshot, reading it
// again only when the snapshot changed.
func (c *listingCache) get(ctx context.Context, a *archive.Archive) (*listing, error) {
	key := snapshotKey(a)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && c.cur.key == key {
		return c.cur, nil
	}
	l, err := readListing(ctx, a, key)
	if err != nil {
		return nil, err
	}
	c.cur, c.points = l, map[string][]point{}
	return l, nil
}

// readListing reads every run of a (damaged files are skipped and
// recorded by the Server's OnDamaged).
func readListing(ctx context.Context, a *archive.Archive, key string) (*listing, error) {
	start := time.Now()
	l := &listing{key: key}
	runs, err := a.Runs(ctx)
	if err != nil {
		return nil, err
	}
	l.rows = make([]runRow, len(runs))
	l.byID = make(map[string]int, len(runs))
	for i := range runs {
		l.rows[i] = rowOf(&runs[i])
		l.byID[runs[i].RunID] = i
	}
	l.read = time.Since(start)
	return l, nil
}

// rowOf copies the listed fields of r.
func rowOf(r *schema.Run) runRow {
	row := runRow{ID: r.RunID, Date: r.IngestedAt, Model: r.Model, GPU: r.GPU, Engine: r.Engine,
		EngineVersion: r.EngineVersion, Quantization: r.Quantization, Title: r.Title}
	if r.StartedAt != nil {
		row.Date, row.Measured = *r.StartedAt, true
	}
	if r.GPUCount != nil {
		row.GPUCount = int(*r.GPUCount)
	}
	if r.Cells != nil {
		row.Cells = int(*r.Cells)
	}
	row.Tool = strings.TrimSpace(r.BenchTool + " " + r.BenchVersion)
	for i, k := range filterKeys[:len(row.lower)] {
		row.lower[i] = strings.ToLower(row.field(k))
	}
	row.text = strings.ToLower(strings.Join([]string{row.ID, row.Model, row.GPU, row.Engine,
		row.EngineVersion, row.Quantization, row.Tool, row.Title, r.Subtitle}, "\x00"))
	return row
}
