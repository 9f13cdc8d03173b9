package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"speedmatrix/analysis"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// scaledCopy is m as another run measured it: every figure times f, the
// run's fields replaced by run's. It stands in for the simulator runs
// calibrated from the seeds in the 4-run report of issue 24 (the page's
// layout, not the figures, is under test).
func scaledCopy(m *schema.Matrix, run schema.Run, f float64) *schema.Matrix {
	out := &schema.Matrix{Run: run}
	for _, x := range m.Measurements {
		x.RunID = run.RunID
		for _, p := range []**float64{&x.TotalTokS, &x.PerRequestTokS} {
			if *p != nil {
				v := **p * f
				*p = &v
			}
		}
		out.Measurements = append(out.Measurements, x)
	}
	return out
}

// TestFirstScreen opens the report page of 2 and of 4 runs in headless
// Chromium at 1366×768 and checks that the first screen holds the answer
// with its "Where:" sentence and the whole ratio heatmap (issue 24: it
// was about four screens down). With SPEEDMATRIX_SCREENSHOTS set it saves
// each first screen there as a PNG.
func TestFirstScreen(t *testing.T) {
	bin := testtool.Chromium(t)
	int4, bf16 := load(t, seedINT4), load(t, seedBF16)
	simB := scaledCopy(bf16, simulatedFrom(bf16, "51b0000000000002").Run, 0.93)
	simI := scaledCopy(int4, simulatedFrom(int4, "51a0000000000001").Run, 1.08)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Flag("headless", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1366, 768),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancelC := chromedp.NewContext(actx)
	defer cancelC()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	for _, c := range []struct {
		name string
		ms   []*schema.Matrix
	}{
		{"report-2-runs", []*schema.Matrix{bf16, int4}},
		{"report-4-runs", []*schema.Matrix{bf16, int4, simB, simI}},
	} {
		cmp, err := analysis.Compare(c.ms[0], c.ms[1:], analysis.Options{Labels: Labels(c.ms), SameWithin: 0.03})
		if err != nil {
			t.Fatal(err)
		}
		r := New(cmp, Options{})
		charts, _ := r.Charts()
		path := filepath.Join(t.TempDir(), c.name+".html")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.WriteHTML(f, charts); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 768), chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.CSS(`#answer`))); err != nil {
			t.Fatal(err)
		}
		lead, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#answer').innerText`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(lead, "Where: by load") {
			t.Errorf("%s: the lead lacks the where-sentence: %q", c.name, lead)
		}
		// The heatmap's box, and that of the where-sentence's paragraph.
		box, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
			const s = document.querySelector('.leadcharts svg');
			if (!s) return [];
			const r = s.getBoundingClientRect();
			const w = [...document.querySelectorAll('#answer p')].find(p => p.innerText.includes('Where:')).getBoundingClientRect();
			return [r.top, r.bottom, r.left, r.right, w.top, window.innerHeight, window.innerWidth];
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if len(box) == 0 {
			t.Fatalf("%s: no heatmap beside the lead", c.name)
		}
		if box[1] > box[5] || box[3] > box[6] || box[1]-box[0] < 200 {
			t.Errorf("%s: heatmap at top %.0f bottom %.0f right %.0f, not whole on a %.0f×%.0f screen (or under 200 px tall)", c.name, box[0], box[1], box[3], box[6], box[5])
		}
		if box[4] > box[5] {
			t.Errorf("%s: the where-sentence starts at %.0f px, below the first screen", c.name, box[4])
		}
		if out := os.Getenv("SPEEDMATRIX_SCREENSHOTS"); out != "" {
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, c.name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
