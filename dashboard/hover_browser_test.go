package dashboard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// hoverFirst scrolls the first element sel matches whose closest group
// (the element itself or an ancestor matching group) has a <title>
// accepted by the regular expression match into view, moves the mouse
// onto its centre and returns the title of the group the mouse is then
// over (points of several series may overlap there), "" when none is.
func hoverFirst(t *testing.T, ctx context.Context, sel, group, match string) string {
	t.Helper()
	js := fmt.Sprintf(`(() => {
		const re = new RegExp(%q);
		const el = [...document.querySelectorAll(%q)].find(e => {
			const ti = e.closest(%q) && e.closest(%q).querySelector(':scope > title');
			return ti && re.test(ti.textContent);
		});
		if (!el) return [];
		el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect();
		return [r.x + r.width/2, r.y + r.height/2];
	})()`, match, sel, group, group)
	box := eval[[]float64](t, ctx, js)
	if len(box) != 2 {
		return ""
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[0], box[1])); err != nil {
		t.Fatal(err)
	}
	return eval[string](t, ctx, fmt.Sprintf(`(() => { const g = document.elementFromPoint(%v, %v); const c = g && g.closest(%q); const ti = c && c.querySelector(':scope > title'); return ti ? ti.textContent : ""; })()`, box[0], box[1], group))
}

// tip is the text of the page script's tooltip, "" while it is hidden.
func tip(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `(() => { const e = document.getElementById('sm-tip'); return e && getComputedStyle(e).display !== "none" ? e.textContent : ""; })()`)
}

// clickCentre clicks the centre of the first element sel matches, after
// scrolling it into view.
func clickCentre(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	box := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return []; e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2]; })()`, sel))
	if len(box) != 2 {
		t.Fatalf("nothing matches %s", sel)
	}
	do(t, ctx, "click "+sel, chromedp.MouseClickXY(box[0], box[1]))
}

// hiddenOf counts the elements sel matches that are not displayed, and
// all of them.
func hiddenOf(t *testing.T, ctx context.Context, sel string) (int, int) {
	t.Helper()
	n := eval[[]int](t, ctx, fmt.Sprintf(`(() => { const s = [...document.querySelectorAll(%q)]; return [s.filter(e => getComputedStyle(e).display === "none" || e.closest('[style*="display: none"]')).length, s.length]; })()`, sel))
	return n[0], n[1]
}

// screenshot saves the page as NAME.png under SPEEDMATRIX_SCREENSHOTS,
// when it is set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	out := os.Getenv("SPEEDMATRIX_SCREENSHOTS")
	if out == "" {
		return
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserHover hovers and toggles what issue 24 asks of Compare and
// Landscape, at 1280×800: a ratio heatmap cell shows its ratio, both
// runs' figures and its cell; a frontier point its run, cell and values,
// and its legend entry hides and shows the run's points; on Landscape a
// point shows its value, cell and run (a run title holding <script>
// stays text), a legend entry hides and shows its points, and a click on
// a point opens its run; no console error. With SPEEDMATRIX_SCREENSHOTS
// set it saves compare-heatmap-hover.png, compare-frontier-toggled.png
// and landscape-hover.png there.
func TestBrowserHover(t *testing.T) {
	ta := newTestArchive(t)
	ctx, base, consoleErrors := browser(t, ta)
	do(t, ctx, "compare", chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(base+"/compare?sel="+ta.bf16+"&sel="+ta.int4), chromedp.WaitVisible(chromedp.CSS(`#answer`)))

	// A heatmap cell with a ratio, then one without.
	heat := `svg[aria-label*="tok/s ratio"] g.sm-cell path`
	cellTitle := regexp.MustCompile(`^Context length \S+, Simultaneous requests [0-9]+: ([0-9.]+×|no ratio)\n.+: ([0-9.,]+ tok/s|looped|over capacity|missing)\n.+ \(baseline\): ([0-9.,]+ tok/s|looped|over capacity|missing)$`)
	for _, tc := range []struct{ name, match string }{
		{"a ratio", `: [0-9.]+×\n`},
		{"no ratio", `: no ratio\n`},
	} {
		want := hoverFirst(t, ctx, heat, "g.sm-cell", tc.match)
		got := tip(t, ctx)
		if want == "" || got != want || !cellTitle.MatchString(got) {
			t.Errorf("heatmap cell with %s: the tooltip shows %q, the cell's title is %q", tc.name, got, want)
		}
		if tc.name == "a ratio" {
			screenshot(t, ctx, "compare-heatmap-hover")
		}
	}

	// The frontier at 8K: a point's hover, then its run's legend entry.
	front := `svg[aria-label^="Throughput against interactivity at 8K"]`
	want := hoverFirst(t, ctx, front+` g.sm-pt path`, "g.sm-pt", `8K×`)
	got := tip(t, ctx)
	if want == "" || got != want || !regexp.MustCompile(`^.+, 8K×[0-9]+: Output per request \(tok/s\) [0-9.]+, Total output \(tok/s\) [0-9.]+$`).MatchString(got) {
		t.Errorf("frontier point: the tooltip shows %q, the point's title is %q", got, want)
	}
	for i, wantHidden := range []bool{true, false} {
		if eval[int](t, ctx, `document.querySelectorAll('`+front+` [data-sm-toggle="r0"]').length`) == 0 {
			t.Errorf("the frontier has no legend toggle")
			break
		}
		clickCentre(t, ctx, front+` [data-sm-toggle="r0"]`)
		h, n := hiddenOf(t, ctx, front+` [data-sm~="r0"] g.sm-pt`)
		other, _ := hiddenOf(t, ctx, front+` [data-sm~="r1"] g.sm-pt`)
		if n == 0 || (h == n) != wantHidden || (h == 0) == wantHidden || other != 0 {
			t.Errorf("click %d on the frontier's first legend entry: %d of its %d points hidden (want all: %v), %d of the other run's", i+1, h, n, wantHidden, other)
		}
		if wantHidden {
			screenshot(t, ctx, "compare-frontier-toggled")
		}
	}

	// Landscape at 8K, every run: the run whose title holds markup.
	do(t, ctx, "landscape", chromedp.Navigate(base+"/landscape?ctx=8K"), chromedp.WaitVisible(chromedp.CSS(`#landscape`)))
	evil := `#landscape a.pt[href$="` + ta.evil + `"]`
	// A figure as measured: no zero padded after the decimals ("162.60").
	const num = `[0-9,]+(\.[0-9]*[1-9])?`
	want = hoverFirst(t, ctx, evil+` circle`, "circle", `.`)
	got = tip(t, ctx)
	if got != want || !regexp.MustCompile(`^`+num+` tok/s per GPU at `+num+` tok/s per user\n8K × [0-9]+ streams \(total `+num+` tok/s\)\nrun [0-9a-f]+: <script>alert\("x"\)</script> INT4 rerun\n`).MatchString(got) {
		t.Errorf("Landscape point: the tooltip shows %q, the point's title is %q", got, want)
	}
	screenshot(t, ctx, "landscape-hover")
	g := eval[string](t, ctx, `document.querySelector('`+evil+`').dataset.g`)
	for i, wantHidden := range []bool{true, false} {
		clickCentre(t, ctx, `.legend li[data-g="`+g+`"]`)
		h, n := hiddenOf(t, ctx, `#landscape a.pt[data-g="`+g+`"]`)
		other, all := hiddenOf(t, ctx, `#landscape a.pt:not([data-g="`+g+`"])`)
		if n == 0 || (h == n) != wantHidden || (h == 0) == wantHidden || other != 0 || all == 0 {
			t.Errorf("click %d on Landscape's legend entry %s: %d of its %d points hidden (want all: %v), %d of the %d others", i+1, g, h, n, wantHidden, other, all)
		}
	}
	clickCentre(t, ctx, evil+` circle`)
	do(t, ctx, "follow a point", chromedp.WaitVisible(chromedp.CSS(`table.fields`)))
	if u := eval[string](t, ctx, `location.href`); !strings.HasSuffix(u, "/run?id="+ta.evil) {
		t.Errorf("the point led to %s, want its run %s", u, ta.evil)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
