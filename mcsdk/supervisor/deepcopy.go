//go:build linux && amd64

package supervisor

import (
	"reflect"
	"sync"
	"unsafe"
)

// deepCopier copies a graph of Go values, unexported fields included,
// keeping its shape: a pointer, map or slice array met twice is copied
// once, so the copy's pointers alias exactly where the original's do
// (a call's world, a channel's sockets, a socket's peer). Functions and
// channels are shared, not copied, and so are the pointer types in share
// (process-wide services such as the launcher).
//
// A checkpoint copies the world with it (checkpoint_linux.go): whatever
// the world's later behaviour depends on lives in this graph, and what
// does not (descriptors, host pids) the checkpoint replaces after the copy.
type deepCopier struct {
	seen  map[aliasKey]reflect.Value
	share map[reflect.Type]bool
	// shared lists the types of the non-nil functions and channels met:
	// a closure over the original would still reach it from the copy,
	// so the caller checks them against what it rebinds.
	shared []reflect.Type
}

// aliasKey names one pointer, map or slice array of one type: a struct
// and its first field share an address but not a type.
type aliasKey struct {
	p unsafe.Pointer
	t reflect.Type
	n int // a slice's length and capacity, so that two views of one array stay apart
	c int
}

func newDeepCopier(share ...reflect.Type) *deepCopier {
	c := &deepCopier{seen: map[aliasKey]reflect.Value{}, share: map[reflect.Type]bool{}}
	for _, t := range share {
		c.share[t] = true
	}
	return c
}

// open makes v, if addressable, usable although reached through
// unexported fields (reflect refuses to Set from such a value otherwise);
// a value that is not addressable is first copied into one that is.
func open(v reflect.Value) reflect.Value {
	if !v.CanAddr() {
		if v.CanInterface() {
			return v
		}
		panic("supervisor: deep copy reached an unaddressable unexported value of type " + v.Type().String())
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// copy returns a deep copy of v (v usable: see open).
func (c *deepCopier) copy(v reflect.Value) reflect.Value {
	t := v.Type()
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || c.share[t] {
			return v
		}
		k := aliasKey{p: v.UnsafePointer(), t: t}
		if p, ok := c.seen[k]; ok {
			return p
		}
		p := reflect.New(t.Elem())
		c.seen[k] = p
		c.into(p.Elem(), open(v.Elem()))
		return p
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		k := aliasKey{p: v.UnsafePointer(), t: t}
		if m, ok := c.seen[k]; ok {
			return m
		}
		m := reflect.MakeMapWithSize(t, v.Len())
		c.seen[k] = m
		for it := v.MapRange(); it.Next(); {
			m.SetMapIndex(c.copy(it.Key()), c.copy(it.Value()))
		}
		return m
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		k := aliasKey{p: v.UnsafePointer(), t: t, n: v.Len(), c: v.Cap()}
		if s, ok := c.seen[k]; ok {
			return s
		}
		s := reflect.MakeSlice(t, v.Len(), v.Cap())
		c.seen[k] = s
		if plain(t.Elem()) {
			reflect.Copy(s, v)
			return s
		}
		for i := 0; i < v.Len(); i++ {
			c.into(s.Index(i), v.Index(i))
		}
		return s
	case reflect.Struct, reflect.Array:
		out := reflect.New(t).Elem()
		c.into(out, v)
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(t).Elem()
		out.Set(c.copy(open(v.Elem())))
		return out
	}
	if (v.Kind() == reflect.Func || v.Kind() == reflect.Chan) && !v.IsNil() {
		c.shared = append(c.shared, t)
	}
	return v // scalars, strings, functions, channels, unsafe pointers
}

// into copies src deeply into dst, an addressable value of its type.
func (c *deepCopier) into(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Struct:
		if !src.CanAddr() {
			tmp := reflect.New(src.Type()).Elem()
			tmp.Set(src)
			src = tmp
		}
		// The struct's bytes first: its fields that hold no pointers
		// and its strings (immutable) are copied so; then each field
		// that holds pointers, functions or channels is copied deeply
		// over its shallow copy (deepFields).
		open(dst).Set(src)
		for _, i := range deepFields(src.Type()) {
			open(dst.Field(i)).Set(c.copy(open(src.Field(i))))
		}
	case reflect.Array:
		if plain(src.Type().Elem()) {
			open(dst).Set(src)
			return
		}
		for i := 0; i < src.Len(); i++ {
			c.into(dst.Index(i), open(src.Index(i)))
		}
	default:
		open(dst).Set(c.copy(src))
	}
}

// deepFields lists the fields of struct type t that into copies deeply:
// every field but those whose values copy is the identity for (plain
// ones, strings, unsafe pointers). Remembered per type (typePlans): a
// checkpoint and each restore copy the same types' values thousands of
// times a search, and walking every field of each value through reflect
// was most of copyState's CPU.
func deepFields(t reflect.Type) []int {
	if f, ok := typePlans.fields.Load(t); ok {
		return f.([]int)
	}
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		switch ft := t.Field(i).Type; {
		case ft.Kind() == reflect.String, ft.Kind() == reflect.UnsafePointer, plain(ft):
		default:
			idx = append(idx, i)
		}
	}
	typePlans.fields.Store(t, idx)
	return idx
}

// typePlans remembers, per type, deepFields and plain: functions of the
// type alone.
var typePlans struct {
	fields sync.Map // reflect.Type → []int
	plain  sync.Map // reflect.Type → bool
}

// plain reports whether values of t hold no pointers, so copying their
// bytes copies them.
func plain(t reflect.Type) bool {
	if p, ok := typePlans.plain.Load(t); ok {
		return p.(bool)
	}
	p := plainType(t)
	typePlans.plain.Store(t, p)
	return p
}

func plainType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !plain(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
