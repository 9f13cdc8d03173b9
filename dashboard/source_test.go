package dashboard

import (
	"speedmatrix/archive"
	"speedmatrix/archive/store"
)

// newServer is the dashboard over the directory archive a as serve sets
// it up: damaged files skipped and named.
func newServer(a *archive.Archive, opt Options) *Server {
	s := New(store.Wrap(a), opt)
	a.SkipDamaged, a.OnDamaged = true, s.Damaged
	return s
}
