package tinyllama

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// Version is the GGUF version written (v3: 64-bit counts and lengths).
const Version = 3

// DefaultAlignment is the tensor data alignment GGUF readers assume when
// general.alignment is absent.
const DefaultAlignment = 32

// ValueType is a GGUF metadata value type (gguf_type).
type ValueType uint32

// The GGUF metadata value types.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// TensorType is a ggml tensor element type (ggml_type); only the two
// unquantized ones are written.
type TensorType uint32

// The tensor types written.
const (
	F32 TensorType = 0
	F16 TensorType = 1
)

// ElemSize returns the bytes of one element of t.
func (t TensorType) ElemSize() int {
	if t == F16 {
		return 2
	}
	return 4
}

// KV is one metadata pair. Value is uint32, int32, uint64, float32, bool,
// string, []string, []float32 or []int32: the Go type chooses the GGUF
// type, because llama.cpp and Ollama check the stored type of each key
// (Ollama reads llama.feed_forward_length as uint32 and nothing else).
type KV struct {
	Key   string
	Value any
}

// Tensor is one named tensor. Dims are ggml's ne: Dims[0] is the
// innermost (contiguous) dimension, so a weight mapping n_in to n_out
// is {n_in, n_out}. Data holds the little-endian elements.
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	Data []byte
}

// File is a GGUF file: metadata, then tensors laid out at the alignment
// its general.alignment key gives (a uint32), else DefaultAlignment.
type File struct {
	KV      []KV
	Tensors []Tensor
}

// alignment is what a reader takes from the metadata, so the writer takes
// it from the same place.
func (f *File) alignment() uint64 {
	for _, kv := range f.KV {
		if a, ok := kv.Value.(uint32); ok && kv.Key == "general.alignment" && a > 0 {
			return uint64(a)
		}
	}
	return DefaultAlignment
}

// Offsets returns each tensor's offset inside the data section, each a
// multiple of the alignment, and the section's total size.
func (f *File) Offsets() ([]uint64, uint64) {
	al := f.alignment()
	offs := make([]uint64, len(f.Tensors))
	var off uint64
	for i, t := range f.Tensors {
		offs[i] = off
		off = pad(off+uint64(len(t.Data)), al)
	}
	return offs, off
}

func pad(n, al uint64) uint64 { return (n + al - 1) / al * al }

// WriteTo encodes f to w. It checks that each tensor's data matches its
// dimensions and type, and that every metadata value has a GGUF type.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	e := &encoder{w: bufio.NewWriterSize(w, 1<<16)}
	e.raw([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(f.Tensors)))
	e.u64(uint64(len(f.KV)))
	for _, kv := range f.KV {
		e.str(kv.Key)
		if err := e.value(kv.Value); err != nil {
			return e.n, fmt.Errorf("gguf: key %s: %w", kv.Key, err)
		}
	}
	offs, _ := f.Offsets()
	for i, t := range f.Tensors {
		n := uint64(1)
		for _, d := range t.Dims {
			n *= d
		}
		if want := n * uint64(t.Type.ElemSize()); uint64(len(t.Data)) != want {
			return e.n, fmt.Errorf("gguf: tensor %s: %d bytes of data, dims %v need %d", t.Name, len(t.Data), t.Dims, want)
		}
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offs[i])
	}
	al := f.alignment()
	e.zeros(pad(uint64(e.n), al) - uint64(e.n))
	start := uint64(e.n)
	for i, t := range f.Tensors {
		e.zeros(start + offs[i] - uint64(e.n))
		e.raw(t.Data)
	}
	e.zeros(pad(uint64(e.n), al) - uint64(e.n))
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.n, e.err
}

// encoder writes little-endian GGUF primitives, keeping the first error.
type encoder struct {
	w   *bufio.Writer
	n   int64
	err error
	buf [8]byte
}

func (e *encoder) raw(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += int64(n)
	e.err = err
}

func (e *encoder) zeros(n uint64) {
	var z [64]byte
	for n > 0 {
		k := min(n, uint64(len(z)))
		e.raw(z[:k])
		n -= k
	}
}

func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:4], v); e.raw(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:8], v); e.raw(e.buf[:8]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.raw([]byte(s)) }

func (e *encoder) value(v any) error {
	switch v := v.(type) {
	case uint32:
		e.u32(uint32(TypeUint32))
		e.u32(v)
	case int32:
		e.u32(uint32(TypeInt32))
		e.u32(uint32(v))
	case uint64:
		e.u32(uint32(TypeUint64))
		e.u64(v)
	case float32:
		e.u32(uint32(TypeFloat32))
		e.u32(math.Float32bits(v))
	case bool:
		e.u32(uint32(TypeBool))
		b := byte(0)
		if v {
			b = 1
		}
		e.raw([]byte{b})
	case string:
		e.u32(uint32(TypeString))
		e.str(v)
	case []string:
		e.array(TypeString, len(v))
		for _, s := range v {
			e.str(s)
		}
	case []float32:
		e.array(TypeFloat32, len(v))
		for _, f := range v {
			e.u32(math.Float32bits(f))
		}
	case []int32:
		e.array(TypeInt32, len(v))
		for _, x := range v {
			e.u32(uint32(x))
		}
	default:
		return fmt.Errorf("no GGUF type for %T", v)
	}
	return nil
}

func (e *encoder) array(elem ValueType, n int) {
	e.u32(uint32(TypeArray))
	e.u32(uint32(elem))
	e.u64(uint64(n))
}
