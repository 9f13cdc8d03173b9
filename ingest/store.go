package ingest

import (
	"context"
	"time"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// Appender is what Into needs of an archive: its runs' sources (for the
// reread check) and an idempotent append. A store.Store is one.
type Appender interface {
	ListRuns(ctx context.Context) ([]archive.Listing, error)
	Append(ctx context.Context, ms []*schema.Matrix) (archive.Result, error)
}

// Into parses the files and appends their runs to a in one Append, in
// the order of files, with the report Files makes (a line per run:
// added, duplicate, reread or error). It serves archives without
// package archive's streaming writer, such as a shared Iceberg table:
// there one Append is one commit per table, and the Append is
// idempotent, so a call killed midway adds each run once when run again.
//
// Note: the parsed documents are all held until the Append (one commit,
// not one per document: an Iceberg commit costs ~85 ms of CPU, see
// docs/iceberg-decision.md); a thousand documents of 46 rows are ~20 MB.
func Into(ctx context.Context, a Appender, files []string, opt Options) (*Report, error) {
	rep := new(Report)
	if len(files) == 0 {
		return rep, nil
	}
	docs := Parse(ctx, files, opt)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type line struct {
		m       *schema.Matrix // nil: no append (error or reread)
		id      string
		title   string
		rows    int
		outcome string
	}
	var (
		lines    []line
		ms       []*schema.Matrix
		bySource map[string][]string
	)
	now := time.Now().UTC().Truncate(time.Microsecond)
	for _, d := range docs {
		if d.Err != nil {
			if opt.Warn != nil {
				opt.Warn(d.Err)
			}
			rep.Failed = true
			lines = append(lines, line{id: "-", title: d.Name, outcome: "error"})
			continue
		}
		for _, m := range d.Runs {
			if bySource == nil {
				ls, err := a.ListRuns(ctx)
				if err != nil {
					return nil, err
				}
				bySource = map[string][]string{}
				for _, l := range ls {
					if l.SourceSHA256 != "" {
						bySource[l.SourceSHA256] = append(bySource[l.SourceSHA256], l.RunID)
					}
				}
			}
			m.Run.IngestedAt = now
			if old := readBefore(bySource, m); len(old) > 0 && !opt.Reread {
				if opt.Warn != nil {
					opt.Warn(&RereadError{Name: d.Name, RunID: m.Run.RunID, Old: old})
				}
				lines = append(lines, line{id: m.Run.RunID, title: oneLine(m.Run.Title), rows: len(m.Measurements), outcome: OutcomeReread})
				continue
			}
			lines = append(lines, line{m: m, title: oneLine(m.Run.Title), rows: len(m.Measurements)})
			ms = append(ms, m)
		}
	}
	if len(ms) > 0 {
		res, err := a.Append(ctx, ms)
		if err != nil {
			return nil, err
		}
		j := 0
		for i := range lines {
			if lines[i].m != nil {
				lines[i].id, lines[i].outcome = res.Items[j].RunID, string(res.Items[j].Outcome)
				j++
			}
		}
	}
	for _, l := range lines {
		rep.lines.appendf("%s\t%s\t%d rows\t%s\n", l.id, l.title, l.rows, l.outcome)
	}
	return rep, nil
}
