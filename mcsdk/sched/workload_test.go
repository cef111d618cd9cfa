package sched

import (
	"fmt"
	"slices"
	"testing"
)

// TestSeededWorkload runs two closed-loop clients of 3 operations each
// (3 calls per slot, Req = 10·client + 3·op + choice): client 0 gets every
// reply at once, client 1 none, so each of its operations expires at its
// deadline before the next is drawn.
func TestSeededWorkload(t *testing.T) {
	plan := func(seed uint64) Plan {
		return Plan{Seed: seed, Latency: uniform(0, 0), Workload: &WorkloadPlan{
			Clients: 2, ThinkUS: 100, TimeoutUS: 1000,
			Slot: func(c, k int) (int, int, bool) { return 10*c + 3*k, 10*c + 3*k + 3, k < 3 },
		}}
	}
	run := func(seed uint64) []string {
		s := NewSeeded(plan(seed))
		w := &eventFake{dead: map[int]bool{}}
		var got []string
		last := int64(0)
		for range 20 {
			_, a, at, ok := s.Next(w)
			if !ok {
				break
			}
			if at < last {
				t.Fatalf("time went back: %d after %d", at, last)
			}
			last = at
			s.Applied(w, a, at)
			got = append(got, fmt.Sprintf("%s@%d", a, at/1000))
			if a.Kind == Client && a.Req < 10 {
				s.Completed(0, at)
			}
		}
		return got
	}
	a := run(1)
	if !slices.Equal(a, run(1)) {
		t.Fatalf("not deterministic")
	}
	var c0, c1, exp int
	prevInvoke := map[int]int64{}
	for _, e := range a {
		var kind string
		var req int
		var at int64
		fmt.Sscanf(e, "%s %d@%d", &kind, &req, &at)
		switch {
		case kind == "client" && req < 10:
			if req/3 != c0 {
				t.Errorf("client 0 invoked %d as operation %d", req, c0)
			}
			c0++
		case kind == "client":
			if (req-10)/3 != c1 {
				t.Errorf("client 1 invoked %d as operation %d", req, c1)
			}
			prevInvoke[c1] = at
			c1++
		case kind == "expire":
			if req != 1 {
				t.Errorf("client %d expired", req)
			}
			if at-prevInvoke[exp] != 1000 {
				t.Errorf("expired %dµs after the invocation, want 1000", at-prevInvoke[exp])
			}
			exp++
		}
	}
	if c0 != 3 || c1 != 3 || exp != 3 {
		t.Fatalf("client 0: %d ops, client 1: %d ops, %d expired\n%v", c0, c1, exp, a)
	}
}

func TestExpireAction(t *testing.T) {
	a, err := ParseAction("expire 2")
	if err != nil || a != (Action{Kind: Expire, Req: 2}) || a.String() != "expire 2" {
		t.Fatalf("%v %v", a, err)
	}
}
