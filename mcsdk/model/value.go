package model

import (
	"sort"
	"strconv"
	"strings"
)

// ValueKind is the dynamic type of a Value.
type ValueKind uint8

// Value kinds. The zero Value has kind InvalidValue.
const (
	InvalidValue ValueKind = iota
	IntValue
	StrValue
	BoolValue
	ListValue
	RecordValue
)

// String names the kind as it appears in type errors.
func (k ValueKind) String() string {
	switch k {
	case IntValue:
		return "int"
	case StrValue:
		return "string"
	case BoolValue:
		return "bool"
	case ListValue:
		return "list"
	case RecordValue:
		return "record"
	}
	return "invalid"
}

// Value is an immutable value of the invariant language: an integer, a
// string, a boolean, a list of values or a record with ordered fields.
// Values are compared with Equal, never with ==.
type Value struct {
	kind   ValueKind
	i      int64 // IntValue; BoolValue uses 0/1
	s      string
	list   []Value
	fields []Field
}

// Field is one named field of a record Value.
type Field struct {
	Name  string
	Value Value
}

// Int returns the integer value n.
func Int(n int64) Value { return Value{kind: IntValue, i: n} }

// Str returns the string value s.
func Str(s string) Value { return Value{kind: StrValue, s: s} }

// Bool returns the boolean value b.
func Bool(b bool) Value {
	v := Value{kind: BoolValue}
	if b {
		v.i = 1
	}
	return v
}

// List returns a list of the given elements. The slice is not copied; the
// caller must not modify it afterwards.
func List(elems ...Value) Value { return Value{kind: ListValue, list: elems} }

// Record returns a record with the given fields in order. The slice is not
// copied; the caller must not modify it afterwards.
func Record(fields []Field) Value { return Value{kind: RecordValue, fields: fields} }

// Kind reports the value's kind.
func (v Value) Kind() ValueKind { return v.kind }

// AsInt returns the integer and whether v is an integer.
func (v Value) AsInt() (int64, bool) { return v.i, v.kind == IntValue }

// AsStr returns the string and whether v is a string.
func (v Value) AsStr() (string, bool) { return v.s, v.kind == StrValue }

// AsBool returns the boolean and whether v is a boolean.
func (v Value) AsBool() (bool, bool) { return v.i != 0, v.kind == BoolValue }

// Elems returns the elements of a list (nil for other kinds). The caller must
// not modify the result.
func (v Value) Elems() []Value { return v.list }

// Fields returns the fields of a record (nil for other kinds). The caller
// must not modify the result.
func (v Value) Fields() []Field { return v.fields }

// Field returns the record field called name.
func (v Value) Field(name string) (Value, bool) {
	for _, f := range v.fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return Value{}, false
}

// Equal reports whether v and w are the same value: same kind and, for lists
// and records, equal elements (records: same field names in the same order).
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind || v.i != w.i || v.s != w.s ||
		len(v.list) != len(w.list) || len(v.fields) != len(w.fields) {
		return false
	}
	for i := range v.list {
		if !v.list[i].Equal(w.list[i]) {
			return false
		}
	}
	for i := range v.fields {
		if v.fields[i].Name != w.fields[i].Name || !v.fields[i].Value.Equal(w.fields[i].Value) {
			return false
		}
	}
	return true
}

// String renders v: 5, "x", true, [1, 2], {src: 0, val: 5}.
func (v Value) String() string { return string(v.appendTo(nil)) }

// AppendText appends v as String renders it to b (encoding.TextAppender):
// for callers that render many values without allocating each.
func (v Value) AppendText(b []byte) ([]byte, error) { return v.appendTo(b), nil }

func (v Value) appendTo(b []byte) []byte {
	switch v.kind {
	case IntValue:
		return strconv.AppendInt(b, v.i, 10)
	case StrValue:
		return strconv.AppendQuote(b, v.s)
	case BoolValue:
		return strconv.AppendBool(b, v.i != 0)
	case ListValue:
		b = append(b, '[')
		for i, e := range v.list {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = e.appendTo(b)
		}
		return append(b, ']')
	case RecordValue:
		b = append(b, '{')
		for i, f := range v.fields {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, f.Name...)
			b = append(b, ": "...)
			b = f.Value.appendTo(b)
		}
		return append(b, '}')
	}
	return append(b, "<invalid>"...)
}

// State is what invariants observe at a quiescent point of a run.
type State struct {
	Nodes []NodeState        // index = node id
	Logs  map[string][]Value // ghost logs; each entry is a record Value
}

// NodeState is one node's observable state.
type NodeState struct {
	Alive bool
	Vars  map[string]Value // keyed by declared [state] name; arrays as list Values
}

// Summary renders every node's declared state and every ghost log, e.g.
// "node[0].stored=5, node[1].stored=0, replies=[{src: 0, val: 5}]".
// Nodes that are down are marked "node[i] down". Logs appear sorted by name.
func (s State) Summary(m *Model) string {
	var parts []string
	for i, n := range s.Nodes {
		for _, name := range m.varNames(n) {
			v, ok := n.Vars[name]
			if !ok {
				continue
			}
			parts = append(parts, "node["+strconv.Itoa(i)+"]."+name+"="+v.String())
		}
		if !n.Alive {
			parts = append(parts, "node["+strconv.Itoa(i)+"] down")
		}
	}
	names := make([]string, 0, len(s.Logs))
	for name := range s.Logs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		parts = append(parts, name+"="+List(s.Logs[name]...).String())
	}
	return strings.Join(parts, ", ")
}

// varNames lists the variable names of n in declared order (m may be nil),
// followed by any undeclared names in sorted order.
func (m *Model) varNames(n NodeState) []string {
	var names []string
	seen := map[string]bool{}
	if m != nil {
		for _, sv := range m.State {
			names = append(names, sv.Name)
			seen[sv.Name] = true
		}
	}
	var extra []string
	for name := range n.Vars {
		if !seen[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	return append(names, extra...)
}
