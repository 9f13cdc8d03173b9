//go:build unix

package archive

import (
	"os"
	"os/exec"
	"syscall"
)

// canKill: a test process can die by SIGKILL here, as kill -9 kills it.
const canKill = true

// killSelf sends this process SIGKILL.
func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// killedBySignal reports whether the child ended by a signal.
func killedBySignal(ee *exec.ExitError) bool {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}
