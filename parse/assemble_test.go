package parse

import (
	"testing"
)

func TestKeyValue(t *testing.T) {
	for _, c := range []struct {
		b    block
		want string // "key=value" or "" for no pair
	}{
		{block{Kind: blockItem, Text: "GPU: H200 NVL"}, "GPU=H200 NVL"},
		{block{Kind: blockItem, Text: "GPU:H200:x"}, "GPU=H200:x"},
		{block{Kind: blockItem, Text: "GPU: H200", LeadKey: "GPU:", Rest: " H200"}, "GPU=H200"},
		{block{Kind: blockText, Text: "GPUH200", LeadKey: "GPU", Rest: "H200"}, "GPU=H200"},
		{block{Kind: blockText, Text: "Commit:", LeadKey: "Commit:", Rest: ""}, "Commit="},
		{block{Kind: blockKV, Text: "Served model", Value: " ling "}, "Served model=ling"},
		{block{Kind: blockItem, Text: "**VRAM**: 141 GB", LeadKey: "VRAM", Rest: ": 141 GB"}, "VRAM=141 GB"},
		{block{Kind: blockText, Text: "https://example.com/x"}, ""},
		{block{Kind: blockText, Text: "8K context: 55K"}, ""},
		{block{Kind: blockText, Text: "a sentence without a colon"}, ""},
		{block{Kind: blockText, Text: "This is a long note, with commas, that mentions: a colon"}, ""},
		{block{Kind: blockCode, Text: "GPU: x"}, ""},
	} {
		k, v, ok := keyValue(&c.b)
		got := ""
		if ok {
			got = k + "=" + v
		}
		if got != c.want {
			t.Errorf("keyValue(%+v) = %q, want %q", c.b, got, c.want)
		}
	}
}
