//go:build !unix

package archive

import (
	"os"
	"os/exec"
)

// canKill is false: without Unix signals a child's death by kill -9
// cannot be told from its own exit, so the kill test does not run.
const canKill = false

// killSelf ends this process as abruptly as the platform allows.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
}

// killedBySignal is false: see canKill.
func killedBySignal(*exec.ExitError) bool { return false }
