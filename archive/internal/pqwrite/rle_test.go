package pqwrite

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// decodeHybrid decodes n values of width bits from the RLE/bit-packed
// hybrid b as the Parquet spec reads it, failing on malformed input or
// bytes left over.
func decodeHybrid(t *testing.T, b []byte, n, width int) []int32 {
	t.Helper()
	var out []int32
	for len(out) < n {
		h, k := binary.Uvarint(b)
		if k <= 0 {
			t.Fatalf("bad run header at %d values", len(out))
		}
		b = b[k:]
		if h&1 == 0 { // RLE: count, then the value in whole bytes
			count, nb := int(h>>1), (width+7)/8
			if count == 0 || len(b) < nb {
				t.Fatalf("bad RLE run at %d values: count %d, %d bytes left", len(out), count, len(b))
			}
			var v uint32
			for i := nb - 1; i >= 0; i-- {
				v = v<<8 | uint32(b[i])
			}
			b = b[nb:]
			for range count {
				out = append(out, int32(v))
			}
			continue
		}
		groups := int(h >> 1)                                    // bit-packed: groups of 8, lowest bit first
		if groups == 0 || groups > 63 || len(b) < groups*width { // 63: a one-byte header
			t.Fatalf("bad bit-packed run at %d values: %d groups, %d bytes left", len(out), groups, len(b))
		}
		for i := range groups * 8 {
			var v uint32
			for j := range width {
				bit := i*width + j
				v |= uint32(b[bit/8]>>(bit%8)&1) << j
			}
			out = append(out, int32(v))
		}
		b = b[groups*width:]
	}
	if len(b) > 0 {
		t.Fatalf("%d bytes after the values", len(b))
	}
	if len(out) > n {
		// Padding of the last bit-packed group: zeros, fewer than 8.
		pad := out[n:]
		if len(pad) >= 8 || slices.ContainsFunc(pad, func(v int32) bool { return v != 0 }) {
			t.Fatalf("values past the %d: %v", n, pad)
		}
	}
	return out[:n]
}

// TestHybridSpecExample checks the bit order against the Parquet spec's
// own example: 0 to 7 with bit width 3 bit-packed as 10001000 11000110
// 11111010 after the header of one group.
func TestHybridSpecExample(t *testing.T) {
	got := appendHybrid(nil, []int32{0, 1, 2, 3, 4, 5, 6, 7}, 3)
	if want := []byte{0x03, 0b10001000, 0b11000110, 0b11111010}; !bytes.Equal(got, want) {
		t.Fatalf("got % x, want % x", got, want)
	}
	// A run of 100 fives of width 3: header 100<<1, the value in a byte.
	got = appendHybrid(nil, slices.Repeat([]int32{5}, 100), 3)
	if want := []byte{0xc8, 0x01, 0x05}; !bytes.Equal(got, want) {
		t.Fatalf("got % x, want % x", got, want)
	}
}

// TestHybridRoundTrip encodes values of every shape the pages hold and
// decodes them as the spec reads them: the same values, runs where runs
// are long enough, no bit-packed run over maxPackedGroups groups.
func TestHybridRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n, width int, runs bool) []int32 {
		out := make([]int32, 0, n)
		for len(out) < n {
			v := rng.Int32N(1 << width)
			k := 1
			if runs {
				k = 1 + rng.IntN(20)
			}
			for ; k > 0 && len(out) < n; k-- {
				out = append(out, v)
			}
		}
		return out
	}
	tests := []struct {
		name  string
		vals  []int32
		width int
		max   int // the most bytes the encoding may take, 0 for no limit
	}{
		{"none", nil, 1, 0},
		{"one", []int32{1}, 1, 2},
		{"seven equal", slices.Repeat([]int32{1}, 7), 1, 2},
		{"eight equal", slices.Repeat([]int32{1}, 8), 1, 2},
		{"a long run", slices.Repeat([]int32{2}, 100000), 2, 4},
		{"alternating", random(1000, 1, false), 1, 0},
		{"levels of lists", []int32{0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0, 2, 2, 2}, 2, 0},
		{"three then a run", append([]int32{1, 0, 1}, slices.Repeat([]int32{0}, 30)...), 1, 0},
		{"literals longer than a run", random(5000, 7, false), 7, 0},
		{"runs and literals, width 1", random(3000, 1, true), 1, 0},
		{"runs and literals, width 5", random(3000, 5, true), 5, 0},
		{"runs and literals, width 17", random(3000, 17, true), 17, 0},
		{"width 30", random(100, 30, false), 30, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := appendHybrid([]byte("prefix"), tt.vals, tt.width)
			if !bytes.HasPrefix(enc, []byte("prefix")) {
				t.Fatal("the bytes before were changed")
			}
			enc = enc[len("prefix"):]
			if tt.max > 0 && len(enc) > tt.max {
				t.Fatalf("%d bytes, want at most %d", len(enc), tt.max)
			}
			if got := decodeHybrid(t, enc, len(tt.vals), tt.width); !slices.Equal(got, tt.vals) && len(tt.vals) > 0 {
				t.Fatalf("decoded %v, want %v", got[:min(len(got), 40)], tt.vals[:min(len(tt.vals), 40)])
			}
			// int16 levels encode as int32 values do.
			lv := make([]int16, len(tt.vals))
			for i, v := range tt.vals {
				lv[i] = int16(v)
			}
			if tt.width < 16 && !bytes.Equal(appendHybrid(nil, lv, tt.width), enc) {
				t.Fatal("int16 values encode differently")
			}
			if want := refHybrid(nil, tt.vals, tt.width); !bytes.Equal(enc, want) {
				t.Fatalf("% x, the value-at-a-time encoder's % x", enc[:min(len(enc), 40)], want[:min(len(want), 40)])
			}
		})
	}
}

// FuzzHybrid round-trips any values.
func FuzzHybrid(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}, uint8(2))
	f.Add(bytes.Repeat([]byte{1, 0}, 300), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		width := 1 + int(w%16)
		vals := make([]int32, len(b))
		for i, x := range b {
			vals[i] = int32(x) & (1<<width - 1)
		}
		enc := appendHybrid(nil, vals, width)
		got := decodeHybrid(t, enc, len(vals), width)
		if !slices.Equal(got, vals) && len(vals) > 0 {
			t.Fatalf("decoded %v, want %v", got, vals)
		}
		if want := refHybrid(nil, vals, width); !bytes.Equal(enc, want) {
			t.Fatalf("% x, the value-at-a-time encoder's % x", enc, want)
		}
	})
}

// refHybrid is appendHybrid as it was written first, finding the end of
// every run a value at a time and packing a value at a time: the bytes
// appendHybrid must still write.
func refHybrid[T int16 | int32](dst []byte, vals []T, width int) []byte {
	n := len(vals)
	lit := 0 // vals[lit:i] wait to be bit-packed
	for i := 0; i < n; {
		v := vals[i]
		j := i + 1
		for j < n && vals[j] == v {
			j++
		}
		if pend := (i - lit) % 8; pend != 0 {
			i += min(j-i, 8-pend)
			if i == j {
				continue
			}
		}
		if j-i >= 8 {
			dst = refPacked(dst, vals[lit:i], width)
			dst = appendRLE(dst, v, j-i, width)
			lit = j
		}
		i = j
	}
	return refPacked(dst, vals[lit:], width)
}

// refPacked is refHybrid's bit-packing, a value at a time.
func refPacked[T int16 | int32](dst []byte, vals []T, width int) []byte {
	for len(vals) > 0 {
		groups := min((len(vals)+7)/8, maxPackedGroups)
		dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
		k := min(len(vals), groups*8)
		dst = appendBits(dst, vals[:k], groups, width)
		vals = vals[k:]
	}
	return dst
}

// TestSame8 checks same8 against a comparison a value at a time, for
// groups that differ in any one value, in low or high bytes.
func TestSame8(t *testing.T) {
	for _, v := range []int32{0, 1, 255, 256, 1<<16 - 1, 1 << 16, 1<<31 - 1} {
		for at := -1; at < 8; at++ {
			for _, other := range []int32{v ^ 1, v ^ 256, v ^ 1<<16, v ^ 1<<30} {
				g := slices.Repeat([]int32{v}, 8)
				if at >= 0 {
					g[at] = other
				}
				if got, want := same8(g), at < 0; got != want {
					t.Errorf("same8(%v) = %v", g, got)
				}
				if v < 1<<15 && other < 1<<15 && other >= 0 {
					h := make([]int16, 8)
					for i, x := range g {
						h[i] = int16(x)
					}
					if got, want := same8(h), at < 0 || h[at] == int16(v); got != want {
						t.Errorf("same8(%v) = %v", h, got)
					}
				}
			}
		}
	}
}

// TestAppendBools checks PLAIN booleans: a bit each, the first lowest.
func TestAppendBools(t *testing.T) {
	tests := []struct {
		in   []bool
		want []byte
	}{
		{nil, nil},
		{[]bool{true}, []byte{1}},
		{[]bool{false, true, true, false, false, false, false, false, true}, []byte{0b110, 1}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.in), func(t *testing.T) {
			if got := appendBools(nil, tt.in); !bytes.Equal(got, tt.want) {
				t.Fatalf("got %08b, want %08b", got, tt.want)
			}
		})
	}
}
