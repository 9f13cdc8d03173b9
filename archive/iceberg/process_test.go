package iceberg

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// Writers in other processes: the test binary acts as one when
// helperEnv is set (TestHelperWriter), so the process tests need no
// separate build.
const helperEnv = "ICEBERG_TEST_HELPER"

// helper is what one writer process does: Rounds appends, round r of
// testMatrices(From+r*Step, To+r*Step); with Stall ("step:table") it
// stops at that step of the first append and waits to be killed.
type helper struct {
	Ref            string
	From, To, Step int
	Rounds         int
	Stall          string
	Retries        int
}

func (h helper) env() []string {
	return append(os.Environ(), helperEnv+"=1", "HELPER_REF="+h.Ref, "HELPER_STALL="+h.Stall,
		fmt.Sprintf("HELPER_RANGE=%d,%d,%d,%d,%d", h.From, h.To, h.Step, h.Rounds, h.Retries))
}

// TestHelperWriter is a writer process of the tests below; it does
// nothing in a normal test run. It prints "added RUN_ID" per run it
// added, "rerun ERR" when an append gave up after conflicts and was run
// again (as a user would), and "stalled STEP TABLE FILE" at the stall.
func TestHelperWriter(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("a writer process of TestProcessesAppendConcurrently and TestKilledWriter")
	}
	var h helper
	fmt.Sscanf(os.Getenv("HELPER_RANGE"), "%d,%d,%d,%d,%d", &h.From, &h.To, &h.Step, &h.Rounds, &h.Retries)
	ref, err := ParseRef(os.Getenv("HELPER_REF"))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	ctx := context.Background()
	a, err := Open(ctx, ref, Options{Create: true, Timeout: 60 * time.Second, Retries: h.Retries})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	if stall := os.Getenv("HELPER_STALL"); stall != "" {
		a.onStep = func(step, tbl, file string) {
			if step+":"+tbl == stall {
				fmt.Printf("stalled %s %s %s\n", step, tbl, file)
				os.Stdout.Sync()
				select {} // until SIGKILL
			}
		}
	}
	for r := range h.Rounds {
		ms := testMatrices(h.From+r*h.Step, h.To+r*h.Step)
		for {
			res, err := a.Append(ctx, ms)
			if err != nil && strings.Contains(err.Error(), "other writers committed first") {
				fmt.Println("rerun", strings.ReplaceAll(err.Error(), "\n", " "))
				continue
			}
			if err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			for _, it := range res.Items {
				if it.Outcome == archive.Added {
					fmt.Println("added", it.RunID)
				}
			}
			break
		}
	}
	os.Exit(0)
}

// teamRef starts versitygw (and PostgreSQL when installed: else a SQLite
// catalog) and returns a reference to namespace ns of a table on them.
func teamRef(t *testing.T) (ref func(ns string) string, s3 *testtool.S3) {
	t.Helper()
	s3 = testtool.StartVersitygw(t, "bench")
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	base := "iceberg+" + testtool.StartPostgres(t) + "&warehouse=s3://bench/history"
	return func(ns string) string { return base + "#" + ns }, s3
}

func parseRef(t testing.TB, s string) Ref {
	t.Helper()
	r, err := ParseRef(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rounds is how many rounds TestProcessesAppendConcurrently runs: 3 by
// default (a minute on two shared cores), SPEEDMATRIX_ICEBERG_ROUNDS
// for the 20.
func rounds() int {
	if n, err := strconv.Atoi(os.Getenv("SPEEDMATRIX_ICEBERG_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 3
}

// TestProcessesAppendConcurrently runs 8 writer processes at once, the
// team's set-up (PostgreSQL catalog, versitygw store): six append
// overlapping sets of runs to one namespace, two to namespaces of their
// own, several rounds each. Every run is in its tables exactly once and
// reported added by exactly one process; no process fails (an append
// that gave up after repeated conflicts is run again, and counted).
func TestProcessesAppendConcurrently(t *testing.T) {
	refOf, _ := teamRef(t)
	const procs, shared, step = 8, 6, 100
	n := rounds()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]bytes.Buffer, procs)
	errs := make([]bytes.Buffer, procs)
	nsOf := func(p int) string {
		if p < shared {
			return "team"
		}
		return "solo" + strconv.Itoa(p)
	}
	start := time.Now()
	for p := range cmds {
		h := helper{Ref: refOf(nsOf(p)), From: p * 2, To: p*2 + 6, Step: step, Rounds: n, Retries: 8}
		cmds[p] = exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmds[p].Env = h.env()
		cmds[p].Stdout, cmds[p].Stderr = &outs[p], &errs[p]
		if err := cmds[p].Start(); err != nil {
			t.Fatal(err)
		}
	}
	added := map[string]map[string]int{} // namespace → run id → times
	reruns := 0
	for p, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s\n%s", p, err, outs[p].String(), errs[p].String())
		}
		ns := nsOf(p)
		if added[ns] == nil {
			added[ns] = map[string]int{}
		}
		sc := bufio.NewScanner(&outs[p])
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && f[0] == "added":
				added[ns][f[1]]++
			case len(f) > 0 && f[0] == "rerun":
				reruns++
				t.Logf("process %d: %s", p, sc.Text())
			}
		}
	}
	t.Logf("%d processes × %d rounds in %v; %d appends run again after repeated conflicts", procs, n, time.Since(start).Round(time.Millisecond), reruns)
	want := map[string][]*schema.Matrix{}
	for r := range n {
		want["team"] = append(want["team"], testMatrices(r*step, r*step+(shared-1)*2+6)...)
		for p := shared; p < procs; p++ {
			want[nsOf(p)] = append(want[nsOf(p)], testMatrices(r*step+p*2, r*step+p*2+6)...)
		}
	}
	for ns, ms := range want {
		for _, m := range ms {
			if added[ns][m.Run.RunID] != 1 {
				t.Errorf("%s: run %s reported added %d times", ns, m.Run.RunID, added[ns][m.Run.RunID])
			}
		}
		if len(added[ns]) != len(ms) {
			t.Errorf("%s: %d runs added, want %d", ns, len(added[ns]), len(ms))
		}
		a := openRef(t, parseRef(t, refOf(ns)))
		checkHolds(t, a, ms)
	}
}
