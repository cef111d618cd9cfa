//go:build linux

package mcsdk_test

import (
	"fmt"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
)

// TestHistoryStepsAreTraceSteps: Porcupine's history numbers each
// operation's call and return by the recording's steps, so that they
// name the same events as weft trace and the diagrams, also after an
// expire (a step of the recording the world never sees). Paxos seed 1
// has two expires before later operations.
func TestHistoryStepsAreTraceSteps(t *testing.T) {
	m := loadTarget(t, "paxos/paxos.model")
	res, err := mcsdk.Run(m, mcsdk.RunOptions{Variant: "correct", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{} // "kind client step" → events
	expire := -1
	for _, e := range res.Events {
		at[fmt.Sprintf("%s %s %d", e.Kind, e.Var, e.Step)]++
		if e.Kind == "expire" && expire < 0 {
			expire = e.Step
		}
	}
	after := 0
	for _, op := range res.History {
		c := fmt.Sprintf("c%d", op.Call.Client)
		if at[fmt.Sprintf("invoke %s %d", c, op.CallStep)] != 1 {
			t.Errorf("%s: history calls it at step %d, the recording does not", op.Call, op.CallStep)
		}
		if op.ReturnStep >= 0 && at[fmt.Sprintf("return %s %d", c, op.ReturnStep)] != 1 {
			t.Errorf("%s: history returns it at step %d, the recording does not", op.Call, op.ReturnStep)
		}
		if expire >= 0 && op.CallStep > expire {
			after++
		}
	}
	if expire < 0 || after == 0 {
		t.Fatalf("seed 1 has no operation after an expire (first expire at step %d): the test shows nothing", expire)
	}
}
