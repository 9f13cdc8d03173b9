package pqwrite

import (
	"encoding/binary"
	"runtime"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// zstdCodec is arrow-go's zstd codec with encoders that keep a 1 MB
// window and stay alive between pages; decoding is arrow-go's own.
//
// Note: arrow-go's encoders (a sync.Pool, emptied by every collection)
// have the default 8 MB window, and each new one allocated and zeroed a
// 16 MB history on its first page: a tenth of the CPU time of ingesting
// 1,000 documents went to that. A page is at most 1 MB, so a larger
// window finds nothing more; the frames are standard zstd either way.
//
// Note: the frames carry no checksum (optional in zstd; Parquet readers
// have the page's own sizes, and arrow-go and DuckDB read them the same):
// an ingest of 1,000 generated documents hashed its 7.9 MB of pages for
// 0.3% of its CPU time, and its files are 1.7% (measurements) and 1.2%
// (runs) smaller; Ingest1000/command 257.0 → 248.7 cpu-µs/doc (6
// interleaved rounds, a quiet machine).
type zstdCodec struct{ compress.Codec }

// zstdEncoders holds idle encoders; more than it holds are let go.
var zstdEncoders = make(chan *zstd.Encoder, 2*runtime.GOMAXPROCS(0))

func init() {
	c, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		return // arrow-go without zstd: the files fail to write, saying so
	}
	compress.RegisterCodec(compress.Codecs.Zstd, zstdCodec{c})
}

// Encode implements compress.Codec.
func (c zstdCodec) Encode(dst, src []byte) []byte {
	return c.EncodeLevel(dst, src, compress.DefaultCompressionLevel)
}

// EncodeLevel implements compress.Codec. The archive writes at the
// default level; another level goes to arrow-go's codec.
func (c zstdCodec) EncodeLevel(dst, src []byte, level int) []byte {
	if level != compress.DefaultCompressionLevel {
		return c.Codec.EncodeLevel(dst, src, level)
	}
	out, err := zstdEncode(dst[:0], src)
	if err != nil {
		return c.Codec.EncodeLevel(dst, src, level)
	}
	return out
}

// zstdEncode appends src compressed as one zstd frame to dst, with one of
// the long-lived encoders (pages.go compresses pages with it).
func zstdEncode(dst, src []byte) ([]byte, error) {
	if len(src) < rawFrameMax {
		return appendRawFrame(dst, src), nil
	}
	var enc *zstd.Encoder
	select {
	case enc = <-zstdEncoders:
	default:
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true), zstd.WithAllLitEntropyCompression(true), zstd.WithEncoderCRC(false))
		if err != nil {
			return nil, err
		}
	}
	out := enc.EncodeAll(src, dst)
	select {
	case zstdEncoders <- enc:
	default:
	}
	return out, nil
}

// rawFrameMax is the size below which a page is stored in a zstd frame
// as it is (a raw block), without looking for matches.
//
// Note: most pages of an ingest are a few bytes (the levels of a column
// of nulls, a dictionary of one value: 639 of the 872 frames of 1,000
// generated documents were under 64 bytes), and the encoder looked each
// position up in its 1 MB table, cold by then: 56% of its time was that
// one load, the runs' pages (300 KB in all) cost as much as the
// measurements' (7.6 MB). Below 256 bytes: 0.348 → 0.341 and 0.363 →
// 0.353 CPU seconds for the whole ingest (two series of 10 interleaved
// runs; below 64 bytes was 3% slower than 256), files 0.8%
// (measurements) and 0.3% (runs) larger.
const rawFrameMax = 256

// appendRawFrame appends src (shorter than 256 bytes) as one zstd frame
// of one raw block: the magic number, a frame header of a single segment
// whose content size takes one byte, and the block's header (last, raw,
// its size).
func appendRawFrame(dst, src []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, 0xFD2FB528)
	dst = append(dst, 0x20, byte(len(src))) // single segment, a 1-byte size
	h := uint32(len(src))<<3 | 1            // raw block (type 0), last
	dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
	return append(dst, src...)
}
