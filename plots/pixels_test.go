package plots

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pixelsGolden lists the SHA-256 of each seed chart's PNG pixels.
const pixelsGolden = "testdata/png_pixels.txt"

// pngPixels renders c as SavePNG does at the default size and returns
// the SHA-256 of its decoded RGBA pixels (not of the file: the encoder's
// compression may change without a pixel changing).
func pngPixels(t *testing.T, c Chart) string {
	t.Helper()
	fig, err := c.Figure()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := SavePNG(fig, &buf, DefaultWidthPx, DefaultHeightPx); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	sum := sha256.Sum256(rgba.Pix)
	return hex.EncodeToString(sum[:])
}

// TestPNGPixels checks that each seed chart's PNG is the same pixel for
// pixel as when testdata/png_pixels.txt was written: what a chart's SVG
// adds for a page (hover titles, invisible hover circles and cells,
// legend toggles; interactive.go) must draw nothing on a PNG.
//
// Note: the hashes were taken on amd64; an architecture whose compiler
// fuses multiply-adds (arm64, ppc64le, s390x) may round an edge pixel
// otherwise, so the test runs on amd64 alone.
func TestPNGPixels(t *testing.T) {
	if runtime.GOARCH != "amd64" && !*update {
		t.Skipf("pixel hashes were taken on amd64, this is %s", runtime.GOARCH)
	}
	var got strings.Builder
	for _, n := range seedCharts() {
		fmt.Fprintf(&got, "%s %s\n", n.Name, pngPixels(t, n.Chart))
	}
	if *update {
		if err := os.WriteFile(filepath.FromSlash(pixelsGolden), []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(filepath.FromSlash(pixelsGolden))
	if err != nil {
		t.Fatalf("%v (run go test ./plots -run TestPNGPixels -update to create it)", err)
	}
	wl := strings.Split(strings.TrimSpace(string(want)), "\n")
	gl := strings.Split(strings.TrimSpace(got.String()), "\n")
	if len(wl) != len(gl) {
		t.Fatalf("%d charts, %s lists %d", len(gl), pixelsGolden, len(wl))
	}
	for i := range gl {
		if gl[i] != wl[i] {
			t.Errorf("PNG pixels changed: got %q, %s has %q", gl[i], pixelsGolden, wl[i])
		}
	}
}
