package sched

import (
	"reflect"
	"slices"
	"testing"
)

// TestShrinkRemovesEveryKind: the search removes crashes, partitions,
// clock faults, drops and workload operations, keeping only what the
// failure needs (here: partition 1, client c0's first two operations and
// the crash of n2).
func TestShrinkRemovesEveryKind(t *testing.T) {
	faults := []FaultEvent{{AtUS: 10, Kind: Crash, Node: 1}, {AtUS: 20, Kind: Restart, Node: 1}, {AtUS: 30, Kind: Crash, Node: 2}}
	parts := Parts{Partitions: 2, ClockNodes: []int{0, 1}, Drops: true, Ops: []int{5, 3}}
	still := func(c Candidate) (bool, error) {
		crash2 := slices.ContainsFunc(c.Faults, func(f FaultEvent) bool { return f.Kind == Crash && f.Node == 2 })
		ops0 := 5
		if len(c.Omit.Ops) > 0 && c.Omit.Ops[0] >= 0 {
			ops0 = c.Omit.Ops[0]
		}
		return crash2 && !slices.Contains(c.Omit.Partitions, 1) && ops0 >= 2 && c.EndUS >= 40_000, nil
	}
	got, err := Shrink(faults, parts, 100_000, 0, still)
	if err != nil {
		t.Fatal(err)
	}
	want := Omit{Partitions: []int{0}, Clocks: []int{0, 1}, NoDrops: true, Ops: []int{2, 0}}
	if !reflect.DeepEqual(got.Omit, want) {
		t.Errorf("omit %+v, want %+v", got.Omit, want)
	}
	if !reflect.DeepEqual(got.Faults, faults[2:]) {
		t.Errorf("faults %v, want only the crash of n2", got.Faults)
	}
	if got.EndUS < 40_000 || got.EndUS > 41_000 {
		t.Errorf("end %dµs, want within a millisecond of 40ms", got.EndUS)
	}
	if s := got.Omit.String(); s != "partition 0, clock of n0, clock of n1, drops, ops c0≤2, ops c1≤0" {
		t.Errorf("omit reads %q", s)
	}
}
