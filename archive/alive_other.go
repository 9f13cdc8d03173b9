//go:build !unix

package archive

import "os"

// alive reports whether process pid (of this host) exists. On Windows
// os.FindProcess opens the process and fails when there is none; where
// it cannot tell (it always succeeds), the holder is kept, which only
// names a holder that may be gone.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
