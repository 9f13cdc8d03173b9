package testtool

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// VersitygwVersion is the versitygw release scripts/install-versitygw
// installs with `go install github.com/versity/versitygw/cmd/versitygw@VersitygwVersion`.
const VersitygwVersion = "v1.8.0"

// gobinPath returns where go install puts name, or "".
func gobinPath(name string) string {
	dirs := []string{os.Getenv("GOBIN")}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	if gp := os.Getenv("GOPATH"); gp != "" {
		dirs = append(dirs, filepath.Join(strings.Split(gp, string(os.PathListSeparator))[0], "bin"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if p := filepath.Join(d, name); isExec(p) {
			return p
		}
	}
	return ""
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Versitygw returns the path of the versitygw binary (an S3-compatible
// server, Apache-2.0): on PATH, else where go install puts it.
func Versitygw(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	if p := gobinPath("versitygw"); p != "" {
		return p
	}
	missing(t, "versitygw (scripts/install-versitygw: go install github.com/versity/versitygw/cmd/versitygw@"+VersitygwVersion+")")
	return ""
}

// FreePort returns a TCP port free on 127.0.0.1 at the time of the call.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// S3 is an S3-compatible server started for a test.
type S3 struct {
	Endpoint          string // http://127.0.0.1:PORT
	AccessKey, Secret string
	Dir               string // the directory it serves; a bucket is a subdirectory

	bin  string
	port int
	mu   sync.Mutex
	proc *exec.Cmd
	done chan struct{}
}

// StartVersitygw serves a fresh directory over S3 on loopback with
// versitygw until the test ends, and makes bucket (when not empty). It
// skips or fails t when versitygw is missing (see RequireEnv).
func StartVersitygw(t testing.TB, bucket string) *S3 {
	t.Helper()
	s := &S3{AccessKey: "testaccess", Secret: "testsecret" + strconv.Itoa(os.Getpid()), Dir: t.TempDir(), bin: Versitygw(t)}
	if bucket != "" {
		// The posix backend's buckets are the directories it serves.
		if err := os.Mkdir(filepath.Join(s.Dir, bucket), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.port = FreePort(t)
	s.Endpoint = "http://127.0.0.1:" + strconv.Itoa(s.port)
	t.Cleanup(func() { s.stop(os.Interrupt) })
	s.Restart(t)
	return s
}

// Stop kills the server (SIGKILL, as a crash or a pulled plug): clients
// then find nothing listening on its port.
func (s *S3) Stop() { s.stop(os.Kill) }

func (s *S3) stop(sig os.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	s.proc.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.proc.Process.Kill()
		<-s.done
	}
	s.proc = nil
}

// Restart starts the server again on the same port and directory (after
// Stop), and waits until it answers.
func (s *S3) Restart(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return
	}
	cmd := exec.Command(s.bin, "--port", "127.0.0.1:"+strconv.Itoa(s.port), "posix", s.Dir)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.AccessKey, "ROOT_SECRET_ACCESS_KEY="+s.Secret)
	log := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.proc, s.done = cmd, done
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint)
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case <-done:
			s.proc = nil
			t.Fatalf("versitygw exited: %s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not answer on %s within 20s: %v", s.Endpoint, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// PostgresBin returns the directory of PostgreSQL's initdb and pg_ctl
// (Debian's /usr/lib/postgresql/N/bin, or PATH).
func PostgresBin(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p)
	}
	ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(ms) > 0 {
		return filepath.Dir(ms[len(ms)-1])
	}
	missing(t, "PostgreSQL server (Debian package postgresql-15: initdb, pg_ctl)")
	return ""
}

// StartPostgres runs a fresh PostgreSQL cluster in a temporary directory,
// listening on a free loopback port, until the test ends, and returns
// its URL (user postgres, database postgres, trust authentication on
// loopback only). As root, the server runs as the postgres user through
// runuser (PostgreSQL refuses to run as root).
func StartPostgres(t testing.TB) string {
	t.Helper()
	bin := PostgresBin(t)
	dir, err := os.MkdirTemp("", "speedmatrix-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	run := func(name string, args ...string) *exec.Cmd {
		return exec.Command(filepath.Join(bin, name), args...)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			missing(t, "a postgres user to run PostgreSQL as (root cannot)")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		run = func(name string, args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := run("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := FreePort(t)
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off", port, dir)
	if out, err := run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "30", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		if out, err := run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
			t.Logf("pg_ctl stop: %v\n%s", err, out)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
}
