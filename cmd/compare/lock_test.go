package comparecmd

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
)

// TestLockMessageAndTimeout: a compare waiting for an archive a writer
// holds names the writer (pid, host, since) after a second, as ingest
// does; -lock-timeout gives up with exit 1; without it compare waits and
// answers once the lock is free.
func TestLockMessageAndTimeout(t *testing.T) {
	dir, ms := newArchive(t)
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := a.NewWriter(context.Background()) // holds the write lock until Close
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()

	start := time.Now()
	code, out, errOut := runCmd(t, "", "-archive", dir, "-lock-timeout", "1500ms", "-list")
	if code != exitFail || out != "" {
		t.Fatalf("-lock-timeout under a held lock: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if waited := time.Since(start); waited < 1500*time.Millisecond {
		t.Errorf("gave up after %v", waited)
	}
	for _, want := range []string{"compare: waiting for the lock of " + dir + ", held by ",
		"(pid " + strconv.Itoa(os.Getpid()) + " on " + host + ", writing since ", "not acquired in time after 1.5s"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(errOut, "waiting for the lock"); n != 1 {
		t.Errorf("the wait is announced %d times, want once:\n%s", n, errOut)
	}

	// Without a bound: it waits, says so, and answers once the lock is free.
	go func() {
		time.Sleep(1300 * time.Millisecond)
		if _, err := w.Close(); err != nil {
			t.Error(err)
		}
	}()
	code, out, errOut = runCmd(t, "", "-archive", dir, "-list")
	if code != exitOK || !strings.Contains(out, ms[0].Run.RunID) || !strings.Contains(errOut, "compare: waiting for the lock") {
		t.Fatalf("waiting compare: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}
