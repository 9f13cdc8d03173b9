package runner

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPeriodicTail(t *testing.T) {
	prose := neutralText(rand.New(rand.NewPCG(1, 2)), 20000)
	unit := func(n int) string { return prose[:n] }
	tests := []struct {
		name           string
		text           string
		period, cycles int64
		loop           bool
	}{
		{"prose", prose, 0, 0, false},
		{"short loop under 4096 chars", prose[:3000] + strings.Repeat(unit(100), 40), 0, 0, false},
		{"100-char period", prose[:3000] + strings.Repeat(unit(100), 50), 100, 50, true},
		{"3 cycles of 2000", prose[:3000] + strings.Repeat(unit(2000), 3), 0, 0, false},
		{"4 cycles of 2000", prose[:3000] + strings.Repeat(unit(2000), 4), 2000, 4, true},
		{"single char", prose[:100] + "Z" + strings.Repeat("a", 5000), 1, 5000, true},
		{"period over 32 KiB", strings.Repeat(neutralText(rand.New(rand.NewPCG(3, 4)), 33000)[:33000], 4), 0, 0, false},
		{"period 32 KiB", strings.Repeat(neutralText(rand.New(rand.NewPCG(3, 4)), 33000)[:32768], 4), 32768, 4, true},
		{"loop seen while streaming, then fresh text", strings.Repeat(unit(100), 50) + prose[5000:5600], 100, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d loopDetector
			d.reset()
			var hit LoopHit
			var ok bool
			// Feed in token-sized pieces, as a stream would.
			for i := 0; i < len(tt.text) && !ok; i += 4 {
				j := min(i+4, len(tt.text))
				hit, ok = d.add([]byte(tt.text[i:j]), false)
			}
			if !ok && tt.loop {
				// The detector may defer its last check; a final check
				// of the whole tail must find it.
				p, m := periodicTail([]byte(tt.text[max(0, len(tt.text)-loopWindow):]))
				hit, ok = LoopHit{PeriodChars: int64(p), Cycles: int64(m / max(p, 1))}, p > 0
				if !ok {
					t.Fatalf("no loop found")
				}
				if hit.PeriodChars != tt.period || hit.Cycles != tt.cycles {
					t.Fatalf("final check: period %d cycles %d, want %d %d", hit.PeriodChars, hit.Cycles, tt.period, tt.cycles)
				}
				return
			}
			if ok != tt.loop {
				t.Fatalf("loop = %v (%+v), want %v", ok, hit, tt.loop)
			}
			if ok && hit.PeriodChars != tt.period {
				t.Errorf("period %d, want %d", hit.PeriodChars, tt.period)
			}
			if ok && hit.Cycles < minLoopCycles {
				t.Errorf("cycles %d < %d", hit.Cycles, minLoopCycles)
			}
		})
	}
}

func TestLoopDetectorEscapes(t *testing.T) {
	var d loopDetector
	d.reset()
	raw := []byte(`line \"quoted\"\n\u00e9`)
	var ok bool
	for i := 0; i < 2000 && !ok; i++ {
		_, ok = d.add(raw, true)
	}
	if !ok {
		t.Fatal("escaped repeated text not detected")
	}
	if strings.Contains(string(d.buf), `\n`) {
		t.Fatal("buffer holds escapes, want decoded text")
	}
}

// BenchmarkLoopDetector measures the amortized cost per byte of watching
// a 16 KiB non-looping stream fed 4 bytes at a time.
func BenchmarkLoopDetector(b *testing.B) {
	text := []byte(neutralText(rand.New(rand.NewPCG(5, 6)), 16<<10))
	b.SetBytes(int64(len(text)))
	var d loopDetector
	for b.Loop() {
		d.reset()
		for i := 0; i+4 <= len(text); i += 4 {
			d.add(text[i:i+4], false)
		}
	}
}
