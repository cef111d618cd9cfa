package chordcheck

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// live returns a live node; pointers are chord ids, None for unset.
func live(id, succ, succ2, pred int) Node {
	return Node{ID: id, Succ: succ, Succ2: succ2, Pred: pred, Alive: true}
}

func dead(id, succ, succ2, pred int) Node {
	return Node{ID: id, Succ: succ, Succ2: succ2, Pred: pred}
}

// ideal returns the ideal ring of ids (each with correct succ, succ2, pred),
// in the order given, with Index set to the position.
func ideal(ids ...int) []Node {
	sorted := slices.Sorted(slices.Values(ids))
	at := func(k int) int { return sorted[(k%len(sorted)+len(sorted))%len(sorted)] }
	var out []Node
	for i, id := range ids {
		k := slices.Index(sorted, id)
		n := live(id, at(k+1), at(k+2), at(k-1))
		n.Index = i
		out = append(out, n)
	}
	return out
}

// The six ids of the seed experiment: base 1, 22, 43 and appendages 4, 25, 46.
var seedIDs = []int{1, 22, 43, 4, 25, 46}

func TestBetween(t *testing.T) {
	tests := []struct {
		a, b, c int
		want    bool
	}{
		{1, 22, 43, true},
		{1, 43, 22, false},
		{43, 1, 22, true},  // wraps past 63
		{43, 50, 22, true}, // wraps, before 63
		{43, 30, 22, false},
		{5, 7, 5, true}, // between(x, y, x) for y != x
		{5, 5, 5, false},
		{5, 5, 7, false}, // endpoints are never between
		{5, 7, 7, false},
		{60, 2, 3, true},
		{60, 61, 3, true},
		{60, 30, 3, false},
		{0, 63, 0, true},
	}
	for _, tt := range tests {
		if got := Between(tt.a, tt.b, tt.c); got != tt.want {
			t.Errorf("Between(%d, %d, %d) = %v, want %v", tt.a, tt.b, tt.c, got, tt.want)
		}
	}
}

func TestBestSucc(t *testing.T) {
	nodes := []Node{
		live(1, 22, 43, 43),
		dead(22, 43, 1, 1),
		live(43, 1, 22, 22),
		live(50, 22, None, None), // succ dead, no succ2
		live(60, None, None, None),
	}
	tests := []struct {
		id, want int
	}{
		{1, 43},    // succ 22 dead, succ2 43 live
		{43, 1},    // succ live
		{22, None}, // a dead node has no best successor
		{50, None}, // all entries dead or unset
		{60, None}, // not a member
		{99, None}, // unknown id
	}
	for _, tt := range tests {
		if got := BestSucc(nodes, tt.id); got != tt.want {
			t.Errorf("BestSucc(%d) = %d, want %d", tt.id, got, tt.want)
		}
	}
}

// state is one hand-built snapshot and what each check must say about it.
type state struct {
	name       string
	nodes      []Node
	ring       []int
	appendages []int
	violated   []string // names of the checks (required and useful) that fail
}

func states() []state {
	sixRing := ideal(seedIDs...)
	// Base ring 1, 22, 43; 25 has joined (succ 43, nothing else yet) and
	// notified 43, which took it as pred: the usual mid-join appendage.
	joining := append(ideal(1, 22, 43), live(25, 43, None, None))
	joining[2].Pred = 25
	return []state{
		{name: "ideal six-ring", nodes: sixRing, ring: []int{1, 4, 22, 25, 43, 46}},
		{name: "empty", nodes: nil, violated: []string{"AtLeastOneRing"}},
		{name: "ring of one", nodes: []Node{live(7, 7, None, 7)}, ring: []int{7}},
		{name: "ring of two", nodes: ideal(7, 40), ring: []int{7, 40}},
		{name: "mid-join appendage", nodes: joining, ring: []int{1, 22, 43}, appendages: []int{25}},
		{
			// 1 <-> 22 and 43 <-> 46: two rings. Each also skips the other
			// ring's members, so OrderedRing fails too.
			name: "two rings",
			nodes: []Node{
				live(1, 22, 1, 22), live(22, 1, 22, 1),
				live(43, 46, 43, 46), live(46, 43, 46, 43),
			},
			ring:     []int{1, 22, 43, 46},
			violated: []string{"AtMostOneRing", "OrderedRing"},
		},
		{
			name:     "unordered ring",
			nodes:    []Node{live(1, 43, 22, 22), live(43, 22, 1, 1), live(22, 1, 43, 43)},
			ring:     []int{1, 22, 43},
			violated: []string{"OrderedRing"},
		},
		{
			// 25's only successor failed and it has no second entry: it is a
			// member that can never reach the ring again.
			name:       "stranded appendage",
			nodes:      append(ideal(1, 22, 43), live(25, 30, None, None), dead(30, 43, None, 22)),
			ring:       []int{1, 22, 43},
			appendages: []int{25},
			violated:   []string{"ConnectedAppendages"},
		},
		{
			// Zave, "Using lightweight modeling to understand Chord", SIGCOMM
			// CCR 42(2), 2012, Figure 6 (AtLeastOneRing): j = 22 joined
			// between a = 1 and b = 43 and notified b (43.pred = 22), then
			// failed before anyone listed it; a stabilized, read 43.pred = 22
			// and, with no liveness check, adopted dead 22. With succ2 unset a
			// has no live successor, b's only successor is a: no ring is left.
			name: "Zave 2012 Figure 6: ring lost",
			nodes: []Node{
				live(1, 22, None, 43),
				live(43, 1, None, 22),
				dead(22, 43, None, None),
			},
			appendages: []int{1, 43},
			violated:   []string{"AtLeastOneRing", "ConnectedAppendages"},
		},
		{
			// 10 -> 4 -> 22: the step 10 -> 4 skips ring member 22
			// (Between(10, 22, 4) wraps), so the appendages are misordered.
			name: "unordered appendages",
			nodes: append(ideal(1, 22, 43),
				live(10, 4, None, None), live(4, 22, None, None)),
			ring:       []int{1, 22, 43},
			appendages: []int{4, 10},
			violated:   []string{"OrderedAppendages"},
		},
		{
			// 50 merges at 22 although it belongs between 43 and 1.
			name:       "misplaced merge",
			nodes:      append(ideal(1, 22, 43), live(50, 22, None, None)),
			ring:       []int{1, 22, 43},
			appendages: []int{50},
			violated:   []string{"OrderedMerges"},
		},
		{
			// 22's list [43 1] skips 50, yet its antecedent 1 lists 50 as
			// succ2.
			name: "invalid successor list",
			nodes: []Node{
				live(1, 22, 50, 50), live(22, 43, 1, 1),
				live(43, 50, 1, 22), live(50, 1, 22, 43),
			},
			ring:     []int{1, 22, 43, 50},
			violated: []string{"ValidSuccessorList"},
		},
	}
}

func TestRingMembersAndAppendages(t *testing.T) {
	for _, s := range states() {
		t.Run(s.name, func(t *testing.T) {
			if got := RingMembers(s.nodes); !slices.Equal(got, s.ring) {
				t.Errorf("RingMembers = %v, want %v", got, s.ring)
			}
			if got := Appendages(s.nodes); !slices.Equal(got, s.appendages) {
				t.Errorf("Appendages = %v, want %v", got, s.appendages)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	for _, s := range states() {
		t.Run(s.name, func(t *testing.T) {
			vs := Violations(s.nodes, append(Required(), Useful()...))
			var names []string
			for _, v := range vs {
				names = append(names, v.Name)
				if v.Why == "" {
					t.Errorf("%s: violated without a reason", v.Name)
				}
			}
			sort.Strings(names)
			want := slices.Sorted(slices.Values(s.violated))
			if !slices.Equal(names, want) {
				t.Errorf("violated %v, want %v (%v)", names, want, vs)
			}
		})
	}
}

func TestCheckLists(t *testing.T) {
	names := func(cs []Check) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return strings.Join(out, " ")
	}
	if got, want := names(Required()), "AtLeastOneRing AtMostOneRing OrderedRing ConnectedAppendages"; got != want {
		t.Errorf("Required = %s, want %s", got, want)
	}
	if got, want := names(Useful()), "OrderedAppendages OrderedMerges ValidSuccessorList"; got != want {
		t.Errorf("Useful = %s, want %s", got, want)
	}
}

func TestPrecondition(t *testing.T) {
	// 4 has just promoted its succ2: [22 unset]. 1 still lists dead-to-be
	// 4 first, but its succ2 22 is live.
	promoted := ideal(seedIDs...)
	promoted[3].Succ2 = None // node 4
	// 25 lists [43 46]; 46 has already failed.
	oneDead := ideal(seedIDs...)
	oneDead[5].Alive = false // node 46
	tests := []struct {
		name    string
		nodes   []Node
		failing int
		want    bool
	}{
		{"ideal ring, any node", ideal(seedIDs...), 25, true},
		{"Figure 6: j listed by no one", []Node{live(1, 43, None, 43), live(43, 1, None, 22), live(22, 43, None, None)}, 22, true},
		{"succ with live succ2", promoted, 4, true},
		{"succ with unset succ2", promoted, 22, false},
		{"succ2 whose succ already died", oneDead, 43, false},
		{"succ whose succ2 already died", oneDead, 25, true}, // 22 lists [25 43]: 43 live
		{"ring of two loses one", ideal(7, 40), 40, true},    // 7 lists [40 7]
		{"ring of two, no succ2", []Node{live(7, 40, None, 40), live(40, 7, None, 7)}, 40, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := Precondition(tt.nodes, tt.failing)
			if ok != tt.want {
				t.Errorf("Precondition(fail %d) = %v (%s), want %v", tt.failing, ok, why, tt.want)
			}
			if !ok && why == "" {
				t.Error("broken precondition without a reason")
			}
		})
	}
}

func TestPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"duplicate id", func() { RingMembers([]Node{live(1, 1, None, 1), live(1, 1, None, 1)}) }},
		{"unknown failing node", func() { Precondition(ideal(1, 22), 5) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.HasPrefix(s, "chordcheck: ") {
					t.Errorf("recovered %v, want a chordcheck panic", r)
				}
			}()
			tt.f()
		})
	}
}
