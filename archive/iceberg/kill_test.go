package iceberg

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// killPoints are the steps of an append at which TestKilledWriter kills
// its writer, in the order of the protocol: for each table, before its
// data file is written, after it is written and before the catalog
// commit, and after the commit.
var killPoints = func() []string {
	var out []string
	for _, tbl := range []string{archive.TableMeasurements, archive.TableSamples, archive.TableRuns} {
		for _, step := range []string{"write", "commit", "committed"} {
			out = append(out, step+":"+tbl)
		}
	}
	return out
}()

// want is the number of measurement and sample rows testMatrix gives
// each run, by run id.
type wantRows map[string][2]int

func (w wantRows) add(ms []*schema.Matrix) {
	for _, m := range ms {
		w[m.Run.RunID] = [2]int{len(m.Measurements), len(m.Samples)}
	}
}

// TestKilledWriter SIGKILLs a writer process at every step of an append
// (killPoints) on the team's set-up (PostgreSQL, versitygw), while a
// reader polls the table. The reader never fails and never sees a run
// without all its rows or a row twice; after each kill DuckDB, reading
// the data files the manifests list, sees the same; running the append
// again completes it, each run once. Maintain then removes exactly the
// data files the killed writers wrote and never committed.
func TestKilledWriter(t *testing.T) {
	refOf, s3 := teamRef(t)
	ref := refOf("crash")
	a := openRef(t, parseRef(t, ref))
	ctx := context.Background()
	want := wantRows{}
	var mu sync.Mutex

	// The reader: a snapshot, every run with its rows, again and again.
	stop := make(chan struct{})
	polled := make(chan int)
	go func() {
		r := openRef(t, parseRef(t, ref))
		n := 0
		defer func() { polled <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			s, err := r.Snapshot(ctx)
			if err != nil {
				t.Errorf("reader: %v", err)
				return
			}
			runs, err := s.Runs(ctx)
			if err != nil {
				t.Errorf("reader: %v", err)
				return
			}
			ids := make([]string, 0, len(runs))
			for _, x := range runs {
				ids = append(ids, x.RunID)
			}
			if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
				t.Errorf("reader: a run twice in %v", ids)
			}
			ms, err := s.Load(ctx, ids...)
			if err != nil {
				t.Errorf("reader: %v", err)
				return
			}
			mu.Lock()
			for _, m := range ms {
				if w := want[m.Run.RunID]; len(m.Measurements) != w[0] || len(m.Samples) != w[1] {
					t.Errorf("reader: run %s has %d measurements and %d samples, want %v", m.Run.RunID, len(m.Measurements), len(m.Samples), w)
				}
			}
			mu.Unlock()
			n++
			time.Sleep(20 * time.Millisecond)
		}
	}()

	t0 := time.Now()
	var held []*schema.Matrix
	var unreferenced []string // data files written by killed writers, never committed
	for k, point := range killPoints {
		from := 10 * k
		ms := testMatrices(from, from+3) // three runs, one with samples
		mu.Lock()
		want.add(ms)
		mu.Unlock()
		h := helper{Ref: ref, From: from, To: from + 3, Rounds: 1, Stall: point, Retries: 8}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmd.Env = h.env()
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "stalled ") {
					line <- sc.Text()
					return
				}
			}
			line <- ""
		}()
		var got string
		select {
		case got = <-line:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: the writer did not reach the step: %s", point, stderr.String())
		}
		if got == "" {
			cmd.Wait()
			t.Fatalf("%s: the writer ended before the step: %s", point, stderr.String())
		}
		time.Sleep(100 * time.Millisecond) // let the reader poll the state at the kill
		cmd.Process.Kill()
		cmd.Wait()
		if f := strings.Fields(got); len(f) == 4 && f[1] == "commit" {
			unreferenced = append(unreferenced, f[3])
		}

		// What the kill left: the runs all there (killed after the runs
		// commit) or none of them, read by iceberg-go and by DuckDB.
		committed := point == "committed:"+archive.TableRuns
		s, err := a.Snapshot(ctx)
		if err != nil {
			t.Fatalf("%s: %v", point, err)
		}
		runs, err := s.Runs(ctx)
		if err != nil {
			t.Fatalf("%s: %v", point, err)
		}
		if len(runs) != len(held)+map[bool]int{true: 3}[committed] {
			t.Fatalf("%s: %d runs after the kill, want %d", point, len(runs), len(held)+map[bool]int{true: 3}[committed])
		}
		duckdbCheck(t, s, s3, want)

		// Running it again completes it, each run once.
		res, err := a.Append(ctx, ms)
		if err != nil {
			t.Fatalf("%s: rerun: %v", point, err)
		}
		if o := outcomes(res); committed && o[archive.Added] != 0 || !committed && o[archive.Added] != 3 {
			t.Fatalf("%s: rerun %v", point, o)
		}
		held = append(held, ms...)
		t.Logf("%s: killed, read, completed (%v)", point, time.Since(t0).Round(time.Millisecond))
	}
	checkHolds(t, a, held)
	close(stop)
	if n := <-polled; n < len(killPoints) {
		t.Errorf("the reader polled %d times only", n)
	} else {
		t.Logf("the reader read the whole table %d times, never a partial run", n)
	}

	// Maintenance removes the killed writers' uncommitted data files, the
	// files its compaction replaced, and nothing the table references.
	live := func() map[string]bool {
		s, err := a.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, tbl := range archive.Tables {
			fs, err := s.DataFiles(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				out[f] = true
			}
		}
		return out
	}
	liveBefore := live()
	tms, err := a.Maintain(ctx, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	liveAfter := live()
	for f := range liveBefore {
		if !liveAfter[f] {
			unreferenced = append(unreferenced, f) // replaced by compaction
		}
	}
	var removed []string
	for _, m := range tms {
		for _, p := range m.Orphans {
			if strings.Contains(p, "/data/") {
				removed = append(removed, p)
			}
		}
		t.Logf("%s: %d → %d snapshots, %d orphan files (%d bytes)", m.Table, m.SnapshotsBefore, m.SnapshotsAfter, len(m.Orphans), m.OrphanBytes)
	}
	slices.Sort(removed)
	slices.Sort(unreferenced)
	if !slices.Equal(removed, unreferenced) {
		t.Errorf("maintenance removed the data files\n%v\nwant the killed writers' uncommitted and those compaction replaced\n%v", removed, unreferenced)
	}
	checkHolds(t, openRef(t, parseRef(t, ref)), held)
	again, err := a.Maintain(ctx, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range again {
		if len(m.Orphans) != 0 || m.SnapshotsAfter != 1 {
			t.Errorf("second maintenance: %+v", m)
		}
	}
}

// duckdbCheck reads the data files the manifests of s list with DuckDB:
// each run of the runs files has all its measurement rows, once.
func duckdbCheck(t *testing.T, s *Snapshot, s3 *testtool.S3, want wantRows) {
	t.Helper()
	node, script := testtool.DuckDBQuery(t)
	ctx := context.Background()
	list := func(tbl string) string {
		files, err := s.DataFiles(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		var q []string
		for _, f := range files {
			q = append(q, "'"+filepath.Join(s3.Dir, strings.TrimPrefix(f, "s3://"))+"'")
		}
		return strings.Join(q, ", ")
	}
	runs, meas := list(archive.TableRuns), list(archive.TableMeasurements)
	if runs == "" {
		return
	}
	sql := "SELECT r.run_id, (SELECT count(*)::INTEGER FROM read_parquet([" + meas + "]) m WHERE m.run_id = r.run_id) AS n " +
		"FROM read_parquet([" + runs + "]) r ORDER BY r.run_id"
	out, err := exec.Command(node, script, sql).Output()
	if err != nil {
		t.Fatalf("duckdb: %v", err)
	}
	var rows []struct {
		RunID string `json:"run_id"`
		N     int    `json:"n"`
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for i, r := range rows {
		if i > 0 && rows[i-1].RunID == r.RunID {
			t.Errorf("duckdb: run %s twice", r.RunID)
		}
		if r.N != want[r.RunID][0] {
			t.Errorf("duckdb: run %s has %d measurement rows, want %d", r.RunID, r.N, want[r.RunID][0])
		}
	}
}
