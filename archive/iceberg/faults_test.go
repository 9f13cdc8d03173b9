package iceberg

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// faultProxy stands between the writer and versitygw and misbehaves on
// demand: "" passes requests on, "500" answers every request with an
// S3 InternalError, "hang" reads the request and never answers, "down"
// closes every connection as soon as it is accepted, as a host whose
// server stopped answers (the client sees EOF or a reset).
type faultProxy struct {
	mode  atomic.Value // string
	ln    net.Listener
	url   string
	count func(*http.Request) // when set, told each request passed on
}

func startFaultProxy(t testing.TB, target string) *faultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{}
	p.mode.Store("")
	p.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.url = "http://" + p.ln.Addr().String()
	rp := httputil.NewSingleHostReverseProxy(u)
	hung := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p.mode.Load().(string) {
		case "500":
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected by the test</Message></Error>`)
		case "hang":
			select {
			case <-r.Context().Done():
			case <-hung:
			}
		default:
			if p.count != nil {
				p.count(r)
			}
			rp.ServeHTTP(w, r)
		}
	})}
	// "down": each new connection is closed at once (connection reset),
	// as on a host whose server stopped.
	go srv.Serve(downListener{p})
	t.Cleanup(func() { close(hung); srv.Close() })
	return p
}

type downListener struct{ p *faultProxy }

func (d downListener) Accept() (net.Conn, error) {
	for {
		c, err := d.p.ln.Accept()
		if err != nil {
			return nil, err
		}
		if d.p.mode.Load().(string) == "down" {
			c.Close()
			continue
		}
		return c, nil
	}
}
func (d downListener) Close() error   { return d.p.ln.Close() }
func (d downListener) Addr() net.Addr { return d.p.ln.Addr() }

// faultRef is a SQLite catalog whose warehouse is on versitygw behind a
// fault proxy.
func faultRef(t *testing.T) (Ref, *faultProxy, *testtool.S3) {
	t.Helper()
	s3 := testtool.StartVersitygw(t, "bench")
	p := startFaultProxy(t, s3.Endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", p.url)
	t.Setenv("AWS_REGION", "us-east-1")
	ref := parseRef(t, "iceberg+sqlite://"+filepath.ToSlash(filepath.Join(t.TempDir(), "catalog.db"))+"?warehouse=s3://bench/wh#faults")
	return ref, p, s3
}

// TestStoreFaults makes the store fail in the middle of an append (after
// the measurements commit, as a push meets a store that goes away) and
// from the start: refusing connections (stopped), answering 500, or never
// answering. Each append fails in bounded time with a one-line error
// naming the reference; the runs table is unchanged (no run half there);
// once the store is back the same append completes, each run once.
func TestStoreFaults(t *testing.T) {
	ref, p, _ := faultRef(t)
	ctx := context.Background()
	a, err := Open(ctx, ref, Options{Create: true, Timeout: 5 * time.Second, Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Append(ctx, testMatrices(0, 2)); err != nil {
		t.Fatal(err)
	}
	held := testMatrices(0, 2)
	for k, c := range []struct {
		mode string
		at   string // the step after which the store fails; "" from the start
	}{
		{"down", "committed:" + archive.TableMeasurements},
		{"down", ""},
		{"500", "commit:" + archive.TableSamples},
		{"500", ""},
		{"hang", "committed:" + archive.TableSamples},
		{"hang", ""},
	} {
		name := c.mode + " after " + c.at
		ms := testMatrices(10+k*10, 13+k*10)
		before := snapshotIDs(t, a)
		a.onStep = nil
		if c.at == "" {
			p.mode.Store(c.mode)
		} else {
			a.onStep = func(step, tbl, _ string) {
				if step+":"+tbl == c.at {
					p.mode.Store(c.mode)
				}
			}
		}
		start := time.Now()
		_, err := a.Append(ctx, ms)
		took := time.Since(start)
		p.mode.Store("")
		a.onStep = nil
		var ie *Error
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), ref.String()) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: append: %v", name, err)
		}
		// Bounded: the call timeout (5 s) per catalog or store call, a
		// few calls.
		if took > 60*time.Second {
			t.Errorf("%s: the failure took %v", name, took)
		}
		t.Logf("%s: %v after %v", name, err, took.Round(time.Millisecond))
		if after := snapshotIDs(t, a); after[archive.TableRuns] != before[archive.TableRuns] {
			t.Errorf("%s: the runs table changed: %v → %v", name, before, after)
		}
		runsHold(t, a, held)
		res, err := a.Append(ctx, ms)
		if err != nil || outcomes(res)[archive.Added] != 3 {
			t.Fatalf("%s: append once the store is back: %v %v", name, outcomes(res), err)
		}
		held = append(held, ms...)
		checkHolds(t, a, held)
	}
}

// runsHold checks what a reader that starts from runs sees: exactly the
// runs of ms, each with all its rows. (After a failure between two
// tables' commits, measurements or samples also hold rows of runs the
// runs table lacks, which the next append of those runs completes:
// checkHolds, which counts every row, holds only after it.)
func runsHold(t *testing.T, a *Archive, ms []*schema.Matrix) {
	t.Helper()
	ctx := context.Background()
	s, err := a.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(ms) {
		t.Fatalf("%d runs, want %d", len(runs), len(ms))
	}
	got, err := s.Load(ctx, runIDs(ms)...)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		want := stored(t, m)
		want.Run.IngestedAt = got[i].Run.IngestedAt
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("run %s read back differs", m.Run.RunID)
		}
	}
}

func snapshotIDs(t *testing.T, a *Archive) map[string]int64 {
	t.Helper()
	s, err := a.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s.SnapshotIDs()
}

// TestStoreFull fills the store's disk: versitygw serves a bucket on a
// 512 KiB tmpfs (mounted by the test, so it runs as root only). The
// append that no longer fits fails with an error naming the reference;
// the runs table is unchanged and reads; after space is freed (the
// failed writes' orphans removed by Maintain, a larger disk) the same
// append completes.
func TestStoreFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs under versitygw needs root")
	}
	s3 := testtool.StartVersitygw(t, "")
	bucket := filepath.Join(s3.Dir, "small")
	if err := os.Mkdir(bucket, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", bucket).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", bucket).Run() })
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	ref := parseRef(t, "iceberg+sqlite://"+filepath.ToSlash(filepath.Join(t.TempDir(), "catalog.db"))+"?warehouse=s3://small/wh#full")
	ctx := context.Background()
	a, err := Open(ctx, ref, Options{Create: true, Timeout: 10 * time.Second, Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var ok int
	var failed error
	for i := 0; i < 200 && failed == nil; i++ {
		before := snapshotIDs(t, a)
		ms := testMatrices(i*20, i*20+20)
		_, err := a.Append(ctx, ms)
		if err == nil {
			ok++
			continue
		}
		failed = err
		if !strings.Contains(err.Error(), ref.String()) || strings.Contains(err.Error(), "\n") {
			t.Errorf("full disk: %v", err)
		}
		if after := snapshotIDs(t, a); after[archive.TableRuns] != before[archive.TableRuns] {
			t.Errorf("full disk: the runs table changed")
		}
		runsHold(t, a, testMatrices(0, ok*20))
		// More room: the store grows (remount larger), and the append completes.
		if out, err := exec.Command("mount", "-o", "remount,size=8m", bucket).CombinedOutput(); err != nil {
			t.Fatalf("remount: %v %s", err, out)
		}
		if _, err := a.Append(ctx, ms); err != nil {
			t.Fatalf("append after the disk grew: %v", err)
		}
		checkHolds(t, a, testMatrices(0, ok*20+20))
	}
	if failed == nil {
		t.Fatal("512 KiB never filled")
	}
	t.Logf("%d appends of 20 runs fit; then: %v", ok, failed)
}

// TestStoreStopped stops versitygw itself (SIGKILL) in the middle of an
// append, after each table's commit in turn and before any: the append
// fails within bounded time with one line naming the reference, the runs
// table is unchanged, and once versitygw is started again (same port,
// same directory) the same append completes, each run once.
func TestStoreStopped(t *testing.T) {
	s3 := testtool.StartVersitygw(t, "bench")
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	ref := parseRef(t, "iceberg+sqlite://"+filepath.ToSlash(filepath.Join(t.TempDir(), "catalog.db"))+"?warehouse=s3://bench/wh#stopped")
	ctx := context.Background()
	a, err := Open(ctx, ref, Options{Create: true, Timeout: 5 * time.Second, Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	held := testMatrices(0, 2)
	if _, err := a.Append(ctx, held); err != nil {
		t.Fatal(err)
	}
	for k, at := range []string{"", "write:" + archive.TableMeasurements, "committed:" + archive.TableMeasurements,
		"committed:" + archive.TableSamples, "commit:" + archive.TableRuns} {
		ms := testMatrices(10+k*10, 13+k*10)
		before := snapshotIDs(t, a)
		if at == "" {
			s3.Stop()
		} else {
			a.onStep = func(step, tbl, _ string) {
				if step+":"+tbl == at {
					s3.Stop()
				}
			}
		}
		start := time.Now()
		_, err := a.Append(ctx, ms)
		took := time.Since(start)
		a.onStep = nil
		var ie *Error
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), ref.String()) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("stopped at %q: append: %v", at, err)
		}
		if took > 60*time.Second {
			t.Errorf("stopped at %q: the failure took %v", at, took)
		}
		t.Logf("stopped at %q: %v after %v", at, err, took.Round(time.Millisecond))
		s3.Restart(t)
		if after := snapshotIDs(t, a); after[archive.TableRuns] != before[archive.TableRuns] {
			t.Errorf("stopped at %q: the runs table changed: %v → %v", at, before, after)
		}
		runsHold(t, a, held)
		res, err := a.Append(ctx, ms)
		if err != nil || outcomes(res)[archive.Added] != 3 {
			t.Fatalf("stopped at %q: append once versitygw is back: %v %v", at, outcomes(res), err)
		}
		held = append(held, ms...)
		checkHolds(t, a, held)
	}
}
