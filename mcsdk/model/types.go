package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the scalar C integer type of a declared global.
type Kind uint8

// Scalar kinds of declared globals.
const (
	Int8 Kind = iota + 1
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
)

// String returns the model-file spelling of k, e.g. "int32".
func (k Kind) String() string {
	switch k {
	case Int8, Int16, Int32, Int64:
		return "int" + strconv.Itoa(8*k.Size())
	case Uint8, Uint16, Uint32, Uint64:
		return "uint" + strconv.Itoa(8*k.Size())
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Size is the size of one k in bytes.
func (k Kind) Size() int {
	switch k {
	case Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32:
		return 4
	case Int64, Uint64:
		return 8
	}
	panic("model: invalid Kind " + strconv.Itoa(int(k)))
}

// Signed reports whether k is a signed type.
func (k Kind) Signed() bool { return k >= Int8 && k <= Int64 }

// Type is the type of a declared global: a scalar, or an array of Len
// scalars when Len > 0.
type Type struct {
	Kind Kind
	Len  int // 0 = scalar
}

// Size is the size of the global in bytes.
func (t Type) Size() int { return t.Kind.Size() * max(t.Len, 1) }

// String returns the model-file spelling, e.g. "int32" or "uint8[4]".
func (t Type) String() string {
	if t.Len > 0 {
		return fmt.Sprintf("%s[%d]", t.Kind, t.Len)
	}
	return t.Kind.String()
}

// Decode converts raw little-endian memory of len t.Size() into a Value: an
// integer, or a list of integers for arrays. uint64 values above MaxInt64
// wrap to negative integers.
func (t Type) Decode(b []byte) Value {
	if len(b) != t.Size() {
		panic(fmt.Sprintf("model: Type.Decode of %s needs %d bytes, got %d", t, t.Size(), len(b)))
	}
	if t.Len == 0 {
		return Int(t.Kind.decode(b))
	}
	n := t.Kind.Size()
	elems := make([]Value, t.Len)
	for i := range elems {
		elems[i] = Int(t.Kind.decode(b[i*n : (i+1)*n]))
	}
	return List(elems...)
}

func (k Kind) decode(b []byte) int64 {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	if k.Signed() {
		shift := 64 - 8*len(b)
		return int64(u<<shift) >> shift
	}
	return int64(u)
}

// ParseType parses a model-file type: int8 … uint64, optionally followed by
// an array length, e.g. "int32[4]".
func ParseType(s string) (Type, error) {
	name, rest, arr := strings.Cut(s, "[")
	var t Type
	for k := Int8; k <= Uint64; k++ {
		if k.String() == name {
			t.Kind = k
		}
	}
	if t.Kind == 0 {
		return Type{}, fmt.Errorf("unknown type %q (want int8, int16, int32, int64, uint8, uint16, uint32, uint64, optionally with [N])", s)
	}
	if arr {
		digits, ok := strings.CutSuffix(rest, "]")
		n, err := strconv.Atoi(digits)
		if !ok || err != nil || n < 1 || n > 1<<20 || digits[0] < '0' || digits[0] > '9' {
			return Type{}, fmt.Errorf("bad array length in type %q (want %s[N] with 1 <= N <= 1048576)", s, name)
		}
		t.Len = n
	}
	return t, nil
}
