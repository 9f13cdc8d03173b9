package testtool

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// spin burns CPU until the process's own CPU time grew by d, and returns
// how long that took on the wall clock.
func spin(d time.Duration) time.Duration {
	start, c0 := time.Now(), CPU()
	x := 1
	for CPU()-c0 < d && time.Since(start) < 20*d {
		for i := 0; i < 1_000_000; i++ {
			x = x*31 + i
		}
	}
	if x == 42 {
		println() // keeps the loop
	}
	return time.Since(start)
}

func TestCPUGrows(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Skip("no CPU time on", runtime.GOOS)
	}
	c0 := CPU()
	spin(50 * time.Millisecond)
	if got := CPU() - c0; got < 40*time.Millisecond {
		t.Errorf("CPU grew by %v while the process spun for 50ms of CPU", got)
	}
	if u, _ := Self(); u <= 0 {
		t.Errorf("Self user time %v", u)
	}
}

// TestChild runs this test binary as a child that holds 64 MB and spins,
// and checks what Child reads back from its exit.
func TestChild(t *testing.T) {
	if os.Getenv("USAGE_CHILD") == "1" {
		b := make([]byte, 64<<20)
		for i := range b {
			b[i] = byte(i)
		}
		spin(50 * time.Millisecond)
		runtime.KeepAlive(b)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestChild$")
	cmd.Env = append(os.Environ(), "USAGE_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	cpu, peak := Child(cmd.ProcessState)
	if cpu < 40*time.Millisecond {
		t.Errorf("child CPU %v, want at least the 50ms it spun", cpu)
	}
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd":
		if peak < 64<<20 || peak > 4<<30 {
			t.Errorf("child peak RSS %d bytes, want at least the 64 MB it touched (and not kilobytes read as bytes)", peak)
		}
	default:
		if peak != 0 {
			t.Errorf("child peak RSS %d on %s, which does not report it", peak, runtime.GOOS)
		}
	}
}
