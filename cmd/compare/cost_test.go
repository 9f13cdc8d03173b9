package comparecmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const examplePrices = "../../testdata/prices.toml"

// TestSeedsPerDollarGolden compares the two seeds at the example prices:
// the seeds record no GPU count, so without -gpus the answer per dollar
// says so; with -gpus 1 (each ran on one GPU: --tensor-parallel-size 1)
// it has $ figures. Energy is "not recorded" for both.
func TestSeedsPerDollarGolden(t *testing.T) {
	for _, tt := range []struct {
		file string
		args []string
	}{
		{"seeds_prices.txt", []string{"-prices", examplePrices}},
		{"seeds_prices_gpus.txt", []string{"-prices", examplePrices, "-gpus", "1", "-min-user-tps", "100", "-max-ttft", "500"}},
		{"seeds_prices_gpus.md", []string{"-format", "markdown", "-prices", examplePrices, "-gpus", "1", "-min-user-tps", "100", "-max-ttft", "500"}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errs := runCmd(t, "", append(tt.args, seedBF16, seedINT4)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, tt.file, []byte(out))
		})
	}
}

// TestPerDollarFlags checks -prices, -price and -gpus: what each gives
// and the usage errors of bad values.
func TestPerDollarFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("as_of = 2026-12-01\n[gpu]\n\"H200\" = \"cheap\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ambiguous := filepath.Join(dir, "amb.toml")
	if err := os.WriteFile(ambiguous, []byte("as_of = 2026-12-01\n[gpu]\n\"RTX PRO\" = 1\n\"Edition\" = 2\n\"H200\" = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		out  []string // in stdout (exit 0) or stderr
	}{
		{"one-off prices, counts by label and by argument that agree with the recorded ones", []string{"-price", "H200=3", "-price", "RTX PRO 6000=1", "-gpus", "H200 NVL BF16=1", "-gpus", seedINT4 + "=1"}, exitOK,
			[]string{"2.27× the tokens per dollar at 1 $/h against 3 $/h (1 GPU each", "RTX PRO 6000 INT4  RTX PRO 6000 Blackwell Server Edition     1  1 (RTX PRO 6000)"}},
		{"a count that contradicts the recorded one", []string{"-price", "H200=3", "-price", "RTX PRO 6000=1", "-gpus", seedINT4 + "=2"}, exitFail,
			[]string{"records 1 GPU(s); -gpus says 2"}},
		{"a -price replaces the file's", []string{"-prices", examplePrices, "-price", "h200=4.8", "-gpus", "1"}, exitOK,
			[]string{"3.03× the tokens per dollar at 1.2 $/h against 4.8 $/h", "4.8 (h200)"}},
		{"a GPU without a price", []string{"-price", "H200=3", "-gpus", "1"}, exitOK,
			[]string{"tokens per dollar not compared (no price for RTX PRO 6000 INT4)", `RTX PRO 6000 INT4: price: no price for GPU "RTX PRO 6000 Blackwell Server Edition" (no $ figures); energy: not recorded.`}},
		{"bad price file", []string{"-prices", bad}, exitUsage, []string{"bad.toml:3: \"H200\": want US dollars per GPU-hour as a number (3.5), not a string"}},
		{"missing price file", []string{"-prices", filepath.Join(dir, "none.toml")}, exitUsage, []string{"-prices: open"}},
		{"ambiguous GPU", []string{"-prices", ambiguous}, exitFail, []string{`matches both "RTX PRO" (` + ambiguous + `:3) and "Edition"`}},
		{"bad -price", []string{"-price", "H200"}, exitUsage, []string{"want GPU=USD per GPU-hour"}},
		{"bad -gpus", []string{"-gpus", "x=0"}, exitUsage, []string{"-gpus \"x=0\": want RUN=N or N"}},
		{"prices with -list", []string{"-list", "-archive", dir, "-prices", examplePrices}, exitUsage, []string{"drop them with -list and -trend"}},
		{"unknown run in -gpus", []string{"-gpus", "B200=1"}, exitUsage, []string{`no run is labelled or given as "B200" (the runs: H200 NVL BF16, RTX PRO 6000 INT4)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(t, "", append(tt.args, seedBF16, seedINT4)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errs)
			}
			got := out
			if code != exitOK {
				got = errs
				if out != "" {
					t.Errorf("stdout on failure: %q", out)
				}
			}
			for _, w := range tt.out {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got[:min(len(got), 2500)])
				}
			}
		})
	}
}

// TestPerDollarHTML checks that the page and -plots carry the chart of
// tokens per dollar (the seeds record no energy: no chart per joule).
func TestPerDollarHTML(t *testing.T) {
	dir := t.TempDir()
	html, plotDir := filepath.Join(dir, "r.html"), filepath.Join(dir, "plots")
	code, _, errs := runCmd(t, "", "-prices", examplePrices, "-gpus", "1", "-html", html, "-plots", plotDir, seedBF16, seedINT4)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(plotDir, "per_dollar.png")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(plotDir, "per_joule.png")); err == nil {
		t.Error("a chart per joule without energy")
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Tokens per dollar against interactivity", "1.51× the tokens per dollar", "energy: not recorded"} {
		if !strings.Contains(string(b), w) {
			t.Errorf("page lacks %q", w)
		}
	}
}
