package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// pageHeader is the Parquet PageHeader of a page the archive writes
// (pages.go): a DataPage V1 or a dictionary page.
type pageHeader struct {
	dictionary   bool  // a dictionary page, else a data page
	uncompressed int32 // the page's size before compression
	compressed   int32 // and after
	values       int32 // data page: levels (values and nulls); dictionary page: entries
	encoding     int32 // the values' encoding (parquet.Encoding)
}

// Thrift compact protocol: the types of fields and elements.
const (
	thriftFalse  = 2
	thriftByte   = 3
	thriftI16    = 4
	thriftI32    = 5
	thriftI64    = 6
	thriftDouble = 7
	thriftBinary = 8
	thriftList   = 9
	thriftSet    = 10
	thriftMap    = 11
	thriftStruct = 12
	thriftUUID   = 13
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
// Note: arrow-go's own Thrift types are internal to it, and
// github.com/apache/thrift as a direct dependency for a struct of seven
// integers is more than the encoder: a compact-protocol struct is its
// fields in order, each a byte of (id delta << 4 | type) and a zigzag
// varint, ended by a zero byte. Every test that reads a file back
// (arrow-go's reader, DuckDB) reads these headers.
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
	return appendZigzag32(append(dst, byte(delta<<4|thriftI32)), v)
}

// appendZigzag32 appends v as the compact protocol writes an i32 (or
// i16): a zigzag varint.
func appendZigzag32(dst []byte, v int32) []byte {
	return binary.AppendUvarint(dst, uint64(uint32(v<<1^v>>31)))
}

// appendI64Field appends an i64 field whose id is delta after the
// previous field's.
func appendI64Field(dst []byte, delta int, v int64) []byte {
	return binary.AppendUvarint(append(dst, byte(delta<<4|thriftI64)), uint64(v<<1^v>>63))
}

// appendBinary appends s as a binary (or string) value: its length as a
// varint, then its bytes.
func appendBinary(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

// appendListHeader appends the header of a list of n elements of type
// typ: n in the high nibble when under 15, else in a varint after it.
func appendListHeader(dst []byte, n int, typ byte) []byte {
	if n < 15 {
		return append(dst, byte(n<<4)|typ)
	}
	return binary.AppendUvarint(append(dst, 0xf0|typ), uint64(n))
}

// skipFieldHeader reads the field header at b[at:] of a struct whose
// previous field's id is prev: it returns the field's id and type and
// where its value starts.
func skipFieldHeader(b []byte, at, prev int) (id int, typ byte, next int, err error) {
	if at >= len(b) {
		return 0, 0, 0, errThriftShort
	}
	h := b[at]
	typ, at = h&0x0f, at+1
	if h>>4 != 0 {
		return prev + int(h>>4), typ, at, nil
	}
	v, n := binary.Uvarint(b[at:])
	if n <= 0 {
		return 0, 0, 0, errThriftShort
	}
	return int(int32(v>>1) ^ -int32(v&1)), typ, at + n, nil
}

// errThriftShort is the error of a compact-protocol value cut short.
var errThriftShort = errors.New("thrift: value cut short")

// skipValue returns where the compact-protocol value of type typ at
// b[at:] ends; depth counts the structs and containers it is in.
func skipValue(b []byte, at int, typ byte, depth int) (int, error) {
	if depth > 64 {
		return 0, errors.New("thrift: values nested too deep")
	}
	varint := func() (uint64, error) {
		v, n := binary.Uvarint(b[min(at, len(b)):])
		if n <= 0 {
			return 0, errThriftShort
		}
		at += n
		return v, nil
	}
	var err error
	switch typ {
	case 1, thriftFalse: // a boolean field's value is in its type
	case thriftByte:
		at++
	case thriftI16, thriftI32, thriftI64:
		_, err = varint()
	case thriftDouble:
		at += 8
	case thriftUUID:
		at += 16
	case thriftBinary:
		var n uint64
		if n, err = varint(); err == nil && n > uint64(len(b)) {
			err = errThriftShort
		}
		at += int(n)
	case thriftList, thriftSet:
		if at >= len(b) {
			return 0, errThriftShort
		}
		h := b[at]
		at++
		n := uint64(h >> 4)
		if n == 15 {
			n, err = varint()
		}
		for i := uint64(0); err == nil && i < n; i++ {
			at, err = skipElement(b, at, h&0x0f, depth+1)
		}
	case thriftMap:
		var n uint64
		if n, err = varint(); err != nil || n == 0 {
			break
		}
		if at >= len(b) {
			return 0, errThriftShort
		}
		kv := b[at]
		at++
		for i := uint64(0); err == nil && i < 2*n; i++ {
			at, err = skipElement(b, at, kv>>(4*(1-i%2))&0x0f, depth+1)
		}
	case thriftStruct:
		for id := 0; err == nil; {
			if at >= len(b) {
				return 0, errThriftShort
			}
			if b[at]&0x0f == 0 { // stop (thrift reads the type alone)
				return at + 1, nil
			}
			var ft byte
			if id, ft, at, err = skipFieldHeader(b, at, id); err == nil {
				at, err = skipValue(b, at, ft, depth+1)
			}
		}
	default:
		err = fmt.Errorf("thrift: type %d", typ)
	}
	if err == nil && at > len(b) {
		err = errThriftShort
	}
	return at, err
}

// skipElement returns where the element of type typ at b[at:] of a list,
// set or map ends: a boolean element takes a byte, unlike a field's.
func skipElement(b []byte, at int, typ byte, depth int) (int, error) {
	if typ == 1 || typ == thriftFalse {
		if at >= len(b) {
			return 0, errThriftShort
		}
		return at + 1, nil
	}
	return skipValue(b, at, typ, depth)
}
