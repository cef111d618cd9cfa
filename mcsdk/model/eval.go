package model

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// evalCtx evaluates nodes against one state.
type evalCtx struct {
	e     *Expr
	s     State
	env   map[string]Value
	bound []binding // innermost last
	steps int       // nodes evaluated so far
}

// MaxEvalSteps bounds the work of one evaluation (and of one explanation):
// nested quantifiers over large domains are exponential, and an invariant
// that never finishes would stall the checker.
const MaxEvalSteps = 1 << 24

type binding struct {
	name string
	v    Value
}

// Eval evaluates e on s with env as the environment (it overrides values
// the model provides when e came from Model.CompileExpr).
func (e *Expr) Eval(s State, env map[string]int64) (Value, error) {
	vals := make(map[string]Value, len(e.env)+len(env))
	for k, v := range e.env {
		vals[k] = v
	}
	for k, v := range env {
		vals[k] = Int(v)
	}
	c := &evalCtx{e: e, s: s, env: vals}
	v, err := c.eval(e.root)
	return v, e.posErr(err)
}

// posErr converts an offset error into a positioned *Error.
func (e *Expr) posErr(err error) error {
	if ee, ok := err.(*exprError); ok {
		return &Error{Pos: e.at(ee.off), Msg: ee.msg}
	}
	return err
}

func (c *evalCtx) errf(n *node, format string, args ...any) error {
	return &exprError{n.off, fmt.Sprintf(format, args...)}
}

// text is the source text of n.
func (c *evalCtx) text(n *node) string { return c.e.src[n.off:n.end] }

func (c *evalCtx) eval(n *node) (Value, error) {
	c.steps++
	if limit := c.e.maxSteps(); c.steps > limit {
		return Value{}, &exprError{0, fmt.Sprintf("evaluation exceeded %d steps (nested quantifiers over large domains?)", limit)}
	}
	switch n.op {
	case "int":
		return Int(n.ival), nil
	case "str":
		return Str(n.sval), nil
	case "bool":
		return Bool(n.ival != 0), nil
	case "ident":
		return c.ident(n)
	case "nodes":
		ids := make([]Value, len(c.s.Nodes))
		for i := range ids {
			ids[i] = Int(int64(i))
		}
		return List(ids...), nil
	case "node", "nodefield", "alive":
		return c.nodeOp(n)
	case "len":
		return c.length(n)
	case "list":
		return c.list(n)
	case "index":
		return c.index(n)
	case "field":
		return c.field(n)
	case "all", "some", "count":
		return c.quant(n)
	case "neg":
		x, err := c.intOf(n.kids[0])
		return Int(-x), err
	case "not":
		b, err := c.boolOf(n.kids[0])
		return Bool(!b), err
	case "and", "or", "=>":
		return c.logic(n)
	case "==", "!=", "<", "<=", ">", ">=", "in", "not in":
		return c.compare(n)
	}
	return c.arith(n)
}

func (c *evalCtx) ident(n *node) (Value, error) {
	for i := len(c.bound) - 1; i >= 0; i-- {
		if c.bound[i].name == n.sval {
			return c.bound[i].v, nil
		}
	}
	if v, ok := c.env[n.sval]; ok {
		return v, nil
	}
	if log, ok := c.s.Logs[n.sval]; ok {
		return List(log...), nil
	}
	if c.e.logs[n.sval] {
		return List(), nil
	}
	return Value{}, c.errf(n, "unknown name %q", n.sval)
}

func (c *evalCtx) nodeIndex(n *node) (int, error) {
	i, err := c.intOf(n)
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= int64(len(c.s.Nodes)) {
		return 0, c.errf(n, "node index %s = %d out of range 0..%d", c.text(n), i, len(c.s.Nodes)-1)
	}
	return int(i), nil
}

func (c *evalCtx) nodeOp(n *node) (Value, error) {
	i, err := c.nodeIndex(n.kids[0])
	if err != nil {
		return Value{}, err
	}
	ns := c.s.Nodes[i]
	switch n.op {
	case "alive":
		return Bool(ns.Alive), nil
	case "nodefield":
		v, ok := ns.Vars[n.sval]
		switch {
		case !ok && !ns.Alive:
			return Value{}, c.errf(n, "node %d is crashed and has no observed state (%s); guard with alive(%d)", i, c.text(n), i)
		case !ok:
			return Value{}, c.errf(n, "node[%d] has no value for %s", i, n.sval)
		}
		return v, nil
	}
	if !ns.Alive && len(ns.Vars) == 0 {
		return Value{}, c.errf(n, "node %d is crashed and has no observed state (%s); guard with alive(%d)", i, c.text(n), i)
	}
	names := c.e.order
	if names == nil {
		for k := range ns.Vars {
			names = append(names, k)
		}
		sort.Strings(names)
	}
	var all []Value
	for _, k := range names {
		v, ok := ns.Vars[k]
		if !ok {
			continue
		}
		if v.kind == ListValue {
			all = append(all, v.list...)
		} else {
			all = append(all, v)
		}
	}
	return List(all...), nil
}

func (c *evalCtx) length(n *node) (Value, error) {
	v, err := c.eval(n.kids[0])
	if err != nil {
		return v, err
	}
	switch v.kind {
	case ListValue:
		return Int(int64(len(v.list))), nil
	case StrValue:
		return Int(int64(len(v.s))), nil
	}
	return Value{}, c.errf(n.kids[0], "len of %s: want a list or string, got %s %s", c.text(n.kids[0]), v.kind, v)
}

func (c *evalCtx) list(n *node) (Value, error) {
	elems := make([]Value, len(n.kids))
	for i, k := range n.kids {
		v, err := c.eval(k)
		if err != nil {
			return v, err
		}
		elems[i] = v
	}
	return List(elems...), nil
}

func (c *evalCtx) index(n *node) (Value, error) {
	v, err := c.eval(n.kids[0])
	if err != nil {
		return v, err
	}
	if v.kind != ListValue {
		return Value{}, c.errf(n.kids[0], "cannot index %s: it is %s %s, not a list", c.text(n.kids[0]), v.kind, v)
	}
	i, err := c.intOf(n.kids[1])
	if err != nil {
		return Value{}, err
	}
	if i < 0 || i >= int64(len(v.list)) {
		idx := c.text(n.kids[1])
		if !isLiteral(n.kids[1]) {
			idx += " = " + strconv.FormatInt(i, 10)
		}
		return Value{}, c.errf(n.kids[1], "index %s out of range for %s (length %d)", idx, c.text(n.kids[0]), len(v.list))
	}
	return v.list[i], nil
}

func (c *evalCtx) field(n *node) (Value, error) {
	v, err := c.eval(n.kids[0])
	if err != nil {
		return v, err
	}
	if v.kind != RecordValue {
		return Value{}, &exprError{n.aux, fmt.Sprintf("%s is %s %s, not a record with field %s", c.text(n.kids[0]), v.kind, v, n.sval)}
	}
	f, ok := v.Field(n.sval)
	if !ok {
		names := make([]string, len(v.fields))
		for i, fl := range v.fields {
			names[i] = fl.Name
		}
		return Value{}, &exprError{n.aux, fmt.Sprintf("%s = %s has no field %s (fields: %s)", c.text(n.kids[0]), v, n.sval, strings.Join(names, ", "))}
	}
	return f, nil
}

// domain evaluates a quantifier's domain, which must be a list.
func (c *evalCtx) domain(n *node) ([]Value, error) {
	d, err := c.eval(n.kids[0])
	if err != nil {
		return nil, err
	}
	if d.kind != ListValue {
		return nil, c.errf(n.kids[0], "%s %s in %s: want a list, got %s %s", n.op, n.sval, c.text(n.kids[0]), d.kind, d)
	}
	return d.list, nil
}

// bodyAt evaluates the quantifier body of n with its variable bound to x.
func (c *evalCtx) bodyAt(n *node, x Value) (bool, error) {
	c.bound = append(c.bound, binding{n.sval, x})
	defer func() { c.bound = c.bound[:len(c.bound)-1] }()
	return c.boolOf(n.kids[1])
}

func (c *evalCtx) quant(n *node) (Value, error) {
	dom, err := c.domain(n)
	if err != nil {
		return Value{}, err
	}
	count := int64(0)
	for _, x := range dom {
		ok, err := c.bodyAt(n, x)
		if err != nil {
			return Value{}, err
		}
		switch {
		case n.op == "all" && !ok:
			return Bool(false), nil
		case n.op == "some" && ok:
			return Bool(true), nil
		case ok:
			count++
		}
	}
	if n.op == "count" {
		return Int(count), nil
	}
	return Bool(n.op == "all"), nil
}

func (c *evalCtx) boolOf(n *node) (bool, error) {
	v, err := c.eval(n)
	if err != nil {
		return false, err
	}
	if v.kind != BoolValue {
		return false, c.errf(n, "%s is %s %s, want a boolean", c.text(n), v.kind, v)
	}
	return v.i != 0, nil
}

func (c *evalCtx) intOf(n *node) (int64, error) {
	v, err := c.eval(n)
	if err != nil {
		return 0, err
	}
	if v.kind != IntValue {
		return 0, c.errf(n, "%s is %s %s, want an integer", c.text(n), v.kind, v)
	}
	return v.i, nil
}

func (c *evalCtx) logic(n *node) (Value, error) {
	l, err := c.boolOf(n.kids[0])
	if err != nil {
		return Value{}, err
	}
	switch {
	case n.op == "and" && !l:
		return Bool(false), nil
	case n.op == "or" && l:
		return Bool(true), nil
	case n.op == "=>" && !l:
		return Bool(true), nil
	}
	r, err := c.boolOf(n.kids[1])
	return Bool(r), err
}

func (c *evalCtx) compare(n *node) (Value, error) {
	l, err := c.eval(n.kids[0])
	if err != nil {
		return Value{}, err
	}
	r, err := c.eval(n.kids[1])
	if err != nil {
		return Value{}, err
	}
	switch n.op {
	case "==":
		return Bool(l.Equal(r)), nil
	case "!=":
		return Bool(!l.Equal(r)), nil
	case "in":
		return Bool(member(l, r)), nil
	case "not in":
		return Bool(!member(l, r)), nil
	}
	cmp, err := c.order(n, l, r)
	if err != nil {
		return Value{}, err
	}
	res := map[string]bool{"<": cmp < 0, "<=": cmp <= 0, ">": cmp > 0, ">=": cmp >= 0}[n.op]
	return Bool(res), nil
}

// member reports whether v is an element of list r, or equals r when r is
// not a list.
func member(v, r Value) bool {
	if r.kind != ListValue {
		return v.Equal(r)
	}
	for _, e := range r.list {
		if v.Equal(e) {
			return true
		}
	}
	return false
}

// order compares two integers or two strings.
func (c *evalCtx) order(n *node, l, r Value) (int, error) {
	switch {
	case l.kind == IntValue && r.kind == IntValue:
		return cmpInt(l.i, r.i), nil
	case l.kind == StrValue && r.kind == StrValue:
		return strings.Compare(l.s, r.s), nil
	}
	return 0, c.errf(n, "cannot compare %s %s %s %s: want two integers or two strings",
		l.kind, l, n.op, r)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *evalCtx) arith(n *node) (Value, error) {
	l, err := c.eval(n.kids[0])
	if err != nil {
		return Value{}, err
	}
	r, err := c.eval(n.kids[1])
	if err != nil {
		return Value{}, err
	}
	if n.op == "+" && l.kind == StrValue && r.kind == StrValue {
		return Str(l.s + r.s), nil
	}
	if l.kind != IntValue || r.kind != IntValue {
		return Value{}, c.errf(n, "cannot compute %s %s %s %s: want integers", l.kind, l, n.op, r)
	}
	switch n.op {
	case "+":
		return Int(l.i + r.i), nil
	case "-":
		return Int(l.i - r.i), nil
	case "*":
		return Int(l.i * r.i), nil
	}
	if r.i == 0 {
		return Value{}, c.errf(n.kids[1], "division by zero: %s = 0", c.text(n.kids[1]))
	}
	if r.i == -1 { // avoid the MinInt64 / -1 trap
		if n.op == "/" {
			return Int(-l.i), nil
		}
		return Int(0), nil
	}
	if n.op == "/" {
		return Int(l.i / r.i), nil
	}
	return Int(l.i % r.i), nil
}
