package archive

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLockWaitAndTimeout holds the write lock and checks what a second
// writer hears while it waits, that -lock-timeout's bound gives up with
// the holder named, and that without a bound it waits and succeeds.
func TestLockWaitAndTimeout(t *testing.T) {
	old := lockNoticeAfter
	lockNoticeAfter = 50 * time.Millisecond
	defer func() { lockNoticeAfter = old }()
	ctx := context.Background()
	holder := openTest(t)
	release, err := holder.lock(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	// A record of a process of this host that is gone is not reported.
	host, _ := os.Hostname()
	stale, _ := json.Marshal(Holder{PID: 1 << 22, Host: host, Since: time.Now(), Write: true, Command: "ghost"})
	if err := os.WriteFile(filepath.Join(holder.Dir(), holdersDir, "stale"), stale, 0o644); err != nil {
		t.Fatal(err)
	}

	w, err := Open(holder.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var heard [][]Holder
	w.LockWait = func(hs []Holder) { mu.Lock(); heard = append(heard, hs); mu.Unlock() }
	w.LockTimeout = 300 * time.Millisecond
	start := time.Now()
	_, err = w.Append(ctx, testMatrices(0, 1))
	if !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("Append under a held lock with a timeout: %v, want ErrLockTimeout", err)
	}
	if waited := time.Since(start); waited < w.LockTimeout {
		t.Errorf("gave up after %v, before the timeout %v", waited, w.LockTimeout)
	}
	pid := "pid " + strconv.Itoa(os.Getpid())
	for _, want := range []string{pid, host, "writing since", "after 300ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("timeout message %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "ghost") {
		t.Errorf("timeout message names a holder that is gone: %q", err)
	}
	mu.Lock()
	if len(heard) != 1 || len(heard[0]) != 1 || heard[0][0].PID != os.Getpid() || !heard[0][0].Write {
		t.Errorf("LockWait heard %+v, want once, this process writing", heard)
	}
	mu.Unlock()

	// Without a bound the writer waits, then writes.
	w.LockTimeout = 0
	done := make(chan error, 1)
	go func() { _, err := w.Append(ctx, testMatrices(0, 1)); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("Append returned while the lock was held: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Every holder removed its record; the writer removed the stale one.
	if ents, _ := os.ReadDir(filepath.Join(holder.Dir(), holdersDir)); len(ents) != 0 {
		t.Errorf("%d holder records left after every lock was released", len(ents))
	}
}

// TestLockWaitReaders: a writer waiting for readers names them.
func TestLockWaitReaders(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	release, err := a.lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	a.LockTimeout = 100 * time.Millisecond
	_, err = a.Append(ctx, testMatrices(0, 1))
	if !errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), "reading since") {
		t.Fatalf("Append while a reader holds the lock: %v", err)
	}
}
