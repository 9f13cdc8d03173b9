package archive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// ErrLockTimeout is returned (wrapped, with who holds the lock) when the
// archive's lock was not acquired within Archive.LockTimeout.
var ErrLockTimeout = errors.New("archive lock not acquired in time")

// holdersDir holds one small file per holder of DIR/.lock, saying who it
// is: flock itself cannot tell a waiting process who holds it.
const holdersDir = ".holders"

// lockNoticeAfter is how long a command waits for the lock before
// Archive.LockWait hears who holds it.
var lockNoticeAfter = time.Second

// Holder is one holder of the archive's lock, as it recorded itself.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Since   time.Time `json:"since"`
	Write   bool      `json:"write"` // exclusive (a writer), else shared
	Command string    `json:"command"`
}

// String says who holds the lock and since when.
func (h Holder) String() string {
	mode := "reading"
	if h.Write {
		mode = "writing"
	}
	return fmt.Sprintf("%s (pid %d on %s, %s since %s)", h.Command, h.PID, h.Host, mode,
		h.Since.UTC().Format("2006-01-02 15:04:05 UTC"))
}

// lock takes DIR/.lock, exclusive for writers and shared for readers, and
// returns its release function. Each call opens its own descriptor, so
// goroutines of one process exclude each other as processes do. After
// lockNoticeAfter of waiting it tells a.LockWait who holds the lock; it
// gives up after a.LockTimeout when that is set.
func (a *Archive) lock(ctx context.Context, exclusive bool) (func(), error) {
	fl := flock.New(filepath.Join(a.dir, lockName))
	try := fl.TryRLock
	if exclusive {
		try = fl.TryLock
	}
	start := time.Now()
	noticed := false
	wait := 2 * time.Millisecond
	for {
		ok, err := try()
		if err != nil {
			fl.Close()
			return nil, fmt.Errorf("archive: lock %s: %w", fl.Path(), err)
		}
		if ok {
			break
		}
		waited := time.Since(start)
		if a.LockTimeout > 0 && waited >= a.LockTimeout {
			fl.Close()
			return nil, fmt.Errorf("archive: %s: %w after %v: held by %s", a.dir, ErrLockTimeout,
				a.LockTimeout, describeHolders(a.holders()))
		}
		if !noticed && waited >= lockNoticeAfter && a.LockWait != nil {
			noticed = true
			a.LockWait(a.holders())
		}
		select {
		case <-ctx.Done():
			fl.Close()
			return nil, fmt.Errorf("archive: lock %s: %w", fl.Path(), ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
	rec := a.recordHolder(exclusive)
	return func() {
		if rec != "" {
			os.Remove(rec)
		}
		fl.Close()
	}, nil
}

// recordHolder writes this holder's file and returns its path ("" when
// it could not: a read-only archive is still readable). A writer, alone
// under the lock, first removes the files of holders that are gone
// (killed before they could remove theirs).
func (a *Archive) recordHolder(exclusive bool) string {
	dir := filepath.Join(a.dir, holdersDir)
	if exclusive {
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	host, _ := os.Hostname()
	cmd := "unknown"
	if len(os.Args) > 0 {
		cmd = filepath.Base(os.Args[0])
	}
	b, _ := json.Marshal(Holder{PID: os.Getpid(), Host: host, Since: time.Now().UTC(), Write: exclusive, Command: cmd})
	var r [6]byte
	rand.Read(r[:])
	p := filepath.Join(dir, fmt.Sprintf("%s-%d-%s", safeName(host), os.Getpid(), hex.EncodeToString(r[:])))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return ""
	}
	return p
}

// holders returns the recorded holders of the lock, leaving out those of
// this host whose process is gone.
func (a *Archive) holders() []Holder {
	dir := filepath.Join(a.dir, holdersDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	host, _ := os.Hostname()
	var out []Holder
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // released meanwhile
		}
		var h Holder
		if json.Unmarshal(b, &h) != nil {
			continue
		}
		if h.Host == host && !alive(h.PID) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// describeHolders names the holders for a message.
func describeHolders(hs []Holder) string {
	if len(hs) == 0 {
		return "a process that left no record (an older version, or another host without one)"
	}
	var parts []string
	for _, h := range hs {
		parts = append(parts, h.String())
	}
	return strings.Join(parts, "; ")
}

// LockTimeoutUsage is the help text of a command's -lock-timeout flag,
// which sets Archive.LockTimeout.
const LockTimeoutUsage = "give up (exit 1) when the archive's lock is not free within this `duration` (default: wait)"

// NoticeLockWait makes a waiting command say who holds the lock: after a
// second of waiting, w hears "PROG: waiting for the lock of DIR, held by
// …" (pid, host and since when of each holder), once. It sets a.LockWait,
// so every command that waits says it in the same words.
func (a *Archive) NoticeLockWait(w io.Writer, prog string) {
	a.LockWait = func(hs []Holder) {
		fmt.Fprintf(w, "%s: waiting for the lock of %s, held by %s\n", prog, a.dir, describeHolders(hs))
	}
}

// safeName keeps letters, digits and dots of s, for a file name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.':
			return r
		}
		return '_'
	}, s)
	if s == "" {
		return "unknown"
	}
	return s
}
