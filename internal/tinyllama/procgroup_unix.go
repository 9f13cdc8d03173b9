//go:build unix

package tinyllama

import (
	"errors"
	"syscall"
)

// groupAttr starts the server in a process group of its own, so that
// signalGroup reaches the llama.cpp runner it spawns too; on Linux the
// server is also killed if the test process dies first (a test binary
// killed by -timeout runs no cleanups).
//
// Note: the death signal reaches `ollama serve` only; its runner child,
// reparented, lives on until killed. Tests bound their own time well
// inside go test's -timeout so that their cleanups (Close: the whole
// group) always run.
func groupAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(a)
	return a
}

// signalGroup sends SIGTERM (or SIGKILL when kill) to the process group
// pid leads; a group already gone is no error.
func signalGroup(pid int, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
