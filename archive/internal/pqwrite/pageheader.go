package pqwrite

import "encoding/binary"

// pageHeader is the Parquet PageHeader of a page this package writes
// (pages.go): a DataPage V1 or a dictionary page.
type pageHeader struct {
	dictionary   bool  // a dictionary page, else a data page
	uncompressed int32 // the page's size before compression
	compressed   int32 // and after
	values       int32 // data page: levels (values and nulls); dictionary page: entries
	encoding     int32 // the values' encoding (parquet.Encoding)
}

// Thrift compact protocol: the field types of the fields written.
const (
	thriftFalse  = 2
	thriftI32    = 5
	thriftStruct = 12
)

// Parquet's PageType and the levels' encoding (RLE).
const (
	pageData       = 0
	pageDictionary = 2
	encodingRLE    = 3
)

// appendPageHeader appends h as Parquet's PageHeader struct in the
// Thrift compact protocol, as arrow-go's thrift serializer writes it
// (without the optional page statistics and CRC).
//
// Note: arrow-go's own Thrift types (parquet.PageHeader) are internal to
// it, so apache/thrift could write a page header only through a copy of
// Parquet's generated Thrift code; the header is part of the page writer,
// which stays (see doc.go), and a compact-protocol struct is its
// fields in order, each a byte of (id delta << 4 | type) and a zigzag
// varint, ended by a zero byte. Every test that reads a file back
// (arrow-go's reader, DuckDB) reads these headers; the footer is
// arrow-go's builders' (apache/thrift serializes it).
func appendPageHeader(dst []byte, h pageHeader) []byte {
	typ := int32(pageData)
	if h.dictionary {
		typ = pageDictionary
	}
	dst = appendI32Field(dst, 1, typ)
	dst = appendI32Field(dst, 1, h.uncompressed)
	dst = appendI32Field(dst, 1, h.compressed)
	if h.dictionary {
		dst = append(dst, 4<<4|thriftStruct) // field 7: dictionary_page_header
		dst = appendI32Field(dst, 1, h.values)
		dst = appendI32Field(dst, 1, h.encoding)
		dst = append(dst, 1<<4|thriftFalse) // is_sorted: false
		dst = append(dst, 0)
	} else {
		dst = append(dst, 2<<4|thriftStruct) // field 5: data_page_header
		dst = appendI32Field(dst, 1, h.values)
		dst = appendI32Field(dst, 1, h.encoding)
		dst = appendI32Field(dst, 1, encodingRLE) // definition levels
		dst = appendI32Field(dst, 1, encodingRLE) // repetition levels
		dst = append(dst, 0)
	}
	return append(dst, 0)
}

// appendI32Field appends an i32 field whose id is delta after the
// previous field's.
func appendI32Field(dst []byte, delta int, v int32) []byte {
	dst = append(dst, byte(delta<<4|thriftI32))
	return binary.AppendUvarint(dst, uint64(uint32(v<<1^v>>31)))
}
