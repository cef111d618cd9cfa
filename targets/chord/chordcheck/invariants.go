package chordcheck

import "fmt"

// AtLeastOneRing holds when some member reaches itself by BestSucc.
// (Zave 2012, OneOrderedRing: "some ringMembers".)
func AtLeastOneRing(nodes []Node) (ok bool, why string) {
	if len(RingMembers(nodes)) == 0 {
		return false, "no member reaches itself by bestSucc"
	}
	return true, ""
}

// AtMostOneRing holds when every ring member reaches every other ring
// member by BestSucc. (Zave 2012, OneOrderedRing: "not two".)
func AtMostOneRing(nodes []Node) (ok bool, why string) {
	v := newView(nodes)
	ring := v.ringMembers()
	for _, a := range ring {
		for _, b := range ring {
			if a != b && !v.reaches(a, b) {
				return false, fmt.Sprintf("ring members %d and %d are on different rings", a, b)
			}
		}
	}
	return true, ""
}

// OrderedRing holds when for ring members n1, n2 = BestSucc(n1) ≠ n1 and any
// other ring member n3, n3 is not Between(n1, n3, n2). (Zave 2012,
// OneOrderedRing: "ring is globally ordered".)
func OrderedRing(nodes []Node) (ok bool, why string) {
	v := newView(nodes)
	ring := v.ringMembers()
	for _, n1 := range ring {
		n2 := v.bestSucc(n1)
		if n2 == n1 {
			continue
		}
		for _, n3 := range ring {
			if n3 != n1 && n3 != n2 && Between(n1, n3, n2) {
				return false, fmt.Sprintf("ring member %d lies between %d and its best successor %d", n3, n1, n2)
			}
		}
	}
	return true, ""
}

// ConnectedAppendages holds when every appendage reaches some ring member
// by BestSucc. (Zave 2012, ConnectedAppendages.)
func ConnectedAppendages(nodes []Node) (ok bool, why string) {
	v := newView(nodes)
	ring := v.ringMembers()
	for _, a := range Appendages(nodes) {
		if !anyOf(ring, func(r int) bool { return v.reaches(a, r) }) {
			return false, fmt.Sprintf("appendage %d reaches no ring member", a)
		}
	}
	return true, ""
}

// OrderedAppendages holds when, along the BestSucc path by which appendages
// hang off a ring member n, each step a1 → a2 skips no node a3 of the same
// tree that lies before a1 or after a2 on the path to n: not Between(a1, a3,
// a2). (Zave 2012, OrderedAppendages, Figure 3.)
func OrderedAppendages(nodes []Node) (ok bool, why string) {
	v := newView(nodes)
	ring := v.ringMembers()
	isRing := func(id int) bool { return anyOf(ring, func(r int) bool { return r == id }) }
	appendSucc := func(id int) int {
		if isRing(id) {
			return None
		}
		return v.bestSucc(id)
	}
	down := func(from, to int) bool { return v.follows(appendSucc, from, to) }
	for _, n := range ring {
		tree := append(Appendages(nodes), n)
		for _, a1 := range tree {
			a2 := appendSucc(a1)
			if a2 == None || a1 == a2 || !down(a1, n) {
				continue
			}
			for _, a3 := range tree {
				if a3 == a1 || a3 == a2 || !(down(a3, a1) || down(a2, a3)) {
					continue
				}
				if Between(a1, a3, a2) {
					return false, fmt.Sprintf("appendage step %d -> %d skips %d on the way to ring member %d", a1, a2, a3, n)
				}
			}
		}
	}
	return true, ""
}

// OrderedMerges holds when an appendage n2 and a ring member n1 with the
// same best successor n3 (a ring member) are ordered Between(n1, n2, n3).
// As in Zave's model, ring membership here follows Succ, not BestSucc.
// (Zave 2012, OrderedMerges, Figure 2.)
func OrderedMerges(nodes []Node) (ok bool, why string) {
	v := newView(nodes)
	succOf := func(id int) int {
		if !v.member(id) {
			return None
		}
		return v.byID[id].Succ
	}
	onSuccRing := func(id int) bool { return v.follows(succOf, id, id) }
	for _, n1 := range v.ids {
		n3 := v.bestSucc(n1)
		if n3 == None || n3 == n1 || !onSuccRing(n1) || !onSuccRing(n3) {
			continue
		}
		for _, n2 := range v.ids {
			if n2 == n1 || n2 == n3 || v.bestSucc(n2) != n3 || onSuccRing(n2) {
				continue
			}
			if !Between(n1, n2, n3) {
				return false, fmt.Sprintf("appendage %d merges at %d but is not between ring member %d and %d", n2, n3, n1, n3)
			}
		}
	}
	return true, ""
}

// ValidSuccessorList holds when, for distinct members n and m, if n's list
// [Succ, Succ2] skips over m (Between(n.Succ, m, n.Succ2)) then no member
// whose Succ is n has m as its Succ2. (Zave 2012, ValidSuccessorList,
// Figure 4.)
func ValidSuccessorList(nodes []Node) (ok bool, why string) {
	v := newView(nodes)
	members := v.members()
	for _, n := range members {
		node := v.byID[n]
		if node.Succ2 == None {
			continue
		}
		for _, m := range members {
			if m == n || !Between(node.Succ, m, node.Succ2) {
				continue
			}
			for _, a := range members {
				if ante := v.byID[a]; ante.Succ == n && ante.Succ2 == m {
					return false, fmt.Sprintf("%d's list [%d %d] skips %d, but %d (succ %d) lists %d as succ2",
						n, node.Succ, node.Succ2, m, a, n, m)
				}
			}
		}
	}
	return true, ""
}

// Precondition reports whether the node with chord id failingID may fail
// now under the papers' assumption: its failure leaves no other live node
// with an all-dead successor list. Every live m with m.Succ = failingID must
// have a live member as m.Succ2, and every live m with m.Succ2 = failingID
// must have a live member as m.Succ. Evaluate it on the lists as they are
// at the moment of death. (Zave 2012, fact MemberCanFail.)
func Precondition(nodes []Node, failingID int) (ok bool, why string) {
	after := append([]Node(nil), nodes...)
	found := false
	for i := range after {
		if after[i].ID == failingID {
			after[i].Alive, found = false, true
		}
	}
	if !found {
		panic(fmt.Sprintf("chordcheck: Precondition: no node with chord id %d", failingID))
	}
	v := newView(after)
	for _, m := range v.members() {
		n := v.byID[m]
		if n.Succ == failingID && !v.member(n.Succ2) {
			return false, fmt.Sprintf("%d fails while %d has succ %d and no live succ2 (%s)", failingID, m, failingID, show(n.Succ2))
		}
		if n.Succ2 == failingID && !v.member(n.Succ) {
			return false, fmt.Sprintf("%d fails while %d has succ2 %d and no live succ (%s)", failingID, m, failingID, show(n.Succ))
		}
	}
	return true, ""
}

// anyOf reports whether some id in ids satisfies f. (Plain loops rather
// than the generic slices package, so that weft's interpreter, which loads
// these checks from the model, runs them unchanged.)
func anyOf(ids []int, f func(int) bool) bool {
	for _, id := range ids {
		if f(id) {
			return true
		}
	}
	return false
}
