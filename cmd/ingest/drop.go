package ingestcmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"speedmatrix/schema"
)

// outcomeDropped is the outcome printed for a run -drop removed.
const outcomeDropped = "dropped"

// dropIDs splits -drop's comma-separated run ids, refusing an empty one.
func dropIDs(list string) ([]string, error) {
	var ids []string
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			return nil, fmt.Errorf("-drop %q: an empty run id", list)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// dropRuns removes the runs ids from the archive (archive.Drop) and prints
// a line per run removed, as ingest prints a run it adds (run id, title,
// rows, "dropped"). An id the archive does not hold removes nothing.
func dropRuns(ctx context.Context, a dropper, ids []string, stdout, stderr io.Writer) int {
	ms, err := a.Drop(ctx, ids)
	if err != nil {
		fmt.Fprintln(stderr, "ingest:", explain(err, a.String()))
		return exitFail
	}
	for _, m := range ms {
		fmt.Fprintf(stdout, "%s\t%s\t%d rows\t%s\n", m.Run.RunID, m.Run.Title, len(m.Measurements), outcomeDropped)
	}
	return exitOK
}

// dropper is what -drop needs of an archive (a store.Store).
type dropper interface {
	Drop(ctx context.Context, ids []string) ([]*schema.Matrix, error)
	String() string
}
