package archive

import "encoding/binary"

// The value encodings of the archive's own Parquet pages (pages.go): the
// RLE/bit-packed hybrid of the Parquet spec for definition and
// repetition levels and dictionary indices, and PLAIN booleans.
//
// Note: arrow-go's level encoder took the levels one value at a time
// through an interface (RleEncoder.Put), a tenth of the CPU time of the
// write; these functions take a page's levels at once.

// maxPackedGroups is the most groups of 8 values one bit-packed run
// holds: 63 keeps its header one byte, as parquet-cpp and arrow-go write
// them (the spec allows more, some readers once did not).
const maxPackedGroups = 63

// appendHybrid appends vals (each below 1<<width) to dst in the
// RLE/bit-packed hybrid encoding with width bits per value, without the
// length prefix: runs of 8 or more equal values as RLE runs, the rest in
// bit-packed groups of 8 (the last one padded with zeros, which readers
// stop short of: they know the count from the page header).
func appendHybrid[T int16 | int32](dst []byte, vals []T, width int) []byte {
	n := len(vals)
	lit := 0 // vals[lit:i] wait to be bit-packed
	for i := 0; i < n; {
		v := vals[i]
		j := i + 1
		for j < n && vals[j] == v {
			j++
		}
		// A bit-packed run holds whole groups of 8: the pending literals
		// take values of this run until they fill their last group.
		if pend := (i - lit) % 8; pend != 0 {
			i += min(j-i, 8-pend)
			if i == j {
				continue
			}
		}
		if j-i >= 8 {
			dst = appendPacked(dst, vals[lit:i], width)
			dst = appendRLE(dst, v, j-i, width)
			lit = j
		}
		i = j
	}
	return appendPacked(dst, vals[lit:], width)
}

// appendRLE appends an RLE run of count times v.
func appendRLE[T int16 | int32](dst []byte, v T, count, width int) []byte {
	dst = binary.AppendUvarint(dst, uint64(count)<<1)
	x := uint32(v)
	for k := 0; k < (width+7)/8; k++ {
		dst = append(dst, byte(x))
		x >>= 8
	}
	return dst
}

// appendPacked appends vals as bit-packed runs of at most
// maxPackedGroups groups of 8 values each, the last group padded with
// zeros; nothing for no values.
func appendPacked[T int16 | int32](dst []byte, vals []T, width int) []byte {
	for len(vals) > 0 {
		groups := min((len(vals)+7)/8, maxPackedGroups)
		dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
		k := min(len(vals), groups*8)
		var acc uint64 // bits not yet written, the first in the lowest bit
		bits := 0
		for _, v := range vals[:k] {
			acc |= uint64(uint32(v)) << bits
			bits += width
			for bits >= 8 {
				dst = append(dst, byte(acc))
				acc >>= 8
				bits -= 8
			}
		}
		// Zeros pad the last group to 8 values: groups×width bytes in all.
		for pad := groups*8 - k; pad > 0; pad-- {
			bits += width
			for bits >= 8 {
				dst = append(dst, byte(acc))
				acc >>= 8
				bits -= 8
			}
		}
		vals = vals[k:]
	}
	return dst
}

// appendBools appends vals PLAIN-encoded: one bit each, the first in the
// lowest bit of the first byte.
func appendBools(dst []byte, vals []bool) []byte {
	for i := 0; i < len(vals); i += 8 {
		var b byte
		for k, v := range vals[i:min(i+8, len(vals))] {
			if v {
				b |= 1 << k
			}
		}
		dst = append(dst, b)
	}
	return dst
}
