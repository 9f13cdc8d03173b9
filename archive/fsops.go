package archive

import (
	"os"
	"sync"
)

// The file-system steps of a write (rename, unlink, link, symlink,
// mkdir, fsync) go through these wrappers, so that a test can stop the
// process at any one of them (see stepHook) and check what a reader
// finds on disk afterwards.

var (
	stepMu sync.Mutex
	// stepHook, when set, is called before every file-system step of a
	// write with the step's name and path. The crash test sets it to
	// kill its own process at the n-th step (kill -9: no cleanup runs).
	stepHook func(op, path string)
)

func step(op, path string) {
	stepMu.Lock()
	h := stepHook
	stepMu.Unlock()
	if h != nil {
		h(op, path)
	}
}

func fsRename(from, to string) error {
	step("rename", to)
	return os.Rename(from, to)
}

func fsRemove(p string) error {
	step("unlink", p)
	return os.Remove(p)
}

func fsLink(from, to string) error {
	step("link", to)
	return os.Link(from, to)
}

func fsSymlink(target, p string) error {
	step("symlink", p)
	return os.Symlink(target, p)
}

func fsMkdir(p string) error {
	step("mkdir", p)
	return os.Mkdir(p, 0o755)
}

func fsSync(f *os.File) error {
	step("fsync", f.Name())
	return f.Sync()
}
