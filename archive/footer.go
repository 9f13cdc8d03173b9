package archive

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
)

// footerParts are the parts of a table's file footers (Parquet's
// FileMetaData) that do not depend on the rows, made once per table.
//
// Note: arrow-go's FileMetaDataBuilder kept a RowGroup of ~60 pointerful
// ColumnChunk structs per row group until Close (~13 MB for the ~560
// groups of an ingest of 100,000 documents), which the collector marked
// in every cycle; a file writer now keeps its row groups as the Thrift
// bytes they are written as (fileWriter.footer), no pointers. A whole
// ingest of 100,000 documents: 269 → 246 CPU-µs/doc (user+sys, mean of
// 9 interleaved rounds, 7 cheaper; the machine's load moved single runs
// by ±30%), 120-127 → 93-97 collections, their marking 4.6-11.3 → 1.6-3.7
// CPU-s, the live heap late in the call ~70 → ~47 MB (GODEBUG=gctrace=1);
// 10,000 and 1,000 documents no different beyond noise (256.5 vs 253.7,
// 268 vs 263 CPU-µs/doc); WriteSeed1000 measurements 5,374 → 1,280
// allocs/op, 1.36 → 1.02 MB/op.
type footerParts struct {
	// head is FileMetaData up to num_rows (version, schema), tail the
	// rest after row_groups (key/value metadata, created_by,
	// column_orders) and its stop byte: as arrow-go's builder writes
	// them for the table's empty file.
	head, tail []byte
	leaves     []leafFooter // by leaf
	// The encodings of dictionary indices and of the dictionary page,
	// and the latter as arrow-go lists it among a chunk's encodings.
	dictIndexEnc, dictPageEnc, dictListEnc int32
}

// leafFooter is what a leaf's ColumnMetaData says in every group.
type leafFooter struct {
	typ       int32  // physical type
	pathCodec []byte // path_in_schema and codec, fields 3 and 4
	noPages   int32  // the encoding listed for a chunk of no pages
	maxStats  int    // min and max longer than this are left out
}

// chunkMeta is what the footer says of one column chunk of a row group:
// chunk.finish fills it, appendColumnChunk writes it.
type chunkMeta struct {
	values                   int64 // levels (values and nulls)
	dataOff, dictOff         int64 // offsets of the first data page and of the dictionary page (0: none)
	compressed, uncompressed int64 // sizes of the pages, headers included
	dictPages, plainPages    int32 // data pages of dictionary indices and of PLAIN values
	fallback                 bool  // the dictionary fell back to PLAIN
	stats                    bool  // the chunk has statistics: null count, and min and max if hasMinMax
	hasMinMax                bool
	nulls                    int64
	min, max                 string
}

// newFooterParts makes the footer parts of files of schema sc written
// with props and key/value metadata kv.
func newFooterParts(sc *pqschema.Schema, props *parquet.WriterProperties, kv metadata.KeyValueMetadata) (footerParts, error) {
	var f footerParts
	md, err := metadata.NewFileMetadataBuilder(sc, props, kv).Finish()
	if err != nil {
		return f, err
	}
	var buf bytes.Buffer
	if _, err := md.WriteTo(&buf, nil); err != nil {
		return f, err
	}
	if f.head, f.tail, err = splitFileMeta(buf.Bytes()); err != nil {
		return f, err
	}
	f.dictIndexEnc = int32(props.DictionaryIndexEncoding())
	f.dictPageEnc = int32(props.DictionaryPageEncoding())
	f.dictListEnc = f.dictPageEnc
	if props.Version() == parquet.V1_0 {
		f.dictListEnc = int32(parquet.Encodings.Plain)
	}
	f.leaves = make([]leafFooter, sc.NumColumns())
	for i := range f.leaves {
		col := sc.Column(i)
		path := col.ColumnPath()
		b := appendListHeader([]byte{1<<4 | thriftList}, len(path), thriftBinary)
		for _, p := range path {
			b = appendBinary(b, p)
		}
		b = appendI32Field(b, 1, int32(props.CompressionFor(col.Path())))
		f.leaves[i] = leafFooter{typ: int32(col.PhysicalType()), pathCodec: b,
			noPages: int32(props.EncodingFor(col.Path())), maxStats: int(props.MaxStatsSizeFor(col.Path()))}
	}
	return f, nil
}

// splitFileMeta splits the FileMetaData of a file of no rows around its
// num_rows (field 3) and row_groups (field 4), which it expects to follow
// field 2 as arrow-go writes them: 0 and an empty list.
func splitFileMeta(b []byte) (head, tail []byte, err error) {
	at, id := 0, 0
	for at < len(b) && b[at]&0x0f != 0 {
		start := at
		var typ byte
		if id, typ, at, err = skipFieldHeader(b, at, id); err == nil {
			at, err = skipValue(b, at, typ, 0)
		}
		if err != nil {
			return nil, nil, err
		}
		switch id {
		case 3:
			if !bytes.Equal(b[start:at], []byte{1<<4 | thriftI64, 0}) {
				return nil, nil, fmt.Errorf("footer: num_rows % x", b[start:at])
			}
			head = b[:start]
		case 4:
			if head == nil || !bytes.Equal(b[start:at], []byte{1<<4 | thriftList, thriftStruct}) {
				return nil, nil, fmt.Errorf("footer: row_groups % x", b[start:at])
			}
			return head, b[at:], nil
		}
	}
	return nil, nil, fmt.Errorf("footer: no row_groups in % x", b)
}

// appendColumnChunk appends m as Parquet's ColumnChunk (with its
// ColumnMetaData) of leaf l, the fields arrow-go's
// ColumnChunkMetaDataBuilder sets, in its order.
//
// Note: arrow-go lists the encoding_stats of data pages in the order of
// a Go map's iteration, random when a chunk has both pages of dictionary
// indices and PLAIN pages (a dictionary that fell back mid-group); they
// are written here in the order of the pages, dictionary indices first.
func (f *footerParts) appendColumnChunk(dst []byte, l *leafFooter, m *chunkMeta) []byte {
	hasDict := m.dictOff > 0
	fileOff := m.dataOff
	if hasDict {
		fileOff = m.dictOff
	}
	dst = appendI64Field(dst, 2, fileOff)
	dst = append(dst, 1<<4|thriftStruct) // 3: meta_data
	dst = appendI32Field(dst, 1, l.typ)
	var encs [4]int32
	n := 0
	switch {
	case hasDict:
		encs[0], encs[1], n = f.dictIndexEnc, f.dictListEnc, 2
	case m.dictPages > 0 || m.plainPages > 0:
		if m.plainPages > 0 {
			encs[n], n = int32(parquet.Encodings.Plain), n+1
		}
		if m.dictPages > 0 {
			encs[n], n = f.dictIndexEnc, n+1
		}
		slices.Sort(encs[:n]) // arrow-go sorts the data pages' encodings
	default:
		encs[0], n = l.noPages, 1
	}
	if !slices.Contains(encs[:n], encodingRLE) {
		encs[n], n = encodingRLE, n+1
	}
	if hasDict && m.fallback && !slices.Contains(encs[:n], int32(parquet.Encodings.Plain)) {
		encs[n], n = int32(parquet.Encodings.Plain), n+1
	}
	dst = appendListHeader(append(dst, 1<<4|thriftList), n, thriftI32) // 2: encodings
	for _, e := range encs[:n] {
		dst = appendZigzag32(dst, e)
	}
	dst = append(dst, l.pathCodec...)
	dst = appendI64Field(dst, 1, m.values)
	dst = appendI64Field(dst, 1, m.uncompressed)
	dst = appendI64Field(dst, 1, m.compressed)
	dst = appendI64Field(dst, 2, m.dataOff)
	last := 9
	if hasDict {
		dst = appendI64Field(dst, 2, m.dictOff)
		last = 11
	}
	if m.stats {
		dst = append(dst, byte((12-last)<<4|thriftStruct))
		last = 12
		dst = appendI64Field(dst, 3, m.nulls)
		minOK := m.hasMinMax && len(m.min) <= l.maxStats
		maxOK := m.hasMinMax && len(m.max) <= l.maxStats
		prev := 3
		if maxOK {
			dst = appendBinary(append(dst, 2<<4|thriftBinary), m.max)
			prev = 5
		}
		if minOK {
			dst = appendBinary(append(dst, byte((6-prev)<<4|thriftBinary)), m.min)
		}
		dst = append(dst, 0)
	}
	k := 0
	if hasDict {
		k++
	}
	if m.dictPages > 0 {
		k++
	}
	if m.plainPages > 0 {
		k++
	}
	dst = appendListHeader(append(dst, byte((13-last)<<4|thriftList)), k, thriftStruct) // 13: encoding_stats
	if hasDict {
		dst = appendEncodingStats(dst, pageDictionary, f.dictPageEnc, 1)
	}
	if m.dictPages > 0 {
		dst = appendEncodingStats(dst, pageData, f.dictIndexEnc, m.dictPages)
	}
	if m.plainPages > 0 {
		dst = appendEncodingStats(dst, pageData, int32(parquet.Encodings.Plain), m.plainPages)
	}
	return append(dst, 0, 0) // ColumnMetaData, ColumnChunk
}

// appendEncodingStats appends a PageEncodingStats struct.
func appendEncodingStats(dst []byte, pageType, enc, count int32) []byte {
	dst = appendI32Field(dst, 1, pageType)
	dst = appendI32Field(dst, 1, enc)
	dst = appendI32Field(dst, 1, count)
	return append(dst, 0)
}

// groupSums are the sums over a row group's chunks that its RowGroup
// struct holds.
type groupSums struct {
	fileOff                  int64 // the first chunk's
	compressed, uncompressed int64
}

// add adds the chunk m (the group's leaf i) to the sums.
func (s *groupSums) add(i int, m *chunkMeta) {
	if i == 0 {
		s.fileOff = m.dataOff
		if m.dictOff > 0 {
			s.fileOff = m.dictOff
		}
	}
	s.compressed += m.compressed
	s.uncompressed += m.uncompressed
}

// appendRowGroupEnd appends the fields of a RowGroup struct after its
// columns (whose list appendColumnChunk's chunks make, after
// appendListHeader): the sums, rows and ordinal arrow-go's
// RowGroupMetaDataBuilder sets.
func appendRowGroupEnd(dst []byte, s groupSums, rows int64, ordinal int16) []byte {
	dst = appendI64Field(dst, 1, s.uncompressed) // 2: total_byte_size
	dst = appendI64Field(dst, 1, rows)
	dst = appendI64Field(dst, 2, s.fileOff) // 5
	dst = appendI64Field(dst, 1, s.compressed)
	dst = appendZigzag32(append(dst, 1<<4|thriftI16), int32(ordinal))
	return append(dst, 0)
}

// appendFileMetaHead appends the FileMetaData of a file of rows rows
// in groups row groups up to their RowGroup structs, which follow it,
// then f.tail.
func (f *footerParts) appendFileMetaHead(dst []byte, rows int64, groups int) []byte {
	dst = append(dst, f.head...)
	dst = appendI64Field(dst, 1, rows)
	return appendListHeader(append(dst, 1<<4|thriftList), groups, thriftStruct)
}
