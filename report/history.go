package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/history"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// WorkloadKind is the [workload] kind of the model in man ("" when the
// manifest holds no model that parses, or the model has no workload).
func WorkloadKind(man dataset.Manifest) workload.Kind {
	if man.ModelText == "" {
		return ""
	}
	m, err := model.Parse(man.ModelPath, []byte(man.ModelText))
	if err != nil || m.Workload == nil {
		return ""
	}
	return m.Workload.Kind
}

// HistoryOps rebuilds a run's client history from its recording's invoke
// and return events (a return is its client's next one after an invoke;
// an operation without one stays indeterminate). Steps are the
// recording's, as in the run's own history; Req (the table index) is not
// recorded and stays 0, times are the events' (µs, as nanoseconds).
func HistoryOps(kind workload.Kind, events []weftlog.Event) ([]workload.Op, error) {
	var ops []workload.Op
	pending := map[string]int{} // client → index in ops
	seq := map[string]int{}     // client → operations invoked
	for _, e := range events {
		switch e.Kind {
		case "invoke":
			c, err := parseCall(kind, e.Var, e.Value)
			if err != nil {
				return nil, fmt.Errorf("step %d: %v", e.Step, err)
			}
			c.Node, c.Seq = e.Node, seq[e.Var]
			seq[e.Var]++
			pending[e.Var] = len(ops)
			ops = append(ops, workload.Op{Call: c, Outcome: workload.Indeterminate, CallStep: e.Step, ReturnStep: -1, CallT: e.T * 1000, ReturnT: -1})
		case "return":
			i, ok := pending[e.Var]
			if !ok {
				return nil, fmt.Errorf("step %d: %s returns without an operation", e.Step, e.Var)
			}
			delete(pending, e.Var)
			if err := parseOutcome(&ops[i], e.Value); err != nil {
				return nil, fmt.Errorf("step %d: %v", e.Step, err)
			}
			ops[i].ReturnStep, ops[i].ReturnT = e.Step, e.T*1000
		}
	}
	return ops, nil
}

// parseCall reads a call as workload.Call.String writes it ("write 5",
// "cas 5->7", "put x 3", "read") for client ("c0").
func parseCall(kind workload.Kind, client, s string) (workload.Call, error) {
	var c workload.Call
	n, err := strconv.Atoi(strings.TrimPrefix(client, "c"))
	if err != nil || !strings.HasPrefix(client, "c") {
		return c, fmt.Errorf("client %q is not c<number>", client)
	}
	c.Client = n
	f := strings.Fields(s)
	if len(f) == 0 {
		return c, fmt.Errorf("empty call")
	}
	c.Op, f = f[0], f[1:]
	if kind == workload.KV {
		if len(f) == 0 {
			return c, fmt.Errorf("call %q names no key", s)
		}
		c.Key, f = f[0], f[1:]
	}
	switch {
	case workload.Reads(c.Op) && len(f) == 0:
		return c, nil
	case len(f) != 1:
		return c, fmt.Errorf("call %q is not a %s call", s, kind)
	case c.Op == "cas":
		old, val, ok := strings.Cut(f[0], "->")
		if c.Old, err = strconv.ParseInt(old, 10, 64); err == nil && ok {
			c.Value, err = strconv.ParseInt(val, 10, 64)
		}
	default:
		c.Value, err = strconv.ParseInt(f[0], 10, 64)
	}
	if err != nil {
		return c, fmt.Errorf("call %q: %v", s, err)
	}
	return c, nil
}

// parseOutcome reads a return event's "CALL → OUTCOME" (a read that took
// effect: its values, separated by commas) into op.
func parseOutcome(op *workload.Op, s string) error {
	_, out, ok := strings.Cut(s, " →")
	if !ok {
		return fmt.Errorf("return %q has no outcome", s)
	}
	switch out = strings.TrimSpace(out); out {
	case workload.Ok.String():
		op.Outcome = workload.Ok
	case workload.Failed.String():
		op.Outcome = workload.Failed
	case workload.Indeterminate.String():
		op.Outcome = workload.Indeterminate
	default:
		if !workload.Reads(op.Call.Op) {
			return fmt.Errorf("return %q: %q is no outcome", s, out)
		}
		op.Outcome = workload.Ok
		for _, v := range strings.FieldsFunc(out, func(r rune) bool { return r == ',' }) {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("return %q: %v", s, err)
			}
			op.Values = append(op.Values, n)
		}
	}
	return nil
}

// historyPage checks the history in a recording's events with Porcupine
// and returns Porcupine's visualisation of it, and whether it is
// linearizable.
func historyPage(kind workload.Kind, events []weftlog.Event) ([]byte, bool, error) {
	ops, err := HistoryOps(kind, events)
	if err != nil {
		return nil, false, err
	}
	res, err := history.Check(kind, ops)
	if err != nil {
		return nil, false, err
	}
	var b bytes.Buffer
	if err := res.WriteHTML(&b); err != nil {
		return nil, false, err
	}
	return b.Bytes(), res.Ok, nil
}
