package dashboard

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"speedmatrix/internal/testtool"
)

// browser starts headless Chromium against the dashboard over a test
// archive and returns a context to drive it, the server's URL and a
// function that returns the console errors and exceptions seen so far.
func browser(t *testing.T, ta *testArchive) (context.Context, string, func() []string) {
	t.Helper()
	bin := testtool.Chromium(t)
	srv := httptest.NewServer(newServer(ta.arc, Options{}))
	t.Cleanup(srv.Close)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	var mu sync.Mutex
	var errs []string
	msgs := chromedp.Console(ctx) // subscribes now, before any page loads
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line))
				mu.Unlock()
			}
		}
	}()
	return ctx, srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), errs...)
	}
}

// hover moves the mouse onto the centre of the element sel matches.
func hover(ctx context.Context, sel string) error {
	js := fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2]; })()`, sel)
	box, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](js))
	if err != nil {
		return err
	}
	return chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[0], box[1]))
}

// eval runs a JavaScript expression and returns its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// do runs steps, failing the test with what for a message.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestBrowser walks the dashboard as a reader would: Runs, a GPU filter,
// two runs selected and compared, a hover on a Landscape point, a click
// through to its run, and reloads that give the same view; no console
// error or exception on any page.
func TestBrowser(t *testing.T) {
	ta := newTestArchive(t)
	ctx, base, consoleErrors := browser(t, ta)
	// Runs, then filter by GPU.
	do(t, ctx, "runs",
		chromedp.Navigate(base+"/runs"),
		chromedp.WaitVisible(chromedp.CSS(`table.runs`)),
		chromedp.SetValue(chromedp.CSS(`input[name="gpu"]`), "RTX PRO"),
		chromedp.Click(chromedp.CSS(`fieldset.filters button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="gpu"][value="RTX PRO"]`)),
	)
	rows := eval[int](t, ctx, `document.querySelectorAll('table.runs tbody tr').length`)
	count := eval[string](t, ctx, `document.querySelector('p.count').innerText`)
	if rows != 2 || !strings.Contains(count, fmt.Sprintf("the filters keep 2 of %d", ta.n)) {
		t.Errorf("GPU filter: %d rows, %q", rows, count)
	}
	// Select both; the URL keeps the selection at once, and a reload too.
	do(t, ctx, "select",
		chromedp.Click(chromedp.CSS(`table.runs tbody tr:nth-child(1) input[type="checkbox"]`)),
		chromedp.Click(chromedp.CSS(`table.runs tbody tr:nth-child(2) input[type="checkbox"]`)),
	)
	url := eval[string](t, ctx, `location.href`)
	if strings.Count(url, "sel=") != 2 || !strings.Contains(url, "gpu=RTX") {
		t.Errorf("URL after selecting two runs: %s", url)
	}
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`table.runs`)))
	if n := eval[int](t, ctx, `document.querySelectorAll('table.runs input[type="checkbox"]:checked').length`); n != 2 {
		t.Errorf("reload of %s: %d runs checked, want 2", url, n)
	}
	// Compare them: the outcome and the ratio heatmap.
	// #answer is the report's: nav.sm-bar alone matched the Runs page
	// still shown while the click's navigation was under way (seen under
	// load).
	do(t, ctx, "compare", chromedp.Click(chromedp.CSS(`#compare-selected`)), chromedp.WaitVisible(chromedp.CSS(`#answer`)))
	compareURL := eval[string](t, ctx, `location.href`)
	text := eval[string](t, ctx, `document.body.innerText`)
	heatmaps := eval[int](t, ctx, `document.querySelectorAll('svg[aria-label*="tok/s ratio"]').length`)
	if !strings.Contains(compareURL, "/compare?") || !strings.Contains(text, "decode throughput") || heatmaps == 0 {
		t.Errorf("compare at %s: %d heatmaps, outcome shown: %v", compareURL, heatmaps, strings.Contains(text, "decode throughput"))
	}
	do(t, ctx, "reload the comparison", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#answer`)))
	if again := eval[string](t, ctx, `document.body.innerText`); again != text {
		t.Errorf("reload of the comparison gave another page")
	}
	// A report chart (package plots' SVG): a hover on a point shows its
	// exact value; a click on a legend entry hides the series it names, a
	// second click shows them again.
	chart := `svg[aria-label^="Decode total throughput against simultaneous"]`
	eval[bool](t, ctx, `(() => { document.querySelector('`+chart+` g.sm-pt').scrollIntoView({block: "center"}); return true; })()`)
	if err := hover(ctx, chart+` g.sm-pt path`); err != nil {
		t.Fatal(err)
	}
	// Points of several series may overlap there: the title wanted is
	// that of the point the mouse is over.
	want := eval[string](t, ctx, `(() => { const r = document.querySelector('`+chart+` g.sm-pt path').getBoundingClientRect(); return document.elementFromPoint(r.x + r.width/2, r.y + r.height/2).closest('g.sm-pt').querySelector(':scope > title').textContent; })()`)
	if tip := eval[string](t, ctx, `document.getElementById('sm-tip').textContent`); tip != want || !strings.Contains(tip, "Simultaneous requests 1, Total output (tok/s) ") {
		t.Errorf("hover on a chart point shows %q, want its title %q", tip, want)
	}
	hidden := func() (int, int) {
		n := eval[[]int](t, ctx, `(() => { const s = [...document.querySelectorAll('`+chart+` [data-sm~="g0"]')]; return [s.filter(e => getComputedStyle(e).display === "none").length, s.length]; })()`)
		return n[0], n[1]
	}
	for i, wantHidden := range []bool{true, false} {
		eval[bool](t, ctx, `(() => { document.querySelector('`+chart+` [data-sm-toggle="g0"]').scrollIntoView({block: "center"}); return true; })()`)
		box := eval[[]float64](t, ctx, `(() => { const r = document.querySelector('`+chart+` [data-sm-toggle="g0"]').getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2]; })()`)
		do(t, ctx, "click a legend entry", chromedp.MouseClickXY(box[0], box[1]))
		h, n := hidden()
		if n == 0 || (h == n) != wantHidden || (h == 0) == wantHidden {
			t.Errorf("click %d on the legend entry: %d of %d elements of its series hidden, want all hidden: %v", i+1, h, n, wantHidden)
		}
	}
	// Landscape: hover a point, read its value, follow it to its run.
	do(t, ctx, "landscape", chromedp.Navigate(base+"/landscape?gpu=RTX+PRO&ctx=8K"), chromedp.WaitVisible(chromedp.CSS(`#landscape`)))
	if err := hover(ctx, `#landscape a.pt circle`); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "hover", chromedp.WaitVisible(chromedp.CSS(`#sm-tip`)))
	tip := eval[string](t, ctx, `document.getElementById('sm-tip').textContent`)
	if !regexp.MustCompile(`^[0-9.,]+ tok/s per (GPU|server \(GPU count not known\)) at [0-9.,]+ tok/s per user`).MatchString(tip) || !strings.Contains(tip, "8K ×") || !strings.Contains(tip, "run ") {
		t.Errorf("hover shows %q: want the value, cell and run", tip)
	}
	do(t, ctx, "follow a point", chromedp.Click(chromedp.CSS(`#landscape a.pt circle`)), chromedp.WaitVisible(chromedp.CSS(`table.fields`)))
	runURL := eval[string](t, ctx, `location.href`)
	runTitle := eval[string](t, ctx, `document.querySelector('h1').innerText`)
	if !strings.Contains(runURL, "/run?id=") || !strings.HasPrefix(runTitle, "Run ") {
		t.Errorf("the point led to %s (%q)", runURL, runTitle)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestScreenshots saves a 1280×800 PNG of each view under the directory
// SPEEDMATRIX_SCREENSHOTS names (scripts/serve-screenshots sets it to
// out/screenshots); without it the test skips. It is for a person to look
// at, not a check: the browser test above is.
func TestScreenshots(t *testing.T) {
	out := os.Getenv("SPEEDMATRIX_SCREENSHOTS")
	if out == "" {
		t.Skip("SPEEDMATRIX_SCREENSHOTS is not set: scripts/serve-screenshots sets it")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ta := newTestArchive(t)
	ctx, base, consoleErrors := browser(t, ta)
	for _, v := range []struct{ name, path string }{
		{"runs", "/runs"},
		{"runs-filtered", "/runs?gpu=RTX&sel=" + ta.int4 + "&sel=" + ta.evil},
		{"compare", "/compare?sel=" + ta.bf16 + "&sel=" + ta.int4},
		{"landscape", "/landscape?ctx=8K"},
		{"trend", "/trend?gpu=RTX"},
		{"trend-setups", "/trend"},
		{"run", "/run?id=" + ta.bf16},
	} {
		do(t, ctx, v.name, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(base+v.path), chromedp.WaitVisible(chromedp.CSS(`nav.sm-bar`)))
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, v.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
