//go:build unix && !linux

package tinyllama

import "syscall"

func setDeathSignal(*syscall.SysProcAttr) {}
