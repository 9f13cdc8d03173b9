package pqwrite

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
)

// chunk encodes one leaf column's chunk of the row group being written:
// DataPage V1 pages, zstd-compressed, cut as they fill, and at the
// group's end the dictionary page of a dictionary leaf ahead of them.
// Its buffers are kept from group to group (and file to file:
// writerBufs).
//
// Note: arrow-go's column writers (one made for every column of every
// row group) took the values through WriteBatch in batches of 1,024,
// encoded the levels a value at a time and copied every page twice
// before compressing it. A chunk writes the same pages from the gathered
// values: levels as the RLE/bit-packed hybrid (rle.go), PLAIN values, or
// dictionary indices and the dictionary dictleaf.go gathers, page
// headers in Thrift's compact protocol (pageheader.go); the footer is
// arrow-go's own metadata builders'. 1,000 seed documents' measurements
// 98.8 → 49.4 CPU-µs/doc, runs 9.0 → 3.1, files 1.4% smaller
// (`archive.test -test.run XXX -test.bench WriteSeed1000
// -test.benchtime 15x -test.benchmem`, main's binary and this one in
// turn, 6 rounds, load 4–5); Ingest1000/command 1.14–1.20× (README).
type chunk struct {
	descr          *pqschema.Column
	maxDef, maxRep int16
	dict           dictionary // a dictionary leaf's dictionary, or nil
	fallback       bool       // the dictionary outgrew its limit: the rest of the group is PLAIN
	stats          bool       // min/max and null count kept (run_id only: see Props)
	pageSize       int        // a data page is cut once its values reach this size
	dictLimit      int        // the dictionary falls back to PLAIN at this size
	dictEnc        int32      // the encoding of dictionary indices (RLE_DICTIONARY)
	dictPageEnc    int32      // the encoding of the dictionary page (PLAIN)
	maxStats       int        // min and max longer than this are left out

	// The page being filled: its levels (for a column that has them) and
	// values, PLAIN (vals, bools) or dictionary indices (idx).
	def, rep []int16
	vals     []byte
	bools    []bool
	idx      []int32
	nvals    int // the page's values (not nulls)
	raw      int // the PLAIN size of the page's dictionary-encoded values

	// The group's data pages so far, headers and compressed bodies.
	pages                 []byte
	levels                int64 // values and nulls of the group's pages
	uncompressed          int64 // headers and uncompressed bodies of the pages
	dictPages, plainPages int32

	// Statistics of the group (when stats).
	min, max  string
	hasMinMax bool
	nulls     int64
}

// maxPageLevels is the most levels a page holds, whatever the size of
// its values: a column of mostly nulls (or empty lists) cuts its pages
// there rather than buffering a whole group's levels.
var maxPageLevels = 1 << 17 // a variable so tests can cut small pages

// newChunk returns the chunk writer of leaf column descr of a file
// written with props; dict is the leaf's dictionary or nil.
func newChunk(descr *pqschema.Column, props *parquet.WriterProperties, dict dictionary) *chunk {
	c := &chunk{descr: descr, maxDef: descr.MaxDefinitionLevel(), maxRep: descr.MaxRepetitionLevel(),
		dict: dict, stats: props.StatisticsEnabledFor(descr.Path()),
		pageSize: int(props.DataPageSize()), dictLimit: int(props.DictionaryPageSizeLimit()),
		dictEnc: int32(props.DictionaryIndexEncoding()), dictPageEnc: int32(props.DictionaryPageEncoding()),
		maxStats: int(props.MaxStatsSizeFor(descr.Path()))}
	return c
}

// dictMode reports whether the chunk's values go in as dictionary
// indices.
func (c *chunk) dictMode() bool { return c.dict != nil && !c.fallback }

// pageLevels returns the levels (values and nulls) of the page being
// filled.
func (c *chunk) pageLevels() int {
	if c.maxDef > 0 {
		return len(c.def)
	}
	return c.nvals
}

// filled cuts the page once its values reach the page size (or its
// levels maxPageLevels), and falls back to PLAIN once the dictionary
// reaches its limit, as arrow-go's column writer does after a batch.
func (c *chunk) filled(s *scratch) error {
	size := len(c.vals)
	if c.dictMode() {
		size = c.raw
	}
	if size >= c.pageSize || c.pageLevels() >= maxPageLevels {
		if err := c.flushPage(s); err != nil {
			return err
		}
	}
	if c.dictMode() && c.dict.pageBytes() >= c.dictLimit {
		c.toPlain()
	}
	return nil
}

// toPlain falls back from the dictionary to PLAIN values for the rest of
// the group: the page being filled is re-encoded PLAIN, and when no page
// of indices was cut yet, the dictionary is left out of the chunk
// (arrow-go's FallbackToPlain).
func (c *chunk) toPlain() {
	vals := c.vals
	for _, i := range c.idx {
		vals = c.dict.appendPlain(vals, i)
	}
	c.vals = vals
	c.idx = c.idx[:0]
	c.raw = 0
	c.fallback = true
}

// appendPlainString appends s as a PLAIN byte array: its length as 4
// little-endian bytes, then its bytes.
func appendPlainString(dst []byte, s string) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

// appendLevels appends levels (each at most max) as a DataPage V1 holds
// them: the RLE/bit-packed hybrid after its length in 4 bytes.
func appendLevels(dst []byte, levels []int16, max int16) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = appendHybrid(dst, levels, bits.Len16(uint16(max)))
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

// indexWidth is the bit width of the indices into a dictionary of n
// values, as arrow-go writes it.
func indexWidth(n int) int {
	if n <= 1 {
		return n
	}
	return bits.Len32(uint32(n - 1))
}

// flushPage appends the page being filled to the group's pages and
// starts the next.
func (c *chunk) flushPage(s *scratch) error {
	n := c.pageLevels()
	body := s.page[:0]
	if c.maxRep > 0 {
		body = appendLevels(body, c.rep, c.maxRep)
	}
	if c.maxDef > 0 {
		body = appendLevels(body, c.def, c.maxDef)
	}
	enc, own := int32(parquet.Encodings.Plain), true
	switch {
	case c.dictMode():
		w := indexWidth(c.dict.len())
		body = appendHybrid(append(body, byte(w)), c.idx, w)
		enc = c.dictEnc
		c.dictPages++
	case c.descr.PhysicalType() == parquet.Types.Boolean:
		body = appendBools(body, c.bools)
		c.plainPages++
	case len(body) == 0:
		body, own = c.vals, false // no levels: the values are the page
		c.plainPages++
	default:
		body = append(body, c.vals...)
		c.plainPages++
	}
	if err := c.appendPage(s, &c.pages, body, pageHeader{values: int32(n), encoding: enc}); err != nil {
		return err
	}
	if own {
		s.page = body
	}
	c.levels += int64(n)
	if c.stats {
		c.nulls += int64(n - c.nvals)
	}
	c.def, c.rep, c.vals, c.bools, c.idx = c.def[:0], c.rep[:0], c.vals[:0], c.bools[:0], c.idx[:0]
	c.nvals, c.raw = 0, 0
	return nil
}

// maxPageHeader is the most bytes appendPageHeader appends: seven
// fields of at most 6 bytes and the struct bytes.
const maxPageHeader = 64

// appendPage compresses body and appends it to *dst after its header h
// (whose sizes it sets).
func (c *chunk) appendPage(s *scratch, dst *[]byte, body []byte, h pageHeader) error {
	z, err := zstdEncode(s.z[:0], body)
	if err != nil {
		return fmt.Errorf("column %s: zstd: %w", c.descr.Path(), err)
	}
	s.z = z
	h.uncompressed, h.compressed = int32(len(body)), int32(len(z))
	at := len(*dst)
	*dst = appendPageHeader(grow(*dst, maxPageHeader+len(z)), h)
	c.uncompressed += int64(len(*dst)-at) + int64(len(body))
	*dst = append(*dst, z...)
	return nil
}

// noteString adds the string v to the chunk's statistics; v may be a
// view of the rows (rawBytes), so a bound keeps a copy.
func (c *chunk) noteString(v string) {
	switch {
	case !c.hasMinMax:
		c.min = strings.Clone(v)
		c.max, c.hasMinMax = c.min, true
	case v < c.min:
		c.min = strings.Clone(v)
	case v > c.max:
		c.max = strings.Clone(v)
	}
}

// finish writes the chunk's pages to w at offset off (the dictionary
// page first), describes them in cb, and empties the chunk for the next
// group. It returns the bytes written.
func (c *chunk) finish(s *scratch, w io.Writer, off int64, cb *metadata.ColumnChunkMetaDataBuilder) (int64, error) {
	if c.pageLevels() > 0 {
		if err := c.flushPage(s); err != nil {
			return 0, err
		}
	}
	// A chunk of no values (a streamed group of no rows) has no data
	// page, and a dictionary leaf's chunk an empty dictionary, as
	// arrow-go writes them.
	hasDict := c.dict != nil && (c.dictPages > 0 || c.levels == 0)
	head := s.dictPage[:0]
	if hasDict {
		body := s.plain[:0]
		for i := range c.dict.len() {
			body = c.dict.appendPlain(body, int32(i))
		}
		s.plain = body
		err := c.appendPage(s, &head, body, pageHeader{dictionary: true, values: int32(c.dict.len()), encoding: c.dictPageEnc})
		if err != nil {
			return 0, err
		}
	}
	if d, ok := c.dict.(*stringDict); ok && c.stats {
		for _, v := range d.values { // every value indexed is in the chunk
			c.noteString(v)
		}
	}
	s.dictPage = head
	info := metadata.ChunkMetaInfo{NumValues: c.levels, IndexPageOffset: -1, DataPageOffset: off + int64(len(head)),
		CompressedSize: int64(len(head) + len(c.pages)), UncompressedSize: c.uncompressed}
	stats := metadata.EncodingStats{DataEncodingStats: map[parquet.Encoding]int32{}}
	if hasDict {
		info.DictPageOffset = off
		stats.DictEncodingStats = map[parquet.Encoding]int32{parquet.Encoding(c.dictPageEnc): 1}
	}
	if c.dictPages > 0 {
		stats.DataEncodingStats[parquet.Encoding(c.dictEnc)] = c.dictPages
	}
	if c.plainPages > 0 {
		stats.DataEncodingStats[parquet.Encodings.Plain] = c.plainPages
	}
	if err := cb.Finish(info, hasDict, hasDict && c.fallback, stats); err != nil {
		return 0, fmt.Errorf("column %s: %w", c.descr.Path(), err)
	}
	if c.stats && c.levels > 0 {
		var st metadata.EncodedStatistics
		if c.hasMinMax {
			st.SetMin([]byte(c.min)).SetMax([]byte(c.max))
		}
		st.SetNullCount(c.nulls)
		st.ApplyStatSizeLimits(c.maxStats)
		cb.SetStats(st)
	}
	n, err := w.Write(head)
	if err == nil {
		var k int
		k, err = w.Write(c.pages)
		n += k
	}
	c.reset()
	return int64(n), err
}

// reset empties the chunk for the next group, keeping its buffers.
func (c *chunk) reset() {
	c.def, c.rep, c.vals, c.bools, c.idx = c.def[:0], c.rep[:0], c.vals[:0], c.bools[:0], c.idx[:0]
	c.nvals, c.raw = 0, 0
	c.pages, c.levels, c.uncompressed, c.dictPages, c.plainPages = c.pages[:0], 0, 0, 0, 0
	c.min, c.max, c.hasMinMax, c.nulls = "", "", false, 0
	c.fallback = false
	if c.dict != nil {
		c.dict.reset()
	}
}
