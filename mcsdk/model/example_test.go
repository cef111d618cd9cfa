package model_test

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/model"
)

// The seed's repl-bug outcome: the primary acked 5 while the backup still
// held 0.
func ExampleInvariant_Check() {
	m, err := model.Load("testdata/repl.model")
	if err != nil {
		panic(err)
	}
	s := model.State{
		Nodes: []model.NodeState{
			{Alive: true, Vars: map[string]model.Value{"stored": model.Int(5)}},
			{Alive: true, Vars: map[string]model.Value{"stored": model.Int(0)}},
		},
		Logs: map[string][]model.Value{},
	}
	reply, _ := m.Client.ParseReply(0, "ACK 5")
	s.Logs[m.Client.Log] = append(s.Logs[m.Client.Log], reply)
	for _, inv := range m.Invariants {
		ok, why, err := inv.Check(s)
		fmt.Println(inv.Name, ok, why, err)
	}
	fmt.Println(s.Summary(m))
	// Output:
	// agree_on_ack false r = {src: 0, val: 5}: r.val = 5 not in node[1] = [0] <nil>
	// node[0].stored=5, node[1].stored=0, replies=[{src: 0, val: 5}]
}
