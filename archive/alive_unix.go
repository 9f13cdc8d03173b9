//go:build unix

package archive

import (
	"errors"
	"syscall"
)

// alive reports whether process pid (of this host) exists: signal 0
// checks without sending anything; EPERM means it exists as another user's.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
