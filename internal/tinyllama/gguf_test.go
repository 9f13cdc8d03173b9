package tinyllama

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// gguf is what the test's reader gets back from a file: written
// independently of the encoder, from the spec, so that a round trip
// checks the layout and not the encoder against itself.
type gguf struct {
	version      uint32
	kv           []KV
	tensors      []Tensor // Data sliced from the file at the recorded offset
	offsets      []uint64
	alignment    uint64
	dataStart    uint64
	headerLength int
}

type reader struct {
	b   []byte
	off int
}

var errShort = errors.New("file ends early")

func (r *reader) next(n int) []byte {
	if r.off+n > len(r.b) {
		panic(errShort)
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.next(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.next(8)) }
func (r *reader) str() string { return string(r.next(int(r.u64()))) }

func (r *reader) value(t ValueType) any {
	switch t {
	case TypeUint32:
		return r.u32()
	case TypeInt32:
		return int32(r.u32())
	case TypeUint64:
		return r.u64()
	case TypeFloat32:
		return math.Float32frombits(r.u32())
	case TypeBool:
		return r.next(1)[0] != 0
	case TypeString:
		return r.str()
	case TypeArray:
		elem := ValueType(r.u32())
		n := int(r.u64())
		switch elem {
		case TypeString:
			v := make([]string, n)
			for i := range v {
				v[i] = r.str()
			}
			return v
		case TypeFloat32:
			v := make([]float32, n)
			for i := range v {
				v[i] = math.Float32frombits(r.u32())
			}
			return v
		case TypeInt32:
			v := make([]int32, n)
			for i := range v {
				v[i] = int32(r.u32())
			}
			return v
		}
		panic(fmt.Errorf("array of type %d", elem))
	}
	panic(fmt.Errorf("value type %d", t))
}

func readGGUF(b []byte) (g *gguf, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	r := &reader{b: b}
	if string(r.next(4)) != Magic {
		return nil, errors.New("bad magic")
	}
	g = &gguf{version: r.u32(), alignment: DefaultAlignment}
	nt, nkv := r.u64(), r.u64()
	for range nkv {
		k := r.str()
		v := r.value(ValueType(r.u32()))
		if k == "general.alignment" {
			g.alignment = uint64(v.(uint32))
		}
		g.kv = append(g.kv, KV{k, v})
	}
	for range nt {
		t := Tensor{Name: r.str()}
		nd := r.u32()
		for range nd {
			t.Dims = append(t.Dims, r.u64())
		}
		t.Type = TensorType(r.u32())
		g.offsets = append(g.offsets, r.u64())
		g.tensors = append(g.tensors, t)
	}
	g.headerLength = r.off
	g.dataStart = pad(uint64(r.off), g.alignment)
	for i := range g.tensors {
		t := &g.tensors[i]
		n := uint64(t.Type.ElemSize())
		for _, d := range t.Dims {
			n *= d
		}
		start := g.dataStart + g.offsets[i]
		if start+n > uint64(len(b)) {
			return nil, fmt.Errorf("tensor %s: data [%d, %d) beyond the file's %d bytes", t.Name, start, start+n, len(b))
		}
		t.Data = b[start : start+n]
	}
	return g, nil
}

// TestRoundTrip writes a small file of every value type and reads it back.
func TestRoundTrip(t *testing.T) {
	f := &File{KV: []KV{
		{"general.alignment", uint32(64)}, {"u32", uint32(7)}, {"i32", int32(-7)}, {"u64", uint64(1 << 40)}, {"f32", float32(0.5)},
		{"yes", true}, {"no", false}, {"s", "héllo"}, {"ss", []string{"a", "", "▁the"}},
		{"fs", []float32{1, -2.5}}, {"is", []int32{1, -6}},
	}, Tensors: []Tensor{
		{Name: "a", Dims: []uint64{3}, Type: F32, Data: f32bytes([]float32{1, 2, 3})},
		{Name: "b", Dims: []uint64{2, 2}, Type: F32, Data: f32bytes([]float32{4, 5, 6, 7})},
		{Name: "h", Dims: []uint64{1}, Type: F16, Data: []byte{0x00, 0x3c}},
	}}
	var buf bytes.Buffer
	n, err := f.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) || n%64 != 0 {
		t.Errorf("wrote %d bytes, counted %d; want a multiple of the alignment 64", buf.Len(), n)
	}
	g, err := readGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if g.version != Version {
		t.Errorf("version %d", g.version)
	}
	if got, want := fmt.Sprint(g.kv), fmt.Sprint(f.KV); got != want {
		t.Errorf("metadata\n got %s\nwant %s", got, want)
	}
	for i, want := range f.Tensors {
		got := g.tensors[i]
		if got.Name != want.Name || fmt.Sprint(got.Dims) != fmt.Sprint(want.Dims) || got.Type != want.Type || !bytes.Equal(got.Data, want.Data) {
			t.Errorf("tensor %d: got %+v, want %+v", i, got, want)
		}
		if (g.dataStart+g.offsets[i])%64 != 0 {
			t.Errorf("tensor %s at %d: not aligned to 64", got.Name, g.dataStart+g.offsets[i])
		}
	}
}

func TestWriteErrors(t *testing.T) {
	for _, f := range []*File{
		{KV: []KV{{"bad", 1.5}}}, // float64 has no GGUF type here
		{Tensors: []Tensor{{Name: "t", Dims: []uint64{4}, Type: F32, Data: make([]byte, 12)}}},
	} {
		if _, err := f.WriteTo(&bytes.Buffer{}); err == nil {
			t.Errorf("%+v: no error", f)
		}
	}
}

// TestModelGolden checks the model's header (metadata and tensor infos,
// large arrays summarized) against testdata/model.golden, and that the
// file is what llama.cpp expects: every required key, the tensors of
// each block with ggml's dimension order, data right after the header.
func TestModelGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	g, err := readGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var dump strings.Builder
	fmt.Fprintf(&dump, "GGUF v%d, %d bytes, header %d bytes, data at %d, sha256 %x\n", g.version, buf.Len(), g.headerLength, g.dataStart, sha256.Sum256(buf.Bytes()))
	for _, kv := range g.kv {
		switch v := kv.Value.(type) {
		case []string:
			fmt.Fprintf(&dump, "%s: [%d strings] %q … %q\n", kv.Key, len(v), v[:6], v[len(v)-3:])
		case []float32:
			fmt.Fprintf(&dump, "%s: [%d float32] %v … %v\n", kv.Key, len(v), v[:4], v[len(v)-2:])
		case []int32:
			fmt.Fprintf(&dump, "%s: [%d int32] %v … %v\n", kv.Key, len(v), v[:4], v[len(v)-2:])
		default:
			fmt.Fprintf(&dump, "%s: %T %v\n", kv.Key, v, v)
		}
	}
	for i, tn := range g.tensors {
		fmt.Fprintf(&dump, "%-26s %v type %d offset %d\n", tn.Name, tn.Dims, tn.Type, g.offsets[i])
	}
	path := filepath.Join("testdata", "model.golden")
	if *update {
		if err := os.WriteFile(path, []byte(dump.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if dump.String() != string(want) {
		t.Errorf("header differs from %s (go test -update to accept):\n%s", path, dump.String())
	}
	keys := map[string]any{}
	for _, kv := range g.kv {
		keys[kv.Key] = kv.Value
	}
	// The keys llama.cpp's llama loader reads without a default, and the
	// uint32 counts Ollama type-asserts.
	for _, k := range []string{"general.architecture", "llama.context_length", "llama.embedding_length",
		"llama.block_count", "llama.feed_forward_length", "llama.attention.head_count",
		"llama.attention.head_count_kv", "llama.rope.dimension_count"} {
		if _, ok := keys[k].(uint32); !ok && k != "general.architecture" {
			t.Errorf("%s is %T, want uint32", k, keys[k])
		}
	}
	if _, ok := keys["llama.attention.layer_norm_rms_epsilon"].(float32); !ok {
		t.Error("no float32 llama.attention.layer_norm_rms_epsilon")
	}
	if size := buf.Len(); size < 2<<20 || size > 4<<20 {
		t.Errorf("model is %d bytes, want about 3 MB", size)
	}
}

func TestDeterministic(t *testing.T) {
	write := func(seed uint64) []byte {
		var b bytes.Buffer
		c := DefaultConfig()
		c.Seed = seed
		if err := Write(&b, c); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b, c := write(1), write(1), write(2)
	if !bytes.Equal(a, b) {
		t.Error("seed 1 twice gives different files")
	}
	if bytes.Equal(a, c) || len(a) != len(c) {
		t.Error("seeds 1 and 2 should give different weights of the same shape")
	}
}

// TestSuppressedTokens checks the output head: every control and byte
// token's row holds suppress on channel 0, every normal token's holds 0,
// every embedding holds channelValue there, and no block writes channel 0.
func TestSuppressedTokens(t *testing.T) {
	f, err := Build(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	v := NewVocab()
	embd := DefaultConfig().Embd
	at := func(data []byte, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])) }
	for _, tn := range f.Tensors {
		switch {
		case tn.Name == "token_embd.weight":
			for tok := range v.Len() {
				if at(tn.Data, tok*embd) != channelValue {
					t.Fatalf("embedding %d: channel 0 is %v", tok, at(tn.Data, tok*embd))
				}
			}
		case tn.Name == "output.weight":
			for tok := range v.Len() {
				want := float32(suppress)
				if TokenType(v.Types[tok]) == TokenNormal {
					want = 0
				}
				if got := at(tn.Data, tok*embd); got != want {
					t.Fatalf("output row %d (%q): channel 0 is %v, want %v", tok, v.Tokens[tok], got, want)
				}
			}
		case strings.HasSuffix(tn.Name, "attn_output.weight"), strings.HasSuffix(tn.Name, "ffn_down.weight"):
			for i := range int(tn.Dims[0]) {
				if at(tn.Data, i) != 0 {
					t.Fatalf("%s writes channel 0 from input %d", tn.Name, i)
				}
			}
		}
	}
}
