package model

import (
	"fmt"
	"strconv"
)

// maxRendered bounds how much of a quantifier domain an explanation shows.
const maxRendered = 160

// explain says why boolean node n evaluated to val in c's current bindings,
// naming the values involved, e.g. "r = {src: 0, val: 5}: r.val = 5 not in
// node[1] = [0]". It is only called after a successful evaluation.
func (c *evalCtx) explain(n *node, val bool) string {
	switch n.op {
	case "all", "some":
		return c.explainQuant(n, val)
	case "not":
		return c.explain(n.kids[0], !val)
	case "and", "or":
		return c.explainLogic(n, val)
	case "=>":
		return c.explainImplies(n, val)
	case "==", "!=", "<", "<=", ">", ">=", "in", "not in":
		op := n.op
		if !val {
			op = negated(op)
		}
		return c.side(n.kids[0]) + " " + op + " " + c.side(n.kids[1])
	case "alive":
		i, err := c.intOf(n.kids[0])
		if err == nil {
			return fmt.Sprintf("node[%d] is %s", i, map[bool]string{true: "up", false: "down"}[val])
		}
	}
	return c.text(n) + " is " + strconv.FormatBool(val)
}

func negated(op string) string {
	switch op {
	case "==":
		return "!="
	case "!=":
		return "=="
	case "<":
		return ">="
	case ">=":
		return "<"
	case ">":
		return "<="
	case "<=":
		return ">"
	case "in":
		return "not in"
	}
	return "in"
}

// side renders an operand: its value, preceded by its source text unless it
// is a literal.
func (c *evalCtx) side(n *node) string {
	v, err := c.eval(n)
	if err != nil {
		return c.text(n)
	}
	if isLiteral(n) {
		return v.String()
	}
	return c.operand(n) + " = " + v.String()
}

// operand is n's source text, parenthesized unless n is atomic.
func (c *evalCtx) operand(n *node) string {
	switch n.op {
	case "ident", "nodes", "node", "nodefield", "alive", "len", "list", "index", "field", "neg":
		return c.text(n)
	}
	return "(" + c.text(n) + ")"
}

func isLiteral(n *node) bool {
	switch n.op {
	case "int", "str", "bool":
		return true
	case "neg":
		return isLiteral(n.kids[0])
	case "list":
		for _, k := range n.kids {
			if !isLiteral(k) {
				return false
			}
		}
		return true
	}
	return false
}

// explainQuant explains all/some: by a witness when one decides the result,
// otherwise by describing the whole domain.
func (c *evalCtx) explainQuant(n *node, val bool) string {
	dom, err := c.domain(n)
	if err != nil {
		return c.text(n) + " is " + strconv.FormatBool(val)
	}
	// A witness exists when all is false or some is true.
	if witness := (n.op == "all") != val; witness {
		for _, x := range dom {
			c.bound = append(c.bound, binding{n.sval, x})
			ok, err := c.boolOf(n.kids[1])
			var why string
			if err == nil && ok == val {
				why = n.sval + " = " + x.String() + ": " + c.explain(n.kids[1], val)
			}
			c.bound = c.bound[:len(c.bound)-1]
			if why != "" {
				return why
			}
		}
	}
	d := c.text(n.kids[0])
	if len(dom) == 0 {
		return d + " is empty"
	}
	if r := List(dom...).String(); isLiteral(n.kids[0]) {
		// the source shows the values already
	} else if len(r) <= maxRendered {
		d += " = " + r
	} else {
		d += fmt.Sprintf(" (%d entries)", len(dom))
	}
	body := c.text(n.kids[1])
	if val {
		return fmt.Sprintf("every %s in %s satisfies %s", n.sval, d, body)
	}
	return fmt.Sprintf("no %s in %s satisfies %s", n.sval, d, body)
}

func (c *evalCtx) explainLogic(n *node, val bool) string {
	l, err := c.boolOf(n.kids[0])
	if err != nil {
		return c.text(n) + " is " + strconv.FormatBool(val)
	}
	// "and" false and "or" true are decided by a single operand.
	if decided := (n.op == "and") != val; decided {
		if l == val {
			return c.explain(n.kids[0], val)
		}
		return c.explain(n.kids[1], val)
	}
	return c.explain(n.kids[0], val) + " and " + c.explain(n.kids[1], val)
}

func (c *evalCtx) explainImplies(n *node, val bool) string {
	if !val {
		return c.explain(n.kids[0], true) + ", but " + c.explain(n.kids[1], false)
	}
	if l, err := c.boolOf(n.kids[0]); err == nil && !l {
		return c.explain(n.kids[0], false)
	}
	return c.explain(n.kids[1], true)
}
