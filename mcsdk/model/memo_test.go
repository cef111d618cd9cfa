package model

import (
	"fmt"
	"strings"
	"testing"
)

// TestStateKey: states that differ in anything an invariant can read
// have different keys, and equal states (maps built in another order)
// the same key.
func TestStateKey(t *testing.T) {
	node := func(alive bool, vars ...any) NodeState {
		n := NodeState{Alive: alive, Vars: map[string]Value{}}
		for i := 0; i < len(vars); i += 2 {
			n.Vars[vars[i].(string)] = vars[i+1].(Value)
		}
		return n
	}
	rec := func(v int64) Value {
		return Record([]Field{{Name: "src", Value: Int(0)}, {Name: "val", Value: Int(v)}})
	}
	states := []State{
		{Nodes: []NodeState{node(true, "x", Int(1))}},
		{Nodes: []NodeState{node(false, "x", Int(1))}},
		{Nodes: []NodeState{node(true, "x", Int(2))}},
		{Nodes: []NodeState{node(true, "y", Int(1))}},
		{Nodes: []NodeState{node(true, "x", Str("1"))}},
		{Nodes: []NodeState{node(true, "x", Bool(true))}},
		{Nodes: []NodeState{node(true, "x", List(Int(1)))}},
		{Nodes: []NodeState{node(true, "x", Int(1)), node(true)}},
		{Nodes: []NodeState{node(true), node(true, "x", Int(1))}},
		{Nodes: []NodeState{node(true, "x", Int(1), "y", Int(2))}},
		{Nodes: []NodeState{node(true, "x", Int(1))}, Logs: map[string][]Value{"replies": {rec(5)}}},
		{Nodes: []NodeState{node(true, "x", Int(1))}, Logs: map[string][]Value{"replies": {rec(6)}}},
		{Nodes: []NodeState{node(true, "x", Int(1))}, Logs: map[string][]Value{"replies": {rec(5), rec(5)}}},
		{Nodes: []NodeState{node(true, "x", Int(1))}, Logs: map[string][]Value{"other": {rec(5)}}},
		{Nodes: []NodeState{node(true, "x", Str("a\x00b"))}},
		{Nodes: []NodeState{node(true, "x", Str("a"), "b", Str(""))}},
	}
	seen := map[string]int{}
	for i, s := range states {
		k := s.key()
		if j, dup := seen[k]; dup {
			t.Errorf("states %d and %d have the same key %q", j, i, k)
		}
		seen[k] = i
	}
	a := State{Nodes: []NodeState{node(true, "x", Int(1), "y", Int(2), "z", Int(3))}, Logs: map[string][]Value{"a": {Int(1)}, "b": {Int(2)}}}
	b := State{Nodes: []NodeState{node(true, "z", Int(3), "y", Int(2), "x", Int(1))}, Logs: map[string][]Value{"b": {Int(2)}, "a": {Int(1)}}}
	if a.key() != b.key() {
		t.Errorf("equal states, different keys: %q and %q", a.key(), b.key())
	}
}

// TestMemo: a bound Go invariant answers as its function does, calls it
// once per distinct state, keeps its memo when bound again from the same
// registry (a campaign's runs) and starts afresh from another.
func TestMemo(t *testing.T) {
	m, err := Parse("testdata/memo.model", []byte("[target]\nnodes = 1\nsource = \"repl.c\"\n[state]\nx = \"int32\"\n[invariants]\nsmall = \"go:Small\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	reg := Registry{"Small": func(s State) (bool, string) {
		calls++
		v, _ := s.Nodes[0].Vars["x"].AsInt()
		return v < 3, fmt.Sprintf("x = %d", v)
	}}
	if err := m.Bind(reg); err != nil {
		t.Fatal(err)
	}
	inv := m.Invariants[0]
	st := func(x int64) State {
		return State{Nodes: []NodeState{{Alive: true, Vars: map[string]Value{"x": Int(x)}}}}
	}
	for round := range 2 {
		for _, x := range []int64{1, 5, 1, 5, 2} {
			ok, why, err := inv.Check(st(x))
			if err != nil || ok != (x < 3) || why != fmt.Sprintf("x = %d", x) {
				t.Errorf("round %d, x = %d: %v %q %v", round, x, ok, why, err)
			}
		}
		if err := m.Bind(reg); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 3 {
		t.Errorf("the function ran %d times for 3 distinct states", calls)
	}
	if err := m.Bind(Registry{"Small": reg["Small"]}); err != nil {
		t.Fatal(err)
	}
	inv.Check(st(1))
	if calls != 4 {
		t.Errorf("bound from another registry, the memo was kept (%d calls)", calls)
	}
}

// TestGoInvariantPanics: a Go invariant that panics is an evaluation
// error positioned at the invariant, not a crash, and is not remembered.
func TestGoInvariantPanics(t *testing.T) {
	m, err := Parse("testdata/memo.model", []byte("[target]\nnodes = 1\nsource = \"repl.c\"\n[state]\nx = \"int32\"\n[invariants]\nsmall = \"go:Small\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	if err := m.Bind(Registry{"Small": func(s State) (bool, string) {
		calls++
		panic("index out of range")
	}}); err != nil {
		t.Fatal(err)
	}
	s := State{Nodes: []NodeState{{Alive: true, Vars: map[string]Value{"x": Int(1)}}}}
	for range 2 {
		ok, why, err := m.Invariants[0].Check(s)
		if ok || why != "" || err == nil || !strings.Contains(err.Error(), "memo.model:7") || !strings.Contains(err.Error(), "go:Small panicked: index out of range") {
			t.Fatalf("Check: %v %q %v", ok, why, err)
		}
	}
	if calls != 2 {
		t.Fatalf("a panic was remembered: %d calls", calls)
	}
}
