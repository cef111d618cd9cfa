// Package chordcheck evaluates the invariants of Chord ring maintenance on a
// consistent snapshot of every node's pointers.
//
// The definitions follow Zave's Alloy models of Chord ("Using lightweight
// modeling to understand Chord", SIGCOMM CCR 42(2), 2012, and "Reasoning
// about identifier spaces: how to make Chord correct", IEEE TSE 43(12),
// 2017), with successor lists of length 2, as transcribed in
// /work/shared/design/chord-spec.md. Pointers hold chord ids, not node
// indexes. A node that is not Alive is a non-member whatever its pointers
// say: in Zave's model a failed node has no pointers.
//
// Every function is pure: it reads the slice it is given and keeps nothing.
package chordcheck

import (
	"fmt"
	"sort"
)

// None is the value of an unset pointer.
const None = -1

// Node is one node's state in a snapshot.
type Node struct {
	Index int // position in the run (node i of the model)
	ID    int // chord identifier
	Succ  int // first successor, a chord id or None
	Succ2 int // second successor, a chord id or None
	Pred  int // predecessor, a chord id or None
	Alive bool
}

// Check is a named invariant.
type Check struct {
	Name string
	Func func(nodes []Node) (ok bool, why string)
}

// Violation names a check that failed on a snapshot and says why.
type Violation struct {
	Name string
	Why  string
}

// Required returns the invariants whose violation no repair can undo:
// AtLeastOneRing, AtMostOneRing, OrderedRing, ConnectedAppendages.
func Required() []Check {
	return []Check{
		{"AtLeastOneRing", AtLeastOneRing},
		{"AtMostOneRing", AtMostOneRing},
		{"OrderedRing", OrderedRing},
		{"ConnectedAppendages", ConnectedAppendages},
	}
}

// Useful returns the invariants whose violation the protocol repairs:
// OrderedAppendages, OrderedMerges, ValidSuccessorList.
func Useful() []Check {
	return []Check{
		{"OrderedAppendages", OrderedAppendages},
		{"OrderedMerges", OrderedMerges},
		{"ValidSuccessorList", ValidSuccessorList},
	}
}

// Violations runs checks on nodes and returns the ones that fail, in order.
func Violations(nodes []Node, checks []Check) []Violation {
	var out []Violation
	for _, c := range checks {
		if ok, why := c.Func(nodes); !ok {
			out = append(out, Violation{Name: c.Name, Why: why})
		}
	}
	return out
}

// Between reports whether b lies strictly inside the clockwise arc from a
// to c on the identifier ring:
//
//	a < c:  a < b < c
//	a ≥ c:  b > a or b < c
//
// so Between(x, y, x) holds for every y ≠ x, and an endpoint is never
// between. (Zave's Alloy pred Between.)
func Between(a, b, c int) bool {
	if a < c {
		return a < b && b < c
	}
	return b > a || b < c
}

// BestSucc returns the first entry of [Succ, Succ2] of the node with chord
// id id that is a live member, or None. A member is a live node whose Succ
// is set.
func BestSucc(nodes []Node, id int) int {
	return newView(nodes).bestSucc(id)
}

// RingMembers returns, in ascending order, the chord ids of the members
// that reach themselves by following BestSucc one or more times.
func RingMembers(nodes []Node) []int {
	return newView(nodes).ringMembers()
}

// Appendages returns, in ascending order, the chord ids of the members
// that are not ring members.
func Appendages(nodes []Node) []int {
	v := newView(nodes)
	var out []int
	for _, id := range v.members() {
		if !v.reaches(id, id) {
			out = append(out, id)
		}
	}
	return out
}

// view indexes a snapshot by chord id.
type view struct {
	byID map[int]Node
	ids  []int // ascending
}

func newView(nodes []Node) view {
	v := view{byID: make(map[int]Node, len(nodes))}
	for _, n := range nodes {
		if _, dup := v.byID[n.ID]; dup {
			panic(fmt.Sprintf("chordcheck: two nodes with chord id %d", n.ID))
		}
		v.byID[n.ID] = n
		v.ids = append(v.ids, n.ID)
	}
	sort.Ints(v.ids)
	return v
}

func (v view) member(id int) bool {
	n, ok := v.byID[id]
	return ok && n.Alive && n.Succ != None
}

func (v view) members() []int {
	var out []int
	for _, id := range v.ids {
		if v.member(id) {
			out = append(out, id)
		}
	}
	return out
}

func (v view) bestSucc(id int) int {
	if !v.member(id) {
		return None
	}
	n := v.byID[id]
	for _, s := range []int{n.Succ, n.Succ2} {
		if s != None && v.member(s) {
			return s
		}
	}
	return None
}

// follows reports whether to is reached from from by one or more steps of
// next (a pointer function returning None where it is undefined).
func (v view) follows(next func(int) int, from, to int) bool {
	cur := from
	for k := 0; k < len(v.ids); k++ {
		cur = next(cur)
		if cur == None {
			return false
		}
		if cur == to {
			return true
		}
	}
	return false
}

func (v view) reaches(from, to int) bool { return v.follows(v.bestSucc, from, to) }

func (v view) ringMembers() []int {
	var out []int
	for _, id := range v.members() {
		if v.reaches(id, id) {
			out = append(out, id)
		}
	}
	return out
}

// show prints a pointer for a message.
func show(id int) string {
	if id == None {
		return "unset"
	}
	return fmt.Sprint(id)
}
