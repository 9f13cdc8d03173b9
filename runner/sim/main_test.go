package sim

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// rawClientEnv, when set in the environment as "addr,streams,tokens",
// makes the test binary a raw streaming client instead of running tests:
// BenchmarkServerCPU runs the client in a child process so the CPU it
// measures in its own process is the server's alone.
const rawClientEnv = "SPEEDMATRIX_SIM_RAW_CLIENT"

func TestMain(m *testing.M) {
	if spec := os.Getenv(rawClientEnv); spec != "" {
		os.Exit(rawClientMain(spec))
	}
	os.Exit(m.Run())
}

// rawClientMain runs `streams` concurrent raw streams of `tokens` tokens
// against addr and returns the exit code (1 if any stream failed).
func rawClientMain(spec string) int {
	parts := strings.Split(spec, ",")
	if len(parts) != 3 {
		fmt.Fprintln(os.Stderr, "want addr,streams,tokens:", spec)
		return 2
	}
	streams, err1 := strconv.Atoi(parts[1])
	tokens, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "bad numbers:", spec)
		return 2
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for range streams {
		wg.Go(func() {
			_, done, err := rawStream(parts[0], tokens, make([]byte, 32<<10))
			if err != nil || !done {
				mu.Lock()
				failed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "%d of %d streams failed\n", failed, streams)
		return 1
	}
	return 0
}
