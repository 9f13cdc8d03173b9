package ingestcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"speedmatrix/archive"
	"speedmatrix/archive/iceberg"
	"speedmatrix/archive/store"
	"speedmatrix/ingest"
)

// The shared archive (docs/iceberg.md): -archive takes a table reference
// (iceberg+sqlite:…, iceberg+postgres://…, iceberg+rest://…) as well as a
// directory; -push publishes a local directory archive's runs to a
// table; -maintain expires a table's old snapshots and removes its
// orphan files.

// sharedFlags are the flags of the shared archive.
type sharedFlags struct {
	push     string
	maintain bool
	grace    time.Duration
}

func addSharedFlags(fs *flag.FlagSet) *sharedFlags {
	s := new(sharedFlags)
	fs.StringVar(&s.push, "push", "", "publish the runs of the -archive directory that the shared table `REF` (iceberg+…) lacks, and print a line for each run")
	fs.BoolVar(&s.maintain, "maintain", false, "for an -archive table (iceberg+…): expire snapshots older than -grace and remove files no snapshot references (orphans of killed writers)")
	fs.DurationVar(&s.grace, "grace", iceberg.DefaultGrace, "with -maintain: keep snapshots and unreferenced files younger than this (readers and writers in flight)")
	return s
}

// wanted reports whether a shared-archive action replaces ingesting.
func (s *sharedFlags) wanted() bool { return s.push != "" || s.maintain }

// run does -push or -maintain. other says whether FILEs or another action
// were given too.
func (s *sharedFlags) run(ctx context.Context, dir string, other bool, stdout, stderr io.Writer) int {
	switch {
	case s.push != "" && s.maintain, other:
		fmt.Fprintln(stderr, "ingest: -push and -maintain each work alone: no FILEs, -json, -compact, -check, -drop or each other")
		return exitUsage
	case s.push != "" && !store.IsTable(s.push):
		fmt.Fprintf(stderr, "ingest: -push %s: not a table reference (iceberg+sqlite:///path/catalog.db, iceberg+postgres://host/db?warehouse=s3://bucket/prefix, see docs/iceberg.md)\n", s.push)
		return exitUsage
	case s.push != "" && store.IsTable(dir):
		fmt.Fprintln(stderr, "ingest: -push publishes a local directory archive: give it as -archive DIR")
		return exitUsage
	case s.maintain && !store.IsTable(dir):
		fmt.Fprintf(stderr, "ingest: -maintain is for a table (-archive iceberg+…); a directory archive compacts with -compact\n")
		return exitUsage
	case s.grace < 0:
		fmt.Fprintln(stderr, "ingest: -grace must not be negative")
		return exitUsage
	}
	if s.maintain {
		return maintain(ctx, dir, s.grace, stdout, stderr)
	}
	return push(ctx, dir, s.push, stdout, stderr)
}

// push publishes the local archive dir's runs to the table ref.
func push(ctx context.Context, dir, ref string, stdout, stderr io.Writer) int {
	local, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		fmt.Fprintln(stderr, "ingest: -push:", err)
		return exitFail
	}
	dst, err := store.Open(ctx, ref, store.Options{Create: true})
	if err != nil {
		fmt.Fprintln(stderr, "ingest: -push:", err)
		return exitFail
	}
	defer dst.Close()
	res, err := store.Table(dst).Push(ctx, store.Dir(local))
	added := 0
	for _, it := range res.Items {
		fmt.Fprintf(stdout, "%s\t%s\n", it.RunID, it.Outcome)
		if it.Outcome == archive.Added {
			added++
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "ingest: -push: %v\n(run it again: runs already pushed are not sent twice)\n", err)
		return exitFail
	}
	switch {
	case len(res.Items) == 0:
		fmt.Fprintf(stderr, "ingest: -push: %s holds no runs\n", dir)
	case added == 0:
		fmt.Fprintf(stderr, "ingest: -push: %s already holds all %d runs of %s: nothing added\n", dst, len(res.Items), dir)
	default:
		fmt.Fprintf(stderr, "ingest: -push: %d of %d runs added to %s (%d held already)\n", added, len(res.Items), dst, len(res.Items)-added)
	}
	return exitOK
}

// maintain runs -maintain on the table ref: a line per table and one per
// orphan file removed.
func maintain(ctx context.Context, ref string, grace time.Duration, stdout, stderr io.Writer) int {
	s, err := store.Open(ctx, ref, store.Options{})
	if err != nil {
		fmt.Fprintln(stderr, "ingest: -maintain:", err)
		return exitFail
	}
	defer s.Close()
	ms, err := store.Table(s).Maintain(ctx, grace, false)
	for _, m := range ms {
		for _, p := range m.Orphans {
			fmt.Fprintf(stdout, "removed\t%s\n", iceberg.Redact(p))
		}
		fmt.Fprintf(stdout, "%s\t%d → %d data files compacted\t%d unseen rows removed\t%d → %d manifests\t%d → %d snapshots\t%d orphan files (%d bytes) removed\n",
			m.Table, m.Compacted, m.Written, m.UnseenRows, m.ManifestsBefore, m.ManifestsAfter,
			m.SnapshotsBefore, m.SnapshotsAfter, len(m.Orphans), m.OrphanBytes)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ingest: -maintain:", err)
		return exitFail
	}
	return exitOK
}

// tableOptions are the flags an ingest into a table honours.
type tableOptions struct {
	check, compact, skipDamaged, moveDamaged bool
	drop                                     string
	opt                                      ingest.Options
}

// ingestTable is ingest with -archive naming a table: the files' runs in
// one idempotent append (ingest.Into), -check (every run and row of the
// pinned snapshot reads) or -drop (iceberg.Archive.Drop).
func ingestTable(ctx context.Context, ref string, files []string, o tableOptions, stdout, stderr io.Writer) int {
	switch {
	case o.compact:
		fmt.Fprintln(stderr, "ingest: -compact is for a directory archive; a table's small files and snapshots: -maintain")
		return exitUsage
	case o.skipDamaged || o.moveDamaged:
		fmt.Fprintln(stderr, "ingest: -skip-damaged and -move-damaged are for a directory archive")
		return exitUsage
	}
	s, err := store.Open(ctx, ref, store.Options{Create: !o.check && o.drop == ""})
	if err != nil {
		fmt.Fprintln(stderr, "ingest:", err)
		return exitFail
	}
	defer s.Close()
	if o.check {
		return checkTable(ctx, s, stderr)
	}
	if o.drop != "" {
		ids, err := dropIDs(o.drop)
		if err != nil {
			fmt.Fprintln(stderr, "ingest:", err)
			return exitUsage
		}
		return dropRuns(ctx, s, ids, stdout, stderr)
	}
	rep, err := ingest.Into(ctx, s, files, o.opt)
	if err == nil {
		_, err = rep.WriteTo(stdout)
		rep.Close()
	}
	if err != nil {
		fmt.Fprintln(stderr, "ingest:", err)
		return exitFail
	}
	return exitCode(rep.Failed)
}

// checkTable reads every run of the table with its rows, a batch at a time.
func checkTable(ctx context.Context, s store.Store, stderr io.Writer) int {
	runs, err := s.Runs(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "ingest: check:", err)
		return exitFail
	}
	rows := 0
	for i := 0; i < len(runs); i += iceberg.PushBatch {
		var ids []string
		for _, r := range runs[i:min(i+iceberg.PushBatch, len(runs))] {
			ids = append(ids, r.RunID)
		}
		ms, err := s.Load(ctx, ids...)
		if err != nil {
			fmt.Fprintln(stderr, "ingest: check:", err)
			return exitFail
		}
		for _, m := range ms {
			rows += len(m.Measurements) + len(m.Samples)
		}
	}
	fmt.Fprintf(stderr, "ingest: check: every run of %s reads (%d runs, %d measurement and sample rows)\n", s, len(runs), rows)
	return exitOK
}
