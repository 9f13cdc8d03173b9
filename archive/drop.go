package archive

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// Drop removes the runs ids from the archive, with their measurements
// and samples: it compacts the archive (see Compact) without them, under
// the exclusive lock, so a reader sees every run before the commit or
// none of ids after it, and a crash leaves one or the other. An id the
// archive does not hold fails the call with the archive unchanged.
//
// Dropping is the one way a stored run leaves the archive: a source that
// an earlier speedmatrix read differently is added beside its old reading
// only when asked (ingest -reread), and the old one is then dropped here.
//
// Note: a dropped run comes back if a file holding it is copied in from
// another host afterwards (files merge by copying, see Compact); drop it
// there too, or again after the copy.
func (a *Archive) Drop(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return a.compact(ctx, ids)
}

// without returns ms less the runs drop names, or an error naming the ids
// it does not hold.
func without(ms []*schema.Matrix, drop []string) ([]*schema.Matrix, error) {
	if len(drop) == 0 {
		return ms, nil
	}
	held := map[string]bool{}
	for _, m := range ms {
		held[m.Run.RunID] = true
	}
	var missing []string
	for _, id := range drop {
		if !held[id] && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("drop: the archive holds no run %s; nothing dropped", strings.Join(missing, ", "))
	}
	return slices.DeleteFunc(ms, func(m *schema.Matrix) bool { return slices.Contains(drop, m.Run.RunID) }), nil
}
