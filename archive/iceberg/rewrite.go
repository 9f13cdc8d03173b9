package iceberg

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"speedmatrix/archive"
)

// Rewrites of data files (Drop, and Maintain's compaction and removal of
// unseen rows) share one shape: a plan picks groups of the table's data
// files; each group is read one file after another, the rows kept are
// written as one new file (none when no row stays), and every group's
// files are replaced by its new file in one commit of the table (an
// overwrite snapshot), retried after conflicts. Memory holds one group's
// rows: a plan bounds it by the groups' row counts, never by the table.

// fileGroup is data files rewritten into one.
type fileGroup struct {
	paths []string
	// old reports, per path, whether its rows may be judged unseen (the
	// snapshot that added it is older than Maintain's grace).
	old []bool
}

// groupPlan picks the groups of one rewrite from t at snapshot sn.
type groupPlan func(ctx context.Context, t *table.Table, sn *table.Snapshot) ([]fileGroup, error)

// rewriteResult counts what one rewrite of a table replaced.
type rewriteResult struct {
	Replaced, Written int
	// Removed counts the rows no new file kept.
	Removed int64
}

// rewriteGroups replaces the groups plan picks in tbl by files holding
// the rows keep keeps (keep is told whether the row's file is old). A
// group of one file whose rows all stay is left as it is.
func rewriteGroups[T archive.Row](ctx context.Context, a *Archive, tbl, what string, plan groupPlan, keep func(r T, old bool) bool) (rewriteResult, error) {
	stem := newStem(time.Now().UTC())
	for attempt := 0; ; attempt++ {
		var res rewriteResult
		t, err := a.load(ctx, tbl)
		if err != nil {
			return res, err
		}
		sn := t.CurrentSnapshot()
		if sn == nil {
			return res, nil
		}
		var groups []fileGroup
		err = a.bounded(ctx, func(ctx context.Context) error {
			groups, err = plan(ctx, t, sn)
			return err
		})
		if err != nil {
			return res, fmt.Errorf("%s: plan %s: %w", tbl, what, err)
		}
		var olds, news []string
		for _, g := range groups {
			var read int64
			var kept [][]T // per file, each sorted by run_id as written
			for i, p := range g.paths {
				if slices.Contains(olds, p) {
					continue
				}
				var got []T
				err := a.bounded(ctx, func(ctx context.Context) error {
					fs, err := t.FS(ctx)
					if err != nil {
						return err
					}
					bf, c, err := openBlockFile(fs, p, 0)
					if err != nil {
						return err
					}
					defer c.Close()
					got, err = archive.ReadFrom[T](bf, Redact(p))
					return err
				})
				if err != nil {
					return res, fmt.Errorf("%s: read %s: %w", tbl, Redact(p), err)
				}
				old := i < len(g.old) && g.old[i]
				read += int64(len(got))
				kept = append(kept, slices.DeleteFunc(got, func(r T) bool { return !keep(r, old) }))
			}
			var n int64
			for _, k := range kept {
				n += int64(len(k))
			}
			if read == 0 && len(g.paths) <= 1 {
				continue
			}
			if len(g.paths) == 1 && n == read {
				continue // the bounds could hold a removed run; the file does not
			}
			olds = append(olds, g.paths...)
			res.Replaced += len(g.paths)
			res.Removed += read - n
			if n > 0 {
				name := stem + "-" + strconv.Itoa(attempt) + "-" + strconv.Itoa(len(news))
				loc, err := a.writeFile(ctx, t, name, mergeByRunID(kept, int(n)))
				if err != nil {
					return res, err
				}
				news = append(news, loc)
				res.Written++
			}
		}
		if len(olds) == 0 {
			return res, nil
		}
		token := "speedmatrix " + what + " " + stem + " " + strconv.Itoa(attempt)
		err = a.bounded(ctx, func(ctx context.Context) error {
			tx := t.NewTransaction()
			if err := tx.AssertRefSnapshotID(table.MainBranch); err != nil {
				return err
			}
			if err := tx.ReplaceDataFiles(ctx, olds, news, ice.Properties{snapshotKey: token}); err != nil {
				return err
			}
			_, err := tx.Commit(ctx)
			return err
		})
		if err == nil {
			return res, nil
		}
		conflict, ours := a.conflicted(ctx, tbl, sn, token)
		if ours {
			return res, nil
		}
		if !conflict {
			// Note: the commit state is unknown; the new files stay (an
			// orphan is harmless, -maintain removes it).
			return res, fmt.Errorf("commit %s: %w", tbl, err)
		}
		for _, n := range news {
			a.removeFile(ctx, t, n)
		}
		if attempt >= a.opt.Retries {
			return res, fmt.Errorf("commit %s: other writers committed first %d times in a row; run again: %w", tbl, attempt+1, err)
		}
		a.conflicts.Add(1)
		if err := backoff(ctx, attempt); err != nil {
			return res, err
		}
	}
}

// mergeByRunID merges rows sorted by run_id (each slice as its file
// holds them) into one slice of n rows sorted by run_id, a run's rows in
// their order, earlier slices first among equal ids.
//
// Note: a stable sort of the concatenation moved the wide rows around
// many times (runtime.memmove was 31% of Maintain's CPU at 5,000 runs);
// a merge copies each row once. A group has a few files, so the smallest
// head is found by a linear pass.
func mergeByRunID[T archive.Row](parts [][]T, n int) []T {
	out := make([]T, 0, n)
	for {
		best := -1
		for i, p := range parts {
			if len(p) > 0 && (best < 0 || rowRunID(p[0]) < rowRunID(parts[best][0])) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		// The rest of a run's rows follow its first in the same slice.
		p := parts[best]
		id, j := rowRunID(p[0]), 1
		for j < len(p) && rowRunID(p[j]) == id {
			j++
		}
		out = append(out, p[:j]...)
		parts[best] = p[j:]
	}
}

// liveFile is a data file of a table's current snapshot with what a
// rewrite plan needs of it.
type liveFile struct {
	path  string
	rows  int64
	added time.Time // when the snapshot that added it was made; zero when expired
}

// liveFiles lists the data files of snapshot sn of t, in the order of
// its manifests, reading the manifests only (no data file).
func liveFiles(ctx context.Context, t *table.Table, sn *table.Snapshot) ([]liveFile, error) {
	fs, err := t.FS(ctx)
	if err != nil {
		return nil, err
	}
	mfs, err := sn.Manifests(fs)
	if err != nil {
		return nil, err
	}
	md := t.Metadata()
	var out []liveFile
	for _, mf := range mfs {
		if mf.ManifestContent() != ice.ManifestContentData {
			continue
		}
		entries, err := mf.FetchEntries(fs, true)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			df := e.DataFile()
			if df.ContentType() != ice.EntryContentData {
				continue
			}
			f := liveFile{path: df.FilePath(), rows: df.Count()}
			if s := md.SnapshotByID(e.SnapshotID()); s != nil {
				f.added = time.UnixMilli(s.TimestampMs)
			}
			out = append(out, f)
		}
	}
	return out, nil
}
