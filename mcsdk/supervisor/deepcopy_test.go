//go:build linux && amd64

package supervisor

import (
	"reflect"
	"testing"
)

type dcLeaf struct{ v int }

type dcIface interface{ get() int }

func (l *dcLeaf) get() int { return l.v }

type dcRoot struct {
	a, b   *dcLeaf // the same leaf twice
	self   *dcRoot
	m      map[int]*dcLeaf
	s      []dcLeaf
	bytes  []byte
	arr    [2]*dcLeaf
	i      dcIface
	shared *launcher
	f      func()
}

// TestDeepCopier copies a graph with unexported fields, aliasing, a
// cycle, maps, slices, arrays and an interface: the copy is equal, shares
// nothing mutable with the original but the shared type, keeps the
// aliasing, and reports the function it shares.
func TestDeepCopier(t *testing.T) {
	leaf := &dcLeaf{1}
	l := &launcher{}
	orig := &dcRoot{a: leaf, b: leaf, m: map[int]*dcLeaf{3: leaf}, s: []dcLeaf{{4}}, bytes: []byte("x"),
		arr: [2]*dcLeaf{leaf, {5}}, i: leaf, shared: l, f: func() {}}
	orig.self = orig
	dc := newDeepCopier(reflect.TypeFor[*launcher]())
	cp := dc.copy(reflect.ValueOf(orig)).Interface().(*dcRoot)
	checks := []struct {
		name string
		ok   bool
	}{
		{"a new root", cp != orig},
		{"the cycle to the copy", cp.self == cp},
		{"a new leaf", cp.a != leaf && cp.a.v == 1},
		{"aliasing kept", cp.a == cp.b && cp.m[3] == cp.a && cp.arr[0] == cp.a && cp.i.(*dcLeaf) == cp.a},
		{"the array's other leaf copied", cp.arr[1] != orig.arr[1] && cp.arr[1].v == 5},
		{"slices copied", &cp.s[0] != &orig.s[0] && cp.s[0].v == 4 && &cp.bytes[0] != &orig.bytes[0] && string(cp.bytes) == "x"},
		{"the shared type shared", cp.shared == l},
		{"the function reported", len(dc.shared) == 1 && dc.shared[0] == reflect.TypeFor[func()]()},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: no", c.name)
		}
	}
	cp.a.v = 9
	if leaf.v != 1 {
		t.Error("writing the copy changed the original")
	}
}
