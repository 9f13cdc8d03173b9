package pqwrite

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// The value encodings of the page writer's Parquet pages (pages.go): the
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
//
// A run starts an RLE run only at the start of a group of 8 (counted
// from the end of the last RLE run): the values before it fill their
// bit-packed groups first, so an RLE run starts wherever the group there
// holds 8 equal values, and takes the rest of their run.
//
// Note: checking a group of 8 values at once (same8), and packing 8 at
// once (appendGroups), rather than a value at a time took the hybrid
// encoding from 570M to 255M of the 2.4G instructions of 5 writes of
// 1,000 seed documents' measurements, and its mispredicted branches from
// 3.2M to 0.7M (cachegrind of BenchmarkWriteSeed1000); the bytes are the
// same (refHybrid). 71.4 → 58.9 cpu-µs/doc (6 interleaved rounds).
func appendHybrid[T int16 | int32](dst []byte, vals []T, width int) []byte {
	lit := 0 // vals[lit:p] wait to be bit-packed
	for p := 0; p+8 <= len(vals); {
		if !same8(vals[p : p+8]) {
			p += 8
			continue
		}
		v, j := vals[p], p+8
		for j+8 <= len(vals) && vals[j] == v && same8(vals[j:j+8]) {
			j += 8
		}
		for j < len(vals) && vals[j] == v {
			j++
		}
		dst = appendPacked(dst, vals[lit:p], width)
		dst = appendRLE(dst, v, j-p, width)
		lit, p = j, j
	}
	return appendPacked(dst, vals[lit:], width)
}

// same8 reports whether the 8 values of g are equal, comparing them 8
// bytes at a time: the first 8 bytes hold equal values when rotating
// them by one value leaves them the same (whatever the byte order), and
// the rest of g equal to them.
func same8[T int16 | int32](g []T) bool {
	size := int(unsafe.Sizeof(g[0]))
	b := unsafe.Slice((*byte)(unsafe.Pointer(&g[:8][0])), 8*size)
	w := binary.LittleEndian.Uint64(b)
	if w != bits.RotateLeft64(w, 8*size) {
		return false
	}
	for k := 8; k < len(b); k += 8 {
		if binary.LittleEndian.Uint64(b[k:]) != w {
			return false
		}
	}
	return true
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
		if width <= 8 {
			dst = appendGroups(dst, vals[:k], width)
		} else {
			dst = appendBits(dst, vals[:k], groups, width)
		}
		vals = vals[k:]
	}
	return dst
}

// appendGroups appends vals bit-packed with width bits each (at most
// 8), 8 values (width bytes) at a time, the last group padded with
// zeros.
func appendGroups[T int16 | int32](dst []byte, vals []T, width int) []byte {
	w := uint(width)
	for len(vals) > 0 {
		var g [8]T
		if len(vals) >= 8 {
			g = [8]T(vals)
		} else {
			copy(g[:], vals)
		}
		acc := uint64(uint32(g[0])) | uint64(uint32(g[1]))<<(w&63) |
			uint64(uint32(g[2]))<<(2*w&63) | uint64(uint32(g[3]))<<(3*w&63) |
			uint64(uint32(g[4]))<<(4*w&63) | uint64(uint32(g[5]))<<(5*w&63) |
			uint64(uint32(g[6]))<<(6*w&63) | uint64(uint32(g[7]))<<(7*w&63)
		// 8 bytes appended, width kept: the group's bits.
		dst = binary.LittleEndian.AppendUint64(dst, acc)[:len(dst)+width]
		vals = vals[min(len(vals), 8):]
	}
	return dst
}

// appendBits appends vals bit-packed with width bits each, a value at a
// time, padded with zeros to groups groups of 8.
func appendBits[T int16 | int32](dst []byte, vals []T, groups, width int) []byte {
	var acc uint64 // bits not yet written, the first in the lowest bit
	held := 0
	for _, v := range vals {
		acc |= uint64(uint32(v)) << held
		held += width
		for held >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			held -= 8
		}
	}
	// Zeros pad the last group to 8 values: groups×width bytes in all.
	for pad := groups*8 - len(vals); pad > 0; pad-- {
		held += width
		for held >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			held -= 8
		}
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
