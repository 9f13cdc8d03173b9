package main

import (
	"slices"

	"speedmatrix/schema"
)

// outcomeReread is the outcome printed for a run that was not added
// because the archive holds its source under other run ids.
const outcomeReread = "reread"

// readBefore returns the run ids under which the archive (bySource, by
// source SHA-256) holds the source of m when none of them is m's own: an
// earlier speedmatrix read the same bytes differently (a reader fixed
// since), and adding m would store one source twice. It sets m's run id
// when the source is known and the id not yet computed.
//
// Note: the run id is computed only for a source the archive already
// holds, so a new document costs one map lookup here.
func readBefore(bySource map[string][]string, m *schema.Matrix) []string {
	ids := bySource[m.Run.SourceSHA256]
	if m.Run.SourceSHA256 == "" || len(ids) == 0 {
		return nil
	}
	if m.Run.RunID == "" {
		m.Run.RunID = schema.ComputeRunID(m)
	}
	if slices.Contains(ids, m.Run.RunID) {
		return nil
	}
	return ids
}
