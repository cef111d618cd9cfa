// Package history checks client histories (package workload) for
// linearizability with Porcupine (github.com/anishathalye/porcupine), with
// one sequential model per workload kind: a register, a key-value map
// partitioned by key, and a set.
//
// Operation times are the run's steps, a total order of its events: an
// operation invoked at step i and completed at step j occupies [2i, 2j+1],
// so a reply in the step of another call's invocation follows it. An
// operation without a reply (indeterminate, or pending when the history
// ends) returns at the end of time: it may take effect at any point after
// its invocation, or not at all; an indeterminate read says nothing and is
// left out.
package history

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// Result is the outcome of a linearizability check.
type Result struct {
	Ok bool
	// Ops is the number of operations checked.
	Ops int
	// For a violation: the partition that cannot be linearized ("" for
	// the whole history of a register or set, else the key), its longest
	// linearizable prefix in linearization order, and its operations that
	// cannot be ordered after that prefix.
	Key       string
	Prefix    []workload.Op
	Unordered []workload.Op
	info      porcupine.LinearizationInfo
	model     porcupine.Model
	_         struct{}
}

// Check decides whether ops, a history of a workload of kind k, is
// linearizable. Porcupine runs without a time limit, so the answer is
// the same on every machine.
func Check(k workload.Kind, ops []workload.Op) (*Result, error) {
	m, err := Model(k)
	if err != nil {
		return nil, err
	}
	hist := Operations(ops)
	res, info := porcupine.CheckOperationsVerbose(m, hist, 0)
	r := &Result{Ok: res == porcupine.Ok, Ops: len(hist), info: info, model: m}
	if !r.Ok {
		parts := [][]porcupine.Operation{hist}
		if m.Partition != nil {
			parts = m.Partition(hist)
		}
		r.explain(parts, info.PartialLinearizations())
	}
	return r, nil
}

// explain finds the first partition that no linearization covers and its
// longest partial linearization (the first in order among equals, for
// determinism).
func (r *Result) explain(parts [][]porcupine.Operation, partials [][][]int) {
	for p, part := range parts {
		var best []int
		for _, l := range partials[p] {
			if len(l) > len(best) || len(l) == len(best) && slices.Compare(l, best) < 0 {
				best = l
			}
		}
		if len(best) == len(part) {
			continue
		}
		in := map[int]bool{}
		for _, id := range best {
			r.Prefix = append(r.Prefix, part[id].Metadata.(workload.Op))
			in[id] = true
		}
		for id, op := range part {
			if !in[id] {
				r.Unordered = append(r.Unordered, op.Metadata.(workload.Op))
			}
		}
		r.Key = part[0].Metadata.(workload.Op).Call.Key
		return
	}
}

// Operations converts a history to Porcupine's operations, leaving out
// reads without a result.
func Operations(ops []workload.Op) []porcupine.Operation {
	var out []porcupine.Operation
	for _, op := range ops {
		known := op.Outcome == workload.Ok || op.Outcome == workload.Failed
		if !known && workload.Reads(op.Call.Op) {
			continue
		}
		ret := int64(math.MaxInt64)
		if known {
			ret = 2*int64(op.ReturnStep) + 1
		}
		out = append(out, porcupine.Operation{ClientId: op.Call.Client, Input: op.Call, Call: 2 * int64(op.CallStep),
			Output: output{op.Outcome, encode(op.Values)}, Return: ret, Metadata: op})
	}
	return out
}

// output is what Porcupine's models see of a reply: the outcome and a
// read's values, encoded so that states and outputs compare with ==.
type output struct {
	outcome workload.Outcome
	values  string
}

func encode(vals []int64) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ",")
}

// Model is Porcupine's sequential model of a workload kind.
func Model(k workload.Kind) (porcupine.Model, error) {
	m := porcupine.Model{
		Init:              func() any { return "" },
		DescribeOperation: describe,
		DescribeState: func(s any) string {
			if s.(string) == "" {
				return "(empty)"
			}
			return s.(string)
		},
	}
	// A definite failure took no effect (a cas's failure says more: the
	// value was not its old one).
	failed := func(step func(string, workload.Call, output) (bool, any)) func(st, in, out any) (bool, any) {
		return func(st, in, out any) (bool, any) {
			c, o := in.(workload.Call), out.(output)
			if o.outcome == workload.Failed && c.Op != "cas" {
				return true, st
			}
			return step(st.(string), c, o)
		}
	}
	switch k {
	case workload.Register:
		m.Init = func() any { return "0" }
		m.Step = failed(register)
	case workload.KV:
		m.Partition = byKey
		m.Step = failed(kv)
	case workload.Set:
		m.Step = failed(set)
	default:
		return m, fmt.Errorf("history: no linearizability model for workload kind %q (register, kv, set)", k)
	}
	return m, nil
}

// Kinds lists the workload kinds with a model, for "porcupine:KIND".
func Kinds() []string {
	return []string{string(workload.Register), string(workload.KV), string(workload.Set)}
}

func describe(in, out any) string {
	c, o := in.(workload.Call), out.(output)
	s := fmt.Sprintf("c%d %s", c.Client, c)
	switch {
	case o.outcome == workload.Ok && workload.Reads(c.Op):
		return s + " → " + orEmpty(o.values)
	case o.outcome == workload.Ok:
		return s + " → ok"
	case o.outcome == workload.Failed:
		return s + " → fail"
	}
	return s + " → ?"
}

func orEmpty(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// register: the state is the value, "0" at first. A read must return it
// (an empty reply reads as 0); a cas takes effect only when the value is
// its old one, and fails only when it is not.
func register(st string, c workload.Call, o output) (bool, any) {
	v := strconv.FormatInt(c.Value, 10)
	switch c.Op {
	case "write":
		return true, v
	case "read":
		return orZero(o.values) == st, st
	case "cas":
		match := st == strconv.FormatInt(c.Old, 10)
		switch o.outcome {
		case workload.Ok:
			return match, v
		case workload.Failed:
			return !match, st
		}
		if match {
			return true, v
		}
		return true, st
	}
	return false, st
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// kv: each key's state is its value, a list of integers: put replaces it,
// append adds to its end, get returns it.
func kv(st string, c workload.Call, o output) (bool, any) {
	v := strconv.FormatInt(c.Value, 10)
	switch c.Op {
	case "put":
		return true, v
	case "append":
		if st == "" {
			return true, v
		}
		return true, st + "," + v
	case "get":
		return o.values == st, st
	}
	return false, st
}

// set: the state is its elements, sorted; a read returns them in any
// order.
func set(st string, c workload.Call, o output) (bool, any) {
	elems := func(s string) []int64 {
		var out []int64
		for _, f := range strings.Split(s, ",") {
			if n, err := strconv.ParseInt(f, 10, 64); err == nil {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	switch c.Op {
	case "add":
		return true, encode(elems(st + "," + strconv.FormatInt(c.Value, 10)))
	case "read":
		return encode(elems(o.values)) == st, st
	}
	return false, st
}

func byKey(ops []porcupine.Operation) [][]porcupine.Operation {
	keys := map[string][]porcupine.Operation{}
	var names []string
	for _, op := range ops {
		k := op.Input.(workload.Call).Key
		if _, ok := keys[k]; !ok {
			names = append(names, k)
		}
		keys[k] = append(keys[k], op)
	}
	sort.Strings(names)
	out := make([][]porcupine.Operation, len(names))
	for i, k := range names {
		out[i] = keys[k]
	}
	return out
}

// Text describes a violation for people: the longest linearizable prefix
// and the operations that cannot be ordered after it.
func (r *Result) Text() string {
	if r.Ok {
		return fmt.Sprintf("linearizable (%d operations)", r.Ops)
	}
	var b strings.Builder
	where := ""
	if r.Key != "" {
		where = fmt.Sprintf(" (key %s)", r.Key)
	}
	fmt.Fprintf(&b, "not linearizable%s: longest linearizable prefix (%d operations):\n", where, len(r.Prefix))
	for _, op := range r.Prefix {
		fmt.Fprintf(&b, "  %s\n", Describe(op))
	}
	fmt.Fprintf(&b, "cannot be ordered after it (%d operations):\n", len(r.Unordered))
	for _, op := range r.Unordered {
		fmt.Fprintf(&b, "  %s\n", Describe(op))
	}
	return strings.TrimRight(b.String(), "\n")
}

// Describe renders one operation: client, call, node, result and when.
func Describe(op workload.Op) string {
	s := fmt.Sprintf("c%d %s at n%d", op.Call.Client, op.Call, op.Call.Node)
	switch op.Outcome {
	case workload.Ok:
		if workload.Reads(op.Call.Op) {
			s += " → " + orEmpty(encode(op.Values))
		} else {
			s += " → ok"
		}
	case workload.Failed:
		s += " → fail"
	default:
		s += " → " + op.Outcome.String()
	}
	ret := "…"
	if op.ReturnStep >= 0 {
		ret = fmt.Sprintf("%d (%.3fms)", op.ReturnStep, float64(op.ReturnT)/1e6)
	}
	return fmt.Sprintf("%s   [step %d (%.3fms), %s]", s, op.CallStep, float64(op.CallT)/1e6, ret)
}

// WriteHTML writes Porcupine's interactive visualisation of the checked
// history (a self-contained HTML page).
func (r *Result) WriteHTML(w io.Writer) error { return porcupine.Visualize(r.model, r.info, w) }
