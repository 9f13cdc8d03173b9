package pqwrite

import (
	"bytes"
	"testing"
)

// TestAppendPageHeader checks page headers byte by byte against the
// Thrift compact protocol worked out by hand from the spec: a field is
// (id delta << 4 | type) then a zigzag varint (i32 type 5, struct 12,
// boolean false 2), a struct ends with a zero byte.
func TestAppendPageHeader(t *testing.T) {
	tests := []struct {
		name string
		h    pageHeader
		want []byte
	}{
		{"data page", pageHeader{uncompressed: 100, compressed: 50, values: 10, encoding: 8}, []byte{
			0x15, 0x00, // 1: type DATA_PAGE
			0x15, 0xc8, 0x01, // 2: uncompressed 100
			0x15, 0x64, // 3: compressed 50
			0x2c,       // 5: data_page_header
			0x15, 0x14, // 1: num_values 10
			0x15, 0x10, // 2: encoding RLE_DICTIONARY
			0x15, 0x06, // 3: definition levels RLE
			0x15, 0x06, // 4: repetition levels RLE
			0x00, 0x00,
		}},
		{"dictionary page", pageHeader{dictionary: true, uncompressed: 1 << 20, compressed: 70000, values: 3}, []byte{
			0x15, 0x04, // 1: type DICTIONARY_PAGE
			0x15, 0x80, 0x80, 0x80, 0x01, // 2: 1 MB
			0x15, 0xe0, 0xc5, 0x08, // 3: 70,000
			0x4c,       // 7: dictionary_page_header
			0x15, 0x06, // 1: num_values 3
			0x15, 0x00, // 2: encoding PLAIN
			0x12, // 3: is_sorted false
			0x00, 0x00,
		}},
		{"no values", pageHeader{}, []byte{0x15, 0, 0x15, 0, 0x15, 0, 0x2c, 0x15, 0, 0x15, 0, 0x15, 6, 0x15, 6, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := appendPageHeader([]byte{0xff}, tt.h); !bytes.Equal(got, append([]byte{0xff}, tt.want...)) {
				t.Fatalf("got  % x\nwant ff % x", got, tt.want)
			}
		})
	}
}
