package ingestcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
)

// holdLock takes the archive's lock as another writer would (flock on
// DIR/.lock and a record in DIR/.holders) and returns its release.
func holdLock(t *testing.T, dir string) func() {
	t.Helper()
	if _, err := archive.Open(dir); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(filepath.Join(dir, ".lock"))
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	b, _ := json.Marshal(archive.Holder{PID: os.Getpid(), Host: host, Since: time.Now(), Write: true, Command: "other-ingest"})
	rec := filepath.Join(dir, ".holders", "test")
	if err := os.MkdirAll(filepath.Dir(rec), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return func() { os.Remove(rec); fl.Close() }
}

// TestLockMessageAndTimeout: a waiting ingest names the holder after a
// second; -lock-timeout gives up with exit 1; without it ingest waits.
func TestLockMessageAndTimeout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	seeds := testtool.SeedPaths(t)
	release := holdLock(t, dir)

	start := time.Now()
	code, out, errOut := runIngest(t, "", "-archive", dir, "-lock-timeout", "1500ms", seeds[0])
	if code != exitFail || out != "" {
		t.Fatalf("-lock-timeout under a held lock: exit %d, stdout %q", code, out)
	}
	if waited := time.Since(start); waited < 1500*time.Millisecond {
		t.Errorf("gave up after %v", waited)
	}
	for _, want := range []string{"waiting for the lock of " + dir, "other-ingest (pid " + strconv.Itoa(os.Getpid()), "writing since", "not acquired in time after 1.5s"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Count(errOut, "waiting for the lock") != 1 {
		t.Errorf("the wait is announced %d times, want once:\n%s", strings.Count(errOut, "waiting for the lock"), errOut)
	}

	// Without a bound: it waits, says so, and writes once the lock is free.
	go func() { time.Sleep(1300 * time.Millisecond); release() }()
	code, out, errOut = runIngest(t, "", "-archive", dir, seeds[0])
	if code != exitOK || !strings.Contains(out, "\tadded") || !strings.Contains(errOut, "waiting for the lock") {
		t.Fatalf("waiting ingest: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

// TestCheckAndSkipDamaged: -check names a truncated and a foreign file,
// the archive's commands refuse it with advice, -skip-damaged goes on
// naming it, and -check -move-damaged moves its batch aside.
func TestCheckAndSkipDamaged(t *testing.T) {
	tmp := t.TempDir()
	seed := testtool.ReadSeed(t, 0)
	for _, tt := range []struct {
		name, table string
		damage      func(orig []byte) []byte
	}{
		{"truncated", "measurements", func(b []byte) []byte { return b[:len(b)*2/3] }},
		{"foreign", "runs", func([]byte) []byte { return []byte("PAR1 this is not a speedmatrix file PAR1") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(tmp, tt.name)
			for i := 0; i < 3; i++ {
				p := testtool.WriteFiles(t, tmp, []string{fmt.Sprint(i)}, map[string]string{fmt.Sprint(i): testtool.SeedVariant(seed, i)})
				if code, _, e := runIngest(t, "", "-archive", dir, p[0]); code != 0 {
					t.Fatal(e)
				}
			}
			files, _ := filepath.Glob(filepath.Join(dir, tt.table, "*.parquet"))
			bad := files[1]
			orig, err := os.ReadFile(bad)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(bad) // a new file: the published snapshot keeps its link
			if err := os.WriteFile(bad, tt.damage(orig), 0o644); err != nil {
				t.Fatal(err)
			}
			stem := strings.TrimSuffix(filepath.Base(bad), ".parquet")

			code, out, errOut := runIngest(t, "", "-archive", dir, "-check")
			if code != exitFail || !strings.HasPrefix(out, "damaged\t"+stem+"\t"+bad+"\t") || strings.Count(out, "\n") != 1 {
				t.Fatalf("-check: exit %d\nstdout %s\nstderr %s", code, out, errOut)
			}

			// -compact reads every file of the archive.
			code, out, errOut = runIngest(t, "", "-archive", dir, "-compact")
			if code != exitFail || out != "" || !strings.Contains(errOut, bad) || !strings.Contains(errOut, "-skip-damaged") {
				t.Fatalf("-compact with a damaged file: exit %d\nstdout %s\nstderr %s", code, out, errOut)
			}
			code, out, errOut = runIngest(t, "", "-archive", dir, "-compact", "-skip-damaged")
			if code != exitOK || strings.Count(errOut, "skipping batch "+stem+": "+bad) != 1 {
				t.Fatalf("-compact -skip-damaged: exit %d\nstdout %s\nstderr %s", code, out, errOut)
			}

			code, out, errOut = runIngest(t, "", "-archive", dir, "-check", "-move-damaged")
			if code != exitFail || !strings.Contains(out, "moved\t"+filepath.Join(dir, "damaged", tt.table, stem+".parquet")) {
				t.Fatalf("-check -move-damaged: exit %d\nstdout %s\nstderr %s", code, out, errOut)
			}
			if code, out, errOut = runIngest(t, "", "-archive", dir, "-check"); code != exitOK || out != "" {
				t.Fatalf("-check after moving: exit %d\nstdout %s\nstderr %s", code, out, errOut)
			}
			// The other batches are whole (compacted); the moved one can
			// be ingested again from its document.
			a, _ := archive.Open(dir)
			runs, err := a.Runs(t.Context())
			if err != nil || len(runs) != 2 {
				t.Fatalf("after moving aside: %d runs, %v", len(runs), err)
			}
		})
	}
}
