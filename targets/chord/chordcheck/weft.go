package chordcheck

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/model"
)

// FromState builds the node snapshot the checks take from a weft state:
// each node's declared globals chord_id, succ, succ2 and pred, and its true
// liveness.
func FromState(s model.State) ([]Node, error) {
	nodes := make([]Node, len(s.Nodes))
	for i, ns := range s.Nodes {
		n := Node{Index: i, Alive: ns.Alive}
		for _, f := range []struct {
			name string
			dst  *int
		}{{"chord_id", &n.ID}, {"succ", &n.Succ}, {"succ2", &n.Succ2}, {"pred", &n.Pred}} {
			v, ok := ns.Vars[f.name].AsInt()
			if !ok {
				return nil, fmt.Errorf("chordcheck: node %d has no integer global %q (declare it in [state])", i, f.name)
			}
			*f.dst = int(v)
		}
		nodes[i] = n
	}
	return nodes, nil
}

// Registry exposes every check to weft models as "go:NAME" invariants,
// e.g. AtLeastOneRing = "go:AtLeastOneRing".
func Registry() model.Registry {
	r := model.Registry{}
	for _, c := range append(Required(), Useful()...) {
		f := c.Func
		r[c.Name] = func(s model.State) (bool, string) {
			nodes, err := FromState(s)
			if err != nil {
				return false, err.Error()
			}
			return f(nodes)
		}
	}
	return r
}

// CrashPrecondition is the papers' failure assumption as a weft fault
// precondition: node (an index) may crash in state s only if no other live
// member is left with an all-dead successor list.
func CrashPrecondition(s model.State, node int) (bool, string) {
	nodes, err := FromState(s)
	if err != nil {
		return false, err.Error()
	}
	return Precondition(nodes, nodes[node].ID)
}

// Preconditions exposes the fault preconditions to weft models as
// "go:NAME" (precondition = "go:CrashPrecondition").
func Preconditions() map[string]func(model.State, int) (bool, string) {
	return map[string]func(model.State, int) (bool, string){"CrashPrecondition": CrashPrecondition}
}
