package model

import (
	"fmt"
	"strings"
)

// maxNesting bounds the parser's recursion on hostile input.
const maxNesting = 200

// node is a parsed expression. op names the construct: a literal ("int",
// "str", "bool"), "ident", "nodes", "node" (node[i]), "nodefield"
// (node[i].f), "alive", "len", "list", "index", "field", a quantifier
// ("all", "some", "count"), "neg", "not", or a binary operator ("=>", "or",
// "and", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "+", "-", "*",
// "/", "%").
type node struct {
	op       string
	off, end int // byte span in the expression source
	ival     int64
	sval     string // string literal, identifier, field or bound name
	aux      int    // nodefield, field: offset of the field name
	kids     []*node
}

// Expr is a parsed expression of the invariant language.
type Expr struct {
	src   string
	root  *node
	at    func(off int) Pos
	logs  map[string]bool // known ghost logs: absent from a State means empty
	order []string        // declared state names, for node[i]
	env   map[string]Value
	steps int // evaluation budget; 0 means MaxEvalSteps
}

func (e *Expr) maxSteps() int {
	if e.steps > 0 {
		return e.steps
	}
	return MaxEvalSteps
}

// ParseExpr parses src, an expression whose first character is at pos in
// file. Positions of later characters are computed by counting bytes (and
// newlines) from pos. Identifiers are resolved only at evaluation; use
// Model.CompileExpr to check them against a model.
func ParseExpr(file string, pos Pos, src string) (*Expr, error) {
	pos.File = file
	at := func(off int) Pos {
		p := pos
		nl := strings.LastIndexByte(src[:min(off, len(src))], '\n')
		if nl < 0 {
			p.Col += off
			return p
		}
		p.Line += strings.Count(src[:off], "\n")
		p.Col = off - nl
		return p
	}
	return parseExpr(src, at)
}

func parseExpr(src string, at func(int) Pos) (*Expr, error) {
	toks, err := lex(src)
	if err == nil {
		p := &exprParser{toks: toks}
		var root *node
		root, err = p.parseTop()
		if err == nil {
			return &Expr{src: src, root: root, at: at}, nil
		}
	}
	ee := err.(*exprError)
	return nil, &Error{Pos: at(ee.off), Msg: ee.msg}
}

// String returns the expression's source text.
func (e *Expr) String() string { return e.src }

type exprParser struct {
	toks  []token
	i     int
	depth int
}

func (p *exprParser) peek() token { return p.toks[p.i] }

func (p *exprParser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// prevEnd is the end offset of the last consumed token.
func (p *exprParser) prevEnd() int {
	if p.i == 0 {
		return 0
	}
	return p.toks[p.i-1].end
}

// is reports whether the next token is the operator or keyword text.
func (p *exprParser) is(text string) bool {
	t := p.peek()
	return (t.kind == tOp || t.kind == tKeyword) && t.text == text
}

func (p *exprParser) expect(text, context string) error {
	if !p.is(text) {
		t := p.peek()
		return &exprError{t.off, fmt.Sprintf("expected %q %s, found %s", text, context, t)}
	}
	p.next()
	return nil
}

func (p *exprParser) mk(op string, off int, kids ...*node) *node {
	return &node{op: op, off: off, end: p.prevEnd(), kids: kids}
}

func (p *exprParser) parseTop() (*node, error) {
	n, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		msg := fmt.Sprintf("unexpected %s after expression", t)
		if isCmpTok(t) {
			msg = fmt.Sprintf("unexpected %s: comparisons do not chain; use parentheses or 'and'", t)
		}
		return nil, &exprError{t.off, msg}
	}
	return n, nil
}

func isCmpTok(t token) bool {
	switch t.text {
	case "==", "!=", "<", "<=", ">", ">=", "in":
		return t.kind == tOp || t.kind == tKeyword
	}
	return false
}

// parseExpr parses the lowest precedence level: a => b (right associative).
func (p *exprParser) parseExpr() (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, &exprError{p.peek().off, "expression nested too deeply"}
	}
	l, err := p.parseOr()
	if err != nil || !p.is("=>") {
		return l, err
	}
	p.next()
	r, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	return p.mk("=>", l.off, l, r), nil
}

// parseBinary parses a left-associative level: sub (op sub)*.
func (p *exprParser) parseBinary(sub func() (*node, error), ops ...string) (*node, error) {
	l, err := sub()
	for err == nil {
		op := ""
		for _, o := range ops {
			if p.is(o) {
				op = o
			}
		}
		if op == "" {
			return l, nil
		}
		p.next()
		var r *node
		if r, err = sub(); err == nil {
			l = p.mk(op, l.off, l, r)
		}
	}
	return nil, err
}

func (p *exprParser) parseOr() (*node, error)  { return p.parseBinary(p.parseAnd, "or") }
func (p *exprParser) parseAnd() (*node, error) { return p.parseBinary(p.parseNot, "and") }
func (p *exprParser) parseAdd() (*node, error) { return p.parseBinary(p.parseMul, "+", "-") }
func (p *exprParser) parseMul() (*node, error) { return p.parseBinary(p.parseUnary, "*", "/", "%") }

func (p *exprParser) parseNot() (*node, error) {
	if !p.is("not") {
		return p.parseCmp()
	}
	off := p.next().off
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, &exprError{off, "expression nested too deeply"}
	}
	x, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	return p.mk("not", off, x), nil
}

func (p *exprParser) parseCmp() (*node, error) {
	l, err := p.parseAdd()
	if err != nil {
		return nil, err
	}
	op := ""
	switch t := p.peek(); {
	case isCmpTok(t):
		op = t.text
		p.next()
	case p.is("not") && p.toks[p.i+1].text == "in" && p.toks[p.i+1].kind == tKeyword:
		op = "not in"
		p.next()
		p.next()
	default:
		return l, nil
	}
	r, err := p.parseAdd()
	if err != nil {
		return nil, err
	}
	return p.mk(op, l.off, l, r), nil
}

func (p *exprParser) parseUnary() (*node, error) {
	if !p.is("-") {
		return p.parsePostfix()
	}
	off := p.next().off
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, &exprError{off, "expression nested too deeply"}
	}
	x, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	return p.mk("neg", off, x), nil
}

func (p *exprParser) parsePostfix() (*node, error) {
	x, err := p.parsePrimary()
	for err == nil {
		switch {
		case p.is("."):
			p.next()
			t := p.next()
			if t.kind != tIdent && t.kind != tKeyword {
				return nil, &exprError{t.off, fmt.Sprintf("expected field name after '.', found %s", t)}
			}
			x = p.mk("field", x.off, x)
			x.sval, x.aux = t.text, t.off
		case p.is("["):
			p.next()
			var i *node
			if i, err = p.parseExpr(); err == nil {
				err = p.expect("]", "to close index")
				x = p.mk("index", x.off, x, i)
			}
		default:
			return x, nil
		}
	}
	return nil, err
}

func (p *exprParser) parsePrimary() (*node, error) {
	t := p.peek()
	switch t.kind {
	case tInt:
		p.next()
		return &node{op: "int", off: t.off, end: t.end, ival: t.ival}, nil
	case tStr:
		p.next()
		return &node{op: "str", off: t.off, end: t.end, sval: t.sval}, nil
	case tIdent:
		p.next()
		return &node{op: "ident", off: t.off, end: t.end, sval: t.text}, nil
	case tKeyword:
		return p.parseKeyword(t)
	}
	switch t.text {
	case "(":
		p.next()
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")", "to close '('"); err != nil {
			return nil, err
		}
		return x, nil
	case "[":
		return p.parseList()
	}
	return nil, &exprError{t.off, fmt.Sprintf("expected an operand, found %s", t)}
}

func (p *exprParser) parseKeyword(t token) (*node, error) {
	switch t.text {
	case "true", "false":
		p.next()
		n := &node{op: "bool", off: t.off, end: t.end}
		if t.text == "true" {
			n.ival = 1
		}
		return n, nil
	case "nodes":
		p.next()
		return &node{op: "nodes", off: t.off, end: t.end}, nil
	case "all", "some", "count":
		return p.parseQuant()
	case "node":
		return p.parseNode()
	case "alive", "len":
		p.next()
		if err := p.expect("(", "after "+t.text); err != nil {
			return nil, err
		}
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")", "to close "+t.text+"("); err != nil {
			return nil, err
		}
		return p.mk(t.text, t.off, x), nil
	}
	return nil, &exprError{t.off, fmt.Sprintf("expected an operand, found %s", t)}
}

// parseQuant parses "all|some|count x in DOMAIN : BODY"; BODY extends as
// far right as possible.
func (p *exprParser) parseQuant() (*node, error) {
	q := p.next()
	v := p.next()
	if v.kind != tIdent {
		return nil, &exprError{v.off, fmt.Sprintf("expected a variable name after %q, found %s", q.text, v)}
	}
	if err := p.expect("in", "after "+q.text+" "+v.text); err != nil {
		return nil, err
	}
	dom, err := p.parseAdd()
	if err != nil {
		return nil, err
	}
	if err := p.expect(":", "after the domain of "+q.text); err != nil {
		return nil, err
	}
	body, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	n := p.mk(q.text, q.off, dom, body)
	n.sval = v.text
	return n, nil
}

// parseNode parses node[i] and node[i].field.
func (p *exprParser) parseNode() (*node, error) {
	off := p.next().off
	if err := p.expect("[", "after node"); err != nil {
		return nil, err
	}
	i, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if err := p.expect("]", "to close node["); err != nil {
		return nil, err
	}
	if !p.is(".") {
		return p.mk("node", off, i), nil
	}
	p.next()
	f := p.next()
	if f.kind != tIdent {
		return nil, &exprError{f.off, fmt.Sprintf("expected a state field after node[...]., found %s", f)}
	}
	n := p.mk("nodefield", off, i)
	n.sval, n.aux = f.text, f.off
	return n, nil
}

func (p *exprParser) parseList() (*node, error) {
	off := p.next().off
	var elems []*node
	for !p.is("]") {
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		elems = append(elems, x)
		if !p.is(",") {
			break
		}
		p.next()
	}
	if err := p.expect("]", "to close list"); err != nil {
		return nil, err
	}
	return p.mk("list", off, elems...), nil
}
