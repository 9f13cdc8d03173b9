package iceberg

import (
	"context"
	"slices"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// PushBatch is how many runs Push loads from the local archive and
// appends in one Append (three commits).
const PushBatch = 500

// Push publishes the runs of the local directory archive that a lacks:
// it lists both, then loads and appends the missing runs in batches of
// PushBatch. Every batch is an idempotent Append, so a push killed
// midway resumes where it stopped when run again, and two hosts pushing
// the same runs at once add each run once. The Result has one Item per
// local run (Duplicate for those a held).
func (a *Archive) Push(ctx context.Context, local *archive.Archive) (archive.Result, error) {
	var res archive.Result
	list, err := local.ListRuns(ctx)
	if err != nil {
		return res, err
	}
	s, err := a.Snapshot(ctx)
	if err != nil {
		return res, err
	}
	held, err := scanPinned[schema.Run](ctx, a, s.runs, nil, []string{"run_id"})
	if err != nil {
		return res, a.wrap("push to", err)
	}
	have := map[string]bool{}
	for _, r := range held {
		have[r.RunID] = true
	}
	var missing []string
	for _, l := range list {
		if have[l.RunID] {
			res.Items = append(res.Items, archive.Item{RunID: l.RunID, Outcome: archive.Duplicate})
		} else {
			missing = append(missing, l.RunID)
		}
	}
	for batch := range slices.Chunk(missing, PushBatch) {
		ms, err := local.Load(ctx, batch...)
		if err != nil {
			return res, err
		}
		r, err := a.Append(ctx, ms)
		res.Items = append(res.Items, r.Items...)
		res.Files = append(res.Files, r.Files...)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}
