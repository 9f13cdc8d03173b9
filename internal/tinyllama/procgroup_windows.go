package tinyllama

import (
	"os"
	"syscall"
)

// groupAttr: Windows has no process groups to signal; Close kills the
// server process alone.
func groupAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, _ bool) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	_ = p.Kill()
	return nil
}
