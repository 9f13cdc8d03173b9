package iceberg

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	ice "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// Appending a batch of runs: one Parquet file per table (written by the
// archive package, so the files are today's files), each committed as a
// fast append of that file. Iceberg commits one table at a time, so the
// order is the protocol: measurements, then samples, then runs, the
// commit marker. A reader that starts from the runs table (this package,
// compare) never sees a run without its measurements.
//
// Each table holds a run's rows at most once. Before each table's commit
// the writer reads which of the batch's run ids the table already holds
// (a scan of the run_id column, files pruned by the manifests' run_id
// bounds) and writes the rows of the others; the commit asserts that the
// table's head is still the snapshot it read, so a writer that committed
// in between (another host pushing the same runs) makes the commit fail,
// and the writer reads again and retries, up to Options.Retries times.
// A writer killed between tables leaves rows in measurements (or
// samples) of runs the runs table lacks; the next append of those runs
// finds them there and commits only what is missing.

// snapshotKey is the snapshot summary property naming the writer.
const snapshotKey = "speedmatrix.writer"

// batch is the rows of one Append, by table.
type batch struct {
	stem  string
	runs  []schema.Run
	meas  []schema.Measurement
	samps []schema.Sample
}

// Append adds the runs of ms that the archive does not hold, as
// archive.Archive.Append does: one Item per matrix (Duplicate for a run
// id the table or an earlier matrix holds). Result.Files lists the data
// files committed.
func (a *Archive) Append(ctx context.Context, ms []*schema.Matrix) (archive.Result, error) {
	res, err := a.append(ctx, ms)
	if err != nil {
		return res, a.wrap("append to", err)
	}
	return res, nil
}

func (a *Archive) append(ctx context.Context, ms []*schema.Matrix) (archive.Result, error) {
	var res archive.Result
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := batch{stem: newStem(now)}
	seen := map[string]bool{}
	for _, m := range ms {
		r, err := archive.PrepareRun(m, now)
		if err != nil {
			return res, err
		}
		res.Items = append(res.Items, archive.Item{RunID: r.RunID, Outcome: archive.Duplicate})
		if seen[r.RunID] {
			continue
		}
		seen[r.RunID] = true
		b.runs = append(b.runs, r)
		for _, x := range m.Measurements {
			x.RunID = r.RunID
			b.meas = append(b.meas, x)
		}
		for _, x := range m.Samples {
			x.RunID = r.RunID
			b.samps = append(b.samps, x)
		}
	}
	if len(b.runs) == 0 {
		return res, nil
	}
	// Rows sorted by run_id (a run's rows in their order), as the
	// archive's files are: the manifests' run_id bounds then prune.
	slices.SortStableFunc(b.runs, func(x, y schema.Run) int { return cmp.Compare(x.RunID, y.RunID) })
	slices.SortStableFunc(b.meas, func(x, y schema.Measurement) int { return cmp.Compare(x.RunID, y.RunID) })
	slices.SortStableFunc(b.samps, func(x, y schema.Sample) int { return cmp.Compare(x.RunID, y.RunID) })

	var err error
	var f string
	if f, _, err = commitTable(ctx, a, archive.TableMeasurements, b.stem, b.meas, func(x schema.Measurement) string { return x.RunID }); err != nil {
		return res, err
	}
	res.Files = appendNonEmpty(res.Files, f)
	if f, _, err = commitTable(ctx, a, archive.TableSamples, b.stem, b.samps, func(x schema.Sample) string { return x.RunID }); err != nil {
		return res, err
	}
	res.Files = appendNonEmpty(res.Files, f)
	f, added, err := commitTable(ctx, a, archive.TableRuns, b.stem, b.runs, func(x schema.Run) string { return x.RunID })
	if err != nil {
		return res, err
	}
	res.Files = appendNonEmpty(res.Files, f)
	for i := range res.Items {
		if added[res.Items[i].RunID] {
			res.Items[i].Outcome = archive.Added
			delete(added, res.Items[i].RunID) // a later matrix of the same id is a duplicate
		}
	}
	return res, nil
}

func appendNonEmpty(s []string, x string) []string {
	if x == "" {
		return s
	}
	return append(s, x)
}

// commitTable commits the rows of the run ids tbl lacks, retrying after
// conflicts; it returns the data file committed ("" when tbl held every
// run) and the run ids it added.
func commitTable[T archive.Row](ctx context.Context, a *Archive, tbl, stem string, rows []T, runID func(T) string) (string, map[string]bool, error) {
	if len(rows) == 0 {
		return "", nil, nil
	}
	ids := map[string]bool{}
	for _, r := range rows {
		ids[runID(r)] = true
	}
	var (
		written  string          // the data file written for want, if any
		wroteFor map[string]bool // the run ids it holds
	)
	removeWritten := func(t *table.Table) {
		if written != "" {
			a.removeFile(ctx, t, written)
			written = ""
		}
	}
	for attempt := 0; ; attempt++ {
		t, err := a.load(ctx, tbl)
		if err != nil {
			return "", nil, err
		}
		present, err := a.presentIDs(ctx, t, slices.Sorted(maps.Keys(ids)))
		if err != nil {
			return "", nil, err
		}
		want := map[string]bool{}
		for id := range ids {
			if !present[id] {
				want[id] = true
			}
		}
		if len(want) == 0 {
			removeWritten(t)
			return "", want, nil
		}
		if written == "" || !maps.Equal(want, wroteFor) {
			removeWritten(t)
			keep := rows
			if len(want) < len(ids) {
				keep = nil
				for _, r := range rows {
					if want[runID(r)] {
						keep = append(keep, r)
					}
				}
			}
			if a.onStep != nil {
				a.onStep("write", tbl, "")
			}
			name := stem
			if attempt > 0 {
				name += "-" + strconv.Itoa(attempt)
			}
			if written, err = a.writeFile(ctx, t, name, keep); err != nil {
				return "", nil, err
			}
			wroteFor = want
		}
		base := t.CurrentSnapshot()
		if a.beforeCommit != nil {
			a.beforeCommit(tbl)
		}
		if a.onStep != nil {
			a.onStep("commit", tbl, written)
		}
		token := "speedmatrix " + stem + " " + strconv.Itoa(attempt)
		err = a.bounded(ctx, func(ctx context.Context) error {
			tx := t.NewTransaction()
			if err := tx.AssertRefSnapshotID(table.MainBranch); err != nil {
				return err
			}
			props := ice.Properties{snapshotKey: token}
			if err := tx.AddFiles(ctx, []string{written}, props, true); err != nil {
				return err
			}
			_, err := tx.Commit(ctx)
			return err
		})
		if err == nil {
			if a.onStep != nil {
				a.onStep("committed", tbl, written)
			}
			return written, want, nil
		}
		conflict, ours := a.conflicted(ctx, tbl, base, token)
		if ours {
			// The catalog took the commit but its answer was lost.
			return written, want, nil
		}
		if !conflict {
			// Note: the commit state is unknown (the catalog may have
			// taken it), so the data file stays: removing it could
			// break a committed snapshot; an orphan is harmless.
			return "", nil, fmt.Errorf("commit %s: %w", tbl, err)
		}
		a.conflicts.Add(1)
		if attempt >= a.opt.Retries {
			removeWritten(t)
			return "", nil, fmt.Errorf("commit %s: other writers committed first %d times in a row; run again: %w", tbl, attempt+1, err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return "", nil, err
		}
	}
}

// backoff waits before a commit's attempt+1st retry, longer after each,
// with jitter so that writers that collided spread out; it returns the
// context's cause if ctx ends first.
func backoff(ctx context.Context, attempt int) error {
	wait := time.Duration(25<<min(attempt, 6))*time.Millisecond + randDuration(50*time.Millisecond)
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(wait):
		return nil
	}
}

// conflicted reports, after a failed commit, whether tbl's head moved
// away from base (another writer committed first) and whether a snapshot
// carrying token is in the table (the commit took, its answer was lost).
func (a *Archive) conflicted(ctx context.Context, tbl string, base *table.Snapshot, token string) (conflict, ours bool) {
	t, err := a.load(ctx, tbl)
	if err != nil {
		return false, false
	}
	for _, sn := range t.Metadata().Snapshots() {
		if sn.Summary != nil && sn.Summary.Properties[snapshotKey] == token {
			return true, true
		}
	}
	now := t.CurrentSnapshot()
	switch {
	case base == nil:
		return now != nil, false
	case now == nil:
		return false, false
	}
	return now.SnapshotID != base.SnapshotID, false
}

// presentIDs returns which of ids t holds rows of, at its current
// snapshot: a scan of run_id, data files pruned by the manifests' run_id
// bounds.
func (a *Archive) presentIDs(ctx context.Context, t *table.Table, ids []string) (map[string]bool, error) {
	if t.CurrentSnapshot() == nil || len(ids) == 0 {
		return map[string]bool{}, nil
	}
	return a.heldIDs(ctx, t, t.CurrentSnapshot().SnapshotID, ids)
}

// writeFile writes rows as the table's data file named stem and returns
// its location.
func (a *Archive) writeFile(ctx context.Context, t *table.Table, stem string, rows any) (string, error) {
	loc := strings.TrimSuffix(t.Location(), "/") + "/data/" + stem + ".parquet"
	err := a.bounded(ctx, func(ctx context.Context) error {
		fs, err := t.FS(ctx)
		if err != nil {
			return err
		}
		wfs, ok := fs.(iceio.WriteFileIO)
		if !ok {
			return errors.New("the warehouse's file system cannot write")
		}
		w, err := wfs.Create(loc)
		if err != nil {
			return err
		}
		switch rs := rows.(type) {
		case []schema.Run:
			err = archive.WriteFile(w, rs)
		case []schema.Measurement:
			err = archive.WriteFile(w, rs)
		case []schema.Sample:
			err = archive.WriteFile(w, rs)
		default:
			err = fmt.Errorf("no table for %T", rows)
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("write %s: %w", Redact(loc), err)
	}
	return loc, nil
}

// removeFile deletes a data file no commit references (best effort:
// an orphan only costs space, and orphan removal finds it).
func (a *Archive) removeFile(ctx context.Context, t *table.Table, loc string) {
	_ = a.bounded(ctx, func(ctx context.Context) error {
		fs, err := t.FS(ctx)
		if err != nil {
			return err
		}
		return fs.Remove(loc)
	})
}

// newStem names a batch's data files: UTC time to the microsecond, host,
// process id and 64 random bits, as the directory archive names them.
func newStem(now time.Time) string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, host)
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	return "part-" + now.Format("20060102T150405.000000Z") + "-" + host + "-" +
		strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(rnd[:])
}

func randDuration(max time.Duration) time.Duration {
	var b [8]byte
	_, _ = rand.Read(b[:])
	n := int64(0)
	for _, x := range b {
		n = n<<8 | int64(x)
	}
	if n < 0 {
		n = -n
	}
	return time.Duration(n % int64(max))
}
