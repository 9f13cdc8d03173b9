package plots

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// TestSVGInteractive checks what a page needs from a line chart's SVG
// (issue 24): each valid point an element whose <title> gives its exact
// value, each series a group naming its context group and run, a legend
// entry per group that names what it toggles, no marker left, and
// well-formed XML.
func TestSVGInteractive(t *testing.T) {
	var lc LineChart
	for _, n := range seedCharts() {
		if n.Name == "decode_total" {
			lc = n.Chart.(LineChart)
		}
	}
	valid := 0
	for _, s := range lc.Series {
		for _, p := range s.Points {
			if isValid(p.Status) {
				valid++
			}
		}
	}
	f, err := lc.Figure()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := SaveSVGNoFont(f, &buf, DefaultWidthPx, DefaultHeightPx); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if n := strings.Count(s, `<g class="sm-pt"><title>`); n != valid {
		t.Errorf("%d points with a title, want %d", n, valid)
	}
	if !strings.Contains(s, `<title>BF16 · H200 NVL 8K: Simultaneous requests 1, Total output (tok/s) `) {
		t.Errorf("no title of the first point of BF16 at 8K")
	}
	if n := strings.Count(s, `class="sm-series" data-sm="g`); n != len(lc.Series) {
		t.Errorf("%d series groups, want %d", n, len(lc.Series))
	}
	if !strings.Contains(s, `data-sm-toggle="g0"><title>8K: click to hide or show</title>`) || !strings.Contains(s, `data-sm-toggle="r1"`) {
		t.Errorf("legend toggles missing")
	}
	if strings.Contains(s, "SMK") {
		t.Errorf("a marker was left in the SVG")
	}
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
	}
}
