package gocheck

// The wire format between weft and a compiled checks helper (native.go).
// This file is compiled into weft and, with its package clause changed,
// into every helper, so that both ends share one encoder and one decoder.
// It may import only the standard library and mcsdk/model's exported API.
//
// Integers are little-endian. A frame is a uint32 length and that many
// bytes. A string is a uint32 length and its bytes. A Value is its kind
// (one byte) then: an int64 (int), a string (string), one byte (bool), a
// uint32 count and the elements (list) or a uint32 count and name-value
// pairs (record). A State is a uint32 node count, per node its liveness
// (one byte) and a uint32 count of name-value pairs sorted by name, then a
// uint32 count of logs, sorted by name, each a name, a uint32 count and
// the entries.
//
// A request is an op byte ('I' invariant, 'P' fault precondition), the
// function's name, for 'P' the node as an int64, and the State. A reply is
// a status byte (wireHolds, wireFails, wireError) and a string: why the
// check fails, or the error (a panic of the check).

import (
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/weft-mc/weft/mcsdk/model"
)

// Reply statuses.
const (
	wireHolds = 0
	wireFails = 1
	wireError = 2
)

// wireMaxFrame bounds a frame: a larger length is a corrupt stream.
const wireMaxFrame = 1 << 30

func wireU32(b []byte, n int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(n)) }

func wireString(b []byte, s string) []byte { return append(wireU32(b, len(s)), s...) }

func wireValue(b []byte, v model.Value) []byte {
	b = append(b, byte(v.Kind()))
	switch v.Kind() {
	case model.IntValue:
		n, _ := v.AsInt()
		b = binary.LittleEndian.AppendUint64(b, uint64(n))
	case model.StrValue:
		s, _ := v.AsStr()
		b = wireString(b, s)
	case model.BoolValue:
		t, _ := v.AsBool()
		if t {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	case model.ListValue:
		b = wireU32(b, len(v.Elems()))
		for _, e := range v.Elems() {
			b = wireValue(b, e)
		}
	case model.RecordValue:
		b = wireU32(b, len(v.Fields()))
		for _, f := range v.Fields() {
			b = wireValue(wireString(b, f.Name), f.Value)
		}
	}
	return b
}

func wireState(b []byte, s model.State) []byte {
	b = wireU32(b, len(s.Nodes))
	for _, n := range s.Nodes {
		if n.Alive {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = wireU32(b, len(n.Vars))
		for _, name := range slices.Sorted(maps.Keys(n.Vars)) {
			b = wireValue(wireString(b, name), n.Vars[name])
		}
	}
	b = wireU32(b, len(s.Logs))
	for _, name := range slices.Sorted(maps.Keys(s.Logs)) {
		b = wireU32(wireString(b, name), len(s.Logs[name]))
		for _, e := range s.Logs[name] {
			b = wireValue(b, e)
		}
	}
	return b
}

var errWire = errors.New("checks helper: malformed message")

// wireReader decodes one frame; the first error sticks.
type wireReader struct {
	b   []byte
	err error
}

func (r *wireReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errWire
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *wireReader) byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *wireReader) u32() int {
	if b := r.take(4); b != nil {
		return int(binary.LittleEndian.Uint32(b))
	}
	return 0
}

// count reads a count of items of at least min bytes each, refusing one
// the frame cannot hold.
func (r *wireReader) count(min int) int {
	n := r.u32()
	if n > len(r.b)/min {
		r.err = errWire
		return 0
	}
	return n
}

func (r *wireReader) int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (r *wireReader) string() string { return string(r.take(r.u32())) }

func (r *wireReader) value(depth int) model.Value {
	if depth > 1000 {
		r.err = errWire
	}
	if r.err != nil {
		return model.Value{}
	}
	switch model.ValueKind(r.byte()) {
	case model.IntValue:
		return model.Int(r.int64())
	case model.StrValue:
		return model.Str(r.string())
	case model.BoolValue:
		return model.Bool(r.byte() != 0)
	case model.ListValue:
		elems := make([]model.Value, r.count(1))
		for i := range elems {
			elems[i] = r.value(depth + 1)
		}
		return model.List(elems...)
	case model.RecordValue:
		fields := make([]model.Field, r.count(5))
		for i := range fields {
			fields[i].Name = r.string()
			fields[i].Value = r.value(depth + 1)
		}
		return model.Record(fields)
	case model.InvalidValue:
		return model.Value{}
	}
	r.err = errWire
	return model.Value{}
}

func (r *wireReader) state() model.State {
	var s model.State
	s.Nodes = make([]model.NodeState, r.count(5))
	for i := range s.Nodes {
		s.Nodes[i].Alive = r.byte() != 0
		n := r.count(5)
		s.Nodes[i].Vars = make(map[string]model.Value, n)
		for range n {
			name := r.string()
			s.Nodes[i].Vars[name] = r.value(0)
		}
	}
	if n := r.count(8); n > 0 {
		s.Logs = make(map[string][]model.Value, n)
		for range n {
			name := r.string()
			entries := make([]model.Value, r.count(1))
			for j := range entries {
				entries[j] = r.value(0)
			}
			s.Logs[name] = entries
		}
	}
	return s
}

// wireWrite writes b as one frame.
func wireWrite(w io.Writer, b []byte) error {
	if len(b) > wireMaxFrame {
		return errWire
	}
	frame := make([]byte, 0, 4+len(b))
	frame = append(wireU32(frame, len(b)), b...)
	_, err := w.Write(frame)
	return err
}

// wireRead reads one frame.
func wireRead(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > wireMaxFrame || size > math.MaxInt32 {
		return nil, errWire
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}
