package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
)

// pinnedRead returns the SQL statements of the documented way to read an
// archive with DuckDB: pin the current snapshot in a variable, then glob
// inside it. The variable is named v; each table is
// read_parquet(getvariable('v') || '/TABLE/*.parquet').
func pinnedRead(dir, v string) string {
	return fmt.Sprintf(`SET VARIABLE %s = (SELECT '%s/snapshots/' || content FROM read_text('%[2]s/current/SNAPSHOT'));`, v, dir)
}

// countsSQL returns one row: k, then the runs, distinct run ids,
// measurement rows and samples of the table paths prefix/TABLE/*.parquet.
func countsSQL(k int, prefix string) string {
	return fmt.Sprintf(`SELECT %d AS k,
		(SELECT count(*) FROM read_parquet(%[2]s || '/runs/*.parquet')) AS runs,
		(SELECT count(DISTINCT run_id) FROM read_parquet(%[2]s || '/runs/*.parquet')) AS ids,
		(SELECT count(*) FROM read_parquet(%[2]s || '/measurements/*.parquet')) AS meas,
		(SELECT count(*) FROM read_parquet(%[2]s || '/samples/*.parquet')) AS samples`, k, prefix)
}

// counts is one row of countsSQL.
type counts struct{ runs, ids, meas, samples int }

func (c counts) String() string {
	return fmt.Sprintf("%d runs (%d ids), %d measurements, %d samples", c.runs, c.ids, c.meas, c.samples)
}

func toCounts(t *testing.T, row map[string]any) counts {
	t.Helper()
	n := func(k string) int {
		v, err := strconv.Atoi(fmt.Sprint(row[k]))
		if err != nil {
			t.Fatalf("DuckDB row %v: %s: %v", row, k, err)
		}
		return v
	}
	return counts{n("runs"), n("ids"), n("meas"), n("samples")}
}

// archiveCounts is what testMatrices(0, n) holds.
func archiveCounts(n int) counts {
	return counts{runs: n, ids: n, meas: 5 * n, samples: 3 * (n / 2)}
}

const crashEnv = "ARCHIVE_TEST_CRASH"

// TestHelperCrash is not a test: run with ARCHIVE_TEST_CRASH=dir,op,k it
// runs op (append: testMatrices(5, 8); compact) on the archive in dir and
// kills its own process with SIGKILL just before the k-th file-system
// step of the write, as kill -9 would at that moment.
func TestHelperCrash(t *testing.T) {
	spec := os.Getenv(crashEnv)
	if spec == "" {
		return
	}
	parts := strings.Split(spec, ",")
	k, _ := strconv.Atoi(parts[2])
	n := 0
	stepHook = func(op, path string) {
		if n == k {
			killSelf()
			select {} // the signal is on its way
		}
		n++
	}
	if err := crashOp(parts[0], parts[1]); err != nil {
		t.Fatal(err)
	}
}

func crashOp(dir, op string) error {
	a, err := Open(dir)
	if err != nil {
		return err
	}
	if op == "compact" {
		return a.Compact(context.Background())
	}
	_, err = a.Append(context.Background(), testMatrices(5, 8))
	return err
}

// copyTree copies an archive directory (files, directories, symlinks).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		f, err := os.Create(dst)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, src); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKillAtEachStep kills an Append and a Compact at each of their
// file-system steps in turn (in a child process, by SIGKILL from the
// step itself) and checks with DuckDB what an outside reader of the
// documented paths finds: the archive of before or of after the write,
// never a mixture, never a run twice; then that the next writer
// recovers to what the tool itself reads.
func TestKillAtEachStep(t *testing.T) {
	if !canKill {
		t.Skip("kill -9 at each step needs Unix signals (kill_other_test.go)")
	}
	testtool.DuckDBQuery(t) // skip or fail early when DuckDB is missing
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "base")
	a, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int{{0, 3}, {3, 5}} {
		if _, err := a.Append(ctx, testMatrices(r[0], r[1])); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		op            string
		before, after counts
	}{
		{"append", archiveCounts(5), archiveCounts(8)},
		{"compact", archiveCounts(5), archiveCounts(5)},
	} {
		t.Run(tt.op, func(t *testing.T) {
			// Count the steps of the write on a copy.
			probe := filepath.Join(t.TempDir(), "probe")
			copyTree(t, base, probe)
			steps := 0
			stepHook = func(string, string) { steps++ }
			err := crashOp(probe, tt.op)
			stepHook = nil
			if err != nil {
				t.Fatal(err)
			}
			if steps < 10 {
				t.Fatalf("%s took %d file-system steps: the hook is not reached", tt.op, steps)
			}
			t.Logf("%s: %d file-system steps", tt.op, steps)
			dirs := make([]string, steps)
			for k := range steps {
				dirs[k] = filepath.Join(t.TempDir(), fmt.Sprintf("k%02d", k))
				copyTree(t, base, dirs[k])
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCrash$", "-test.count=1")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%s,%d", crashEnv, dirs[k], tt.op, k))
				out, err := cmd.CombinedOutput()
				ee, ok := err.(*exec.ExitError)
				if !ok || !killedBySignal(ee) {
					t.Fatalf("step %d: the child was not killed: %v\n%s", k, err, out)
				}
			}
			check := func(when string, want func(k int, c counts) string) {
				var sql []string
				var sel []string
				for k, d := range dirs {
					v := fmt.Sprintf("s%d", k)
					sql = append(sql, pinnedRead(d, v))
					sel = append(sel, countsSQL(k, fmt.Sprintf("getvariable('%s')", v)))
					// The plain glob through the symlink reads the same.
					sel = append(sel, countsSQL(1000+k, fmt.Sprintf("'%s/current'", d)))
				}
				rows := duckdb(t, strings.Join(sql, "\n")+"\n"+strings.Join(sel, "\nUNION ALL\n")+"\nORDER BY k")
				if len(rows) != 2*len(dirs) {
					t.Fatalf("%s: DuckDB returned %d rows, want %d", when, len(rows), 2*len(dirs))
				}
				for _, row := range rows {
					k, _ := strconv.Atoi(fmt.Sprint(row["k"]))
					if msg := want(k%1000, toCounts(t, row)); msg != "" {
						t.Errorf("%s, killed before step %d (%s read): %s", when, k%1000, map[bool]string{true: "glob of current/", false: "pinned"}[k >= 1000], msg)
					}
				}
			}
			check("after the kill", func(k int, c counts) string {
				if c != tt.before && c != tt.after {
					return fmt.Sprintf("DuckDB read %v, want %v (before) or %v (after)", c, tt.before, tt.after)
				}
				return ""
			})
			// The next writer recovers; DuckDB then reads what the tool reads.
			tool := make([]counts, len(dirs))
			for k, d := range dirs {
				a, err := Open(d)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := a.Append(ctx, testMatrices(0, 1)); err != nil {
					t.Fatalf("step %d: recovery: %v", k, err)
				}
				ms, err := a.Load(ctx)
				if err != nil {
					t.Fatal(err)
				}
				c := counts{runs: len(ms), ids: len(ms)}
				for _, m := range ms {
					c.meas += len(m.Measurements)
					c.samples += len(m.Samples)
				}
				tool[k] = c
			}
			check("after recovery", func(k int, c counts) string {
				if c != tool[k] || (c != tt.before && c != tt.after) {
					return fmt.Sprintf("DuckDB read %v, the tool %v", c, tool[k])
				}
				return ""
			})
		})
	}
}

// TestDuckDBPollsDuringCompactions reads the archive with DuckDB in a
// loop, the documented way, while it is appended to and compacted again
// and again, with old snapshots pruned after a short grace: no read may
// fail, and each must see whole runs, each once.
func TestDuckDBPollsDuringCompactions(t *testing.T) {
	node, script := testtool.DuckDBQuery(t)
	old := SnapshotGrace
	SnapshotGrace = 300 * time.Millisecond
	defer func() { SnapshotGrace = old }()
	ctx := context.Background()
	a := openTest(t)
	const start, rounds = 6, 12
	for i := 0; i < start; i += 2 {
		if _, err := a.Append(ctx, testMatrices(i, i+2)); err != nil {
			t.Fatal(err)
		}
	}
	d := a.Dir()
	sql := pinnedRead(d, "snap") + "\n" + countsSQL(0, "getvariable('snap')")
	tmp := t.TempDir()
	stop, ready := filepath.Join(tmp, "stop"), filepath.Join(tmp, "ready")
	cmd := exec.Command(node, filepath.Join(filepath.Dir(script), "poll.mjs"), sql, stop, ready)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the DuckDB poller did not start: %s", errb.String())
		}
	}
	for i := start; i < start+rounds; i++ {
		if _, err := a.Append(ctx, testMatrices(i, i+1)); err != nil {
			t.Fatal(err)
		}
		if err := a.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("poller: %v\n%s", err, errb.String())
	}
	var got struct {
		Runs    int                `json:"runs"`
		Results [][]map[string]any `json:"results"`
		Errors  []string           `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("poller output %q: %v", out.String(), err)
	}
	if len(got.Errors) > 0 {
		t.Fatalf("%d of %d DuckDB reads failed, first: %s", len(got.Errors), got.Runs, got.Errors[0])
	}
	for _, r := range got.Results {
		c := toCounts(t, r[0])
		if c != archiveCounts(c.runs) {
			t.Errorf("DuckDB read %v: not whole runs each once", c)
		}
	}
	if len(got.Results) < 3 {
		t.Errorf("the poller saw %d distinct states in %d reads: it did not overlap the writes", len(got.Results), got.Runs)
	}
	t.Logf("%d DuckDB reads, %d distinct states, no error", got.Runs, len(got.Results))
	// Old snapshots were pruned: the grace is short.
	ents, _ := os.ReadDir(filepath.Join(d, snapshotsDir))
	if len(ents) > rounds {
		t.Errorf("%d snapshots left after %d writes with a %v grace", len(ents), 2*rounds, SnapshotGrace)
	}
}
