package ingest

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// RereadError says that a run was not added because the archive holds its
// source (the same SHA-256) under other run ids: an earlier speedmatrix
// read the same bytes differently (a reader fixed since), and adding it
// would store one source twice. Options.Reread adds it beside them.
type RereadError struct {
	Name  string   // the file
	RunID string   // the run as read now
	Old   []string // the run ids the archive holds the source under
}

func (e *RereadError) Error() string {
	return fmt.Sprintf("%s: run %s: the archive holds this source as run %s, read differently by an earlier speedmatrix; not added",
		e.Name, e.RunID, strings.Join(e.Old, ", "))
}

// readBefore returns the run ids under which the archive (bySource, by
// source SHA-256) holds the source of m when none of them is m's own. It
// sets m's run id when the source is known and the id not yet computed.
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
