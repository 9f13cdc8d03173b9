package iceberg

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// The REST catalog tests run against a real Iceberg REST catalog server
// that nobody here wrote: github.com/xixipi-lining/iceberg-rest-catalog
// (MIT, Go; iceberg-go's SQL catalog on SQLite behind the REST routes),
// tried at commit 30e440da307d163f8660ab742f90458f7492d0f9. The Go module
// proxy refuses that module by name, so CI cannot build it: these tests
// run when SPEEDMATRIX_REST_CATALOG names its binary (scripts/try-rest-catalog
// builds it from a source directory and runs them) and skip otherwise.
// Note: the skip deliberately bypasses testtool's missing tool rule, so
// SPEEDMATRIX_REQUIRE_TOOLS=1 (scripts/test, CI) does not require the
// server: CI has no way to get it.

// restCatalogEnv names the REST catalog server binary the tests start.
const restCatalogEnv = "SPEEDMATRIX_REST_CATALOG"

// restCatalogBin returns the server binary, or skips t.
func restCatalogBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(restCatalogEnv)
	if bin == "" {
		t.Skipf("%s is not set: build a REST catalog server with "+
			"`scripts/try-rest-catalog SRC` (SRC: a checkout of github.com/xixipi-lining/iceberg-rest-catalog; "+
			"the Go proxy does not serve it), which runs these tests", restCatalogEnv)
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		t.Fatalf("%s=%s is not an executable file", restCatalogEnv, bin)
	}
	return bin
}

// restServer is a REST catalog server started for a test.
type restServer struct {
	URL string // http://127.0.0.1:PORT
	Dir string // its home: configuration, SQLite catalog, log
	log *lockedBuffer
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startRESTCatalog runs the REST catalog server on a free loopback port
// until the test ends: its SQL catalog in a SQLite file of its own, its
// warehouse (where it writes the tables' metadata) at s3://bench/rest on
// s3. The server holds the store's credentials in its configuration, as
// a deployed catalog does; speedmatrix's side reads them from the AWS
// environment.
//
// With bare, the server's environment holds no AWS variable: the store's
// credentials are in its configuration only.
func startRESTCatalog(t testing.TB, s3 *testtool.S3, bare bool) *restServer {
	t.Helper()
	bin := restCatalogBin(t)
	s := &restServer{Dir: t.TempDir(), log: &lockedBuffer{}}
	port := testtool.FreePort(t)
	s.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	// Note: a busy timeout lets the server's SQLite catalog take
	// concurrent commits (mattn/go-sqlite3 DSN parameters); without it
	// two commits at once can fail with "database is locked" (a 500).
	conf := fmt.Sprintf(`default-catalog: default
catalog:
  default:
    type: sql
    uri: "file:%s?_busy_timeout=30000&_journal_mode=WAL"
    sql.driver: sqlite3
    sql.dialect: sqlite
    init_catalog_tables: "true"
    warehouse: s3://bench/rest
    s3.endpoint: %s
    s3.region: us-east-1
    s3.access-key-id: %s
    s3.secret-access-key: %s
server:
  defaults: {}
  overrides: {}
log:
  debug: false
host: 127.0.0.1
port: %d
`, filepath.Join(s.Dir, "catalog.db"), s3.Endpoint, s3.AccessKey, s3.Secret, port)
	if err := os.WriteFile(filepath.Join(s.Dir, ".iceberg-go.yaml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Dir = s.Dir
	// Note: the server needs the store's credentials and endpoint in its
	// environment too, not only in its configuration: its iceberg-go
	// (v0.3.1-0.20250813150657-6c41142bd374) writes a commit's
	// metadata.json with an IO built from the table's properties alone
	// (the AWS default chain) and ignores that write's error, so without
	// them it answers 200, points the table at a file it never wrote, and
	// every later load of the table is a 500 (seen: docs/iceberg.md).
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GOICEBERG_HOME="+s.Dir, "GIN_MODE=release")
	if !bare {
		cmd.Env = append(cmd.Env, "AWS_ACCESS_KEY_ID="+s3.AccessKey, "AWS_SECRET_ACCESS_KEY="+s3.Secret,
			"AWS_ENDPOINT_URL="+s3.Endpoint, "AWS_REGION=us-east-1")
	}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("REST catalog server errors (last 4000 bytes):\n%s", tail(s.errors(), 4000))
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-done:
			t.Fatalf("the REST catalog server exited: %s", s.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the REST catalog server did not answer on %s within 30s: %v\n%s", s.URL, err, s.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// errors returns the lines of the server's log at level error.
func (s *restServer) errors() string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s.log.String(), "\n") {
		if strings.Contains(l, `"level":"error"`) {
			b.WriteString(l)
		}
	}
	return b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// restSetup starts versitygw and the REST catalog over it, sets the AWS
// environment speedmatrix's side reads the store's credentials from,
// and returns the reference of namespace ns.
func restSetup(t *testing.T) (refOf func(ns string) string, s3 *testtool.S3, srv *restServer) {
	t.Helper()
	restCatalogBin(t) // skip before starting anything
	s3 = testtool.StartVersitygw(t, "bench")
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	srv = startRESTCatalog(t, s3, false)
	base := "iceberg+rest+http://" + strings.TrimPrefix(srv.URL, "http://")
	return func(ns string) string { return base + "#" + ns }, s3, srv
}

// TestRESTCatalog writes and reads the archive through a real REST
// catalog: two writers append overlapping runs at once, iceberg-go's scan
// reads every run once, a second append adds nothing, a drop and
// maintenance go through the catalog's commits, and neither the bearer
// token sent to the catalog nor the store's credentials are in any file
// of the store.
func TestRESTCatalog(t *testing.T) {
	refOf, s3, _ := restSetup(t)
	const token = "rest-token-never-stored-7f3a"
	t.Setenv("ICEBERG_REST_TOKEN", token)
	ref := parseRef(t, refOf("speedmatrix"))
	ctx := context.Background()
	a, b := openRef(t, ref), openRef(t, ref)
	done := make(chan error, 1)
	go func() {
		_, err := b.Append(ctx, testMatrices(2, 6))
		done <- err
	}()
	if _, err := a.Append(ctx, testMatrices(0, 4)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	res, err := a.Append(ctx, testMatrices(0, 6))
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(res); o[archive.Added] != 0 || o[archive.Duplicate] != 6 {
		t.Fatalf("append of held runs: %v", o)
	}
	s := checkHolds(t, openRef(t, ref), testMatrices(0, 6))
	files, err := s.DataFiles(ctx, archive.TableRuns)
	if err != nil || len(files) == 0 || !strings.HasPrefix(files[0], "s3://bench/rest/") {
		t.Fatalf("runs data files %v, %v (want them under the catalog's warehouse s3://bench/rest/)", files, err)
	}

	// A drop and maintenance are commits through the catalog too.
	ms := testMatrices(0, 6)
	dropped, err := a.Drop(ctx, []string{ms[1].Run.RunID, ms[4].Run.RunID})
	if err != nil || len(dropped) != 2 {
		t.Fatalf("drop: %d runs, %v", len(dropped), err)
	}
	left := []*schema.Matrix{ms[0], ms[2], ms[3], ms[5]}
	checkHolds(t, openRef(t, ref), left)
	done2, err := a.Maintain(ctx, 0, false)
	if err != nil {
		t.Fatalf("maintain: %v", err)
	}
	for _, m := range done2 {
		if m.SnapshotsAfter != 1 {
			t.Errorf("maintain %s: %d snapshots left, want 1", m.Table, m.SnapshotsAfter)
		}
	}
	checkHolds(t, openRef(t, ref), left)

	n := 0
	filepath.WalkDir(filepath.Join(s3.Dir, "bench"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		n++
		b, _ := os.ReadFile(p)
		for _, secret := range []string{token, s3.Secret} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds a credential", p)
			}
		}
		return nil
	})
	if n < 9 {
		t.Fatalf("the store holds %d files", n)
	}
}

// TestRESTCommitNotWritten runs the server without the store's
// credentials in its environment, where it answers a commit 200 without
// having written the metadata file it names (docs/iceberg.md): the append
// fails with a message saying so instead of reporting the runs added.
func TestRESTCommitNotWritten(t *testing.T) {
	restCatalogBin(t)
	s3 := testtool.StartVersitygw(t, "bench")
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	srv := startRESTCatalog(t, s3, true)
	ref := parseRef(t, "iceberg+rest+http://"+strings.TrimPrefix(srv.URL, "http://")+"#lost")
	a, err := Open(context.Background(), ref, Options{Create: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Append(context.Background(), testMatrices(0, 2))
	if err == nil || !strings.Contains(err.Error(), "cannot be read from the store") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("append through a catalog that does not write its metadata: %v, %v (want an error saying so)", outcomes(res), err)
	}
	if o := outcomes(res); o[archive.Added] != 0 {
		t.Fatalf("runs reported added: %v", o)
	}
	t.Logf("%v", err)
}

// TestRESTCatalogErrors gives references the REST catalog cannot serve
// and credentials it cannot take: each fails within the call timeout
// with one line naming the reference, holding no secret.
func TestRESTCatalogErrors(t *testing.T) {
	refOf, _, srv := restSetup(t)
	hang := startFaultProxy(t, srv.URL)
	hang.mode.Store("hang")
	closed := testtool.FreePort(t) // nothing listens there
	const secret = "client-secret-never-shown-91c2"
	for _, c := range []struct {
		name, ref, cred, want string
	}{
		{"wrong path", strings.Replace(refOf("speedmatrix"), "#", "/no/such/prefix#", 1), "", "answered 404 Not Found: is"},
		{"nothing listening", "iceberg+rest+http://127.0.0.1:" + strconv.Itoa(closed) + "#speedmatrix", "", "connection refused"},
		{"never answers", "iceberg+rest+http://" + strings.TrimPrefix(hang.url, "http://") + "#speedmatrix", "", "no answer from the catalog"},
		{"no OAuth endpoint", refOf("speedmatrix"), "speedmatrix-ci:" + secret, "no OAuth token endpoint"},
		{"read of a missing namespace", refOf("nothere"), "", "no table nothere.runs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("ICEBERG_REST_CREDENTIAL", c.cred)
			ref := parseRef(t, c.ref)
			start := time.Now()
			a, err := Open(context.Background(), ref, Options{Timeout: 3 * time.Second})
			took := time.Since(start)
			if err == nil {
				a.Close()
				t.Fatal("open succeeded")
			}
			var ie *Error
			msg := err.Error()
			if !errors.As(err, &ie) || !strings.Contains(msg, ref.String()) || strings.Contains(msg, "\n") ||
				strings.Contains(msg, secret) || !strings.Contains(strings.ToLower(msg), strings.ToLower(c.want)) {
				t.Fatalf("error %q: want one line naming %s and %q, no secret", msg, ref, c.want)
			}
			if took > 15*time.Second {
				t.Errorf("the failure took %v", took)
			}
			t.Logf("%v (after %v)", msg, took.Round(time.Millisecond))
		})
	}
}

// TestRESTProcessesAppendConcurrently is TestProcessesAppendConcurrently
// through the REST catalog: six writer processes append overlapping sets
// of runs to one namespace at once, several rounds. The server answers a
// commit whose requirement failed (another writer committed first) with
// a 500, not the 409 the REST spec asks for (a spec violation; iceberg-go
// reads it as "commit state unknown"): Append then finds the table's head
// moved and retries as after a conflict. Every run is in its tables
// exactly once and reported added by exactly one process.
func TestRESTProcessesAppendConcurrently(t *testing.T) {
	refOf, _, srv := restSetup(t)
	ref := refOf("team")
	const procs, step = 6, 100
	n := rounds()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]bytes.Buffer, procs)
	errs := make([]bytes.Buffer, procs)
	start := time.Now()
	for p := range cmds {
		h := helper{Ref: ref, From: p * 2, To: p*2 + 6, Step: step, Rounds: n, Retries: DefaultRetries}
		cmds[p] = exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmds[p].Env = h.env()
		cmds[p].Stdout, cmds[p].Stderr = &outs[p], &errs[p]
		if err := cmds[p].Start(); err != nil {
			t.Fatal(err)
		}
	}
	added := map[string]int{}
	reruns := 0
	var failed []string
	for p, c := range cmds {
		if err := c.Wait(); err != nil {
			failed = append(failed, fmt.Sprintf("process %d: %v\n%s\n%s", p, err, outs[p].String(), errs[p].String()))
			continue
		}
		sc := bufio.NewScanner(&outs[p])
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && f[0] == "added":
				added[f[1]]++
			case len(f) > 0 && f[0] == "rerun":
				reruns++
				t.Logf("process %d: %s", p, sc.Text())
			}
		}
	}
	if len(failed) > 0 {
		t.Fatalf("%d of %d writers failed:\n%s", len(failed), procs, strings.Join(failed, "\n"))
	}
	conflicts := strings.Count(srv.errors(), "failed to commit table")
	t.Logf("%d processes × %d rounds in %v; %d commits the server refused after another writer's (500); %d appends run again",
		procs, n, time.Since(start).Round(time.Millisecond), conflicts, reruns)
	var want []*schema.Matrix
	for r := range n {
		want = append(want, testMatrices(r*step, r*step+(procs-1)*2+6)...)
	}
	for _, m := range want {
		if added[m.Run.RunID] != 1 {
			t.Errorf("run %s reported added %d times", m.Run.RunID, added[m.Run.RunID])
		}
	}
	if len(added) != len(want) {
		t.Errorf("%d runs added, want %d", len(added), len(want))
	}
	checkHolds(t, openRef(t, parseRef(t, ref)), want)
}
