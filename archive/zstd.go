package archive

import (
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
