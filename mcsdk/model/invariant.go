package model

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Invariant is one entry of [invariants]: an expression, or a Go function
// referenced as "go:NAME" and supplied through Model.Bind.
type Invariant struct {
	Name string
	Src  string // the expression (or "go:NAME") as written
	Pos  Pos    // position of Src's first character in the model file
	Go   string // NAME for a "go:NAME" invariant, else ""
	// Porcupine is KIND for a "porcupine:KIND" invariant: the clients'
	// history is linearizable for that sequential model. Package mcsdk
	// checks it; Check reports it as not evaluable over a State.
	Porcupine string

	expr *Expr
	fn   GoFunc
	m    *Model
	// bound is the registry fn came from, memo fn's answers by state
	// (memo.go): rebinding from the same registry keeps both.
	bound reflect.Value
	memo  *memo
}

// GoFunc is an invariant written in Go. It reports whether s satisfies it
// and, when it does not, why.
type GoFunc func(s State) (ok bool, why string)

// Registry maps the NAME of "go:NAME" invariants to their functions.
type Registry map[string]GoFunc

// Bind attaches Go invariants from r to every "go:NAME" invariant of m. It
// reports every go: invariant without a function in r, positioned. Entries of
// r that m does not reference are ignored. Binding again from the same
// registry (a campaign's runs) changes nothing, so it may run concurrently.
func (m *Model) Bind(r Registry) error {
	m.bindMu.Lock()
	defer m.bindMu.Unlock()
	var errs []error
	rv := reflect.ValueOf(r)
	for _, inv := range m.Invariants {
		if inv.Go == "" {
			continue
		}
		fn, ok := r[inv.Go]
		if !ok {
			errs = append(errs, errorf(inv.Pos, "invariant %s: no Go invariant registered as %q%s", inv.Name, inv.Go, registered(r)))
			continue
		}
		if inv.fn != nil && inv.bound.IsValid() && inv.bound.UnsafePointer() == rv.UnsafePointer() {
			continue
		}
		inv.fn, inv.bound, inv.memo = fn, rv, newMemo()
	}
	return joinErrors(errs)
}

func registered(r Registry) string {
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return " (registry is empty)"
	}
	return " (registered: " + strings.Join(names, ", ") + ")"
}

// Expr returns the invariant's expression, or nil for a Go invariant.
func (inv *Invariant) Expr() *Expr { return inv.expr }

// Check evaluates the invariant on s. ok=false means violated, and why
// explains it with the values that break it, e.g.
// "r = {src: 0, val: 5}: r.val = 5 not in node[1] = [0]". err reports an
// evaluation error (e.g. an index out of range), positioned; then ok is
// false and why is empty. Check is safe for concurrent use.
func (inv *Invariant) Check(s State) (ok bool, why string, err error) {
	if inv.Porcupine != "" {
		return false, "", errorf(inv.Pos, "invariant %s is checked over the clients' history (mcsdk), not over a state", inv.Name)
	}
	if inv.Go != "" {
		if inv.fn == nil {
			return false, "", errorf(inv.Pos, "invariant %s: Go invariant %q is not bound (call Model.Bind)", inv.Name, inv.Go)
		}
		return inv.callGo(s)
	}
	e := inv.expr
	c := &evalCtx{e: e, s: s, env: e.env}
	holds, err := c.boolOf(e.root)
	if err != nil {
		return false, "", e.posErr(err)
	}
	if holds {
		return true, "", nil
	}
	c.steps = 0
	return false, c.explain(e.root, false), nil
}

// callGo evaluates a Go invariant; a panic of it (or of the helper that
// runs compiled checks) is an evaluation error, positioned at the
// invariant, never a crash of weft.
func (inv *Invariant) callGo(s State) (ok bool, why string, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, why, err = false, "", errorf(inv.Pos, "invariant %s: go:%s panicked: %v", inv.Name, inv.Go, r)
		}
	}()
	ok, why = inv.memo.call(inv.fn, s)
	return ok, why, nil
}

// scope is what a model lets an expression name.
type scope struct {
	m     *Model
	bound []boundVar // innermost last
}

// boundVar is a quantified variable; fields lists the record fields of its
// values when known (entries of the client's log), else nil.
type boundVar struct {
	name   string
	fields []string
}

// compile parses src with the position mapping at and checks its names
// against m.
func (m *Model) compile(src string, at func(int) Pos) (*Expr, error) {
	return m.compileWith(src, at, nil)
}

// compileWith is compile with extra names in scope (supplied at Eval).
func (m *Model) compileWith(src string, at func(int) Pos, names []string) (*Expr, error) {
	e, err := parseExpr(src, at)
	if err != nil {
		return nil, err
	}
	e.env, e.order, e.logs = m.env, m.order, map[string]bool{}
	if m.Client != nil {
		e.logs[m.Client.Log] = true
	}
	sc := &scope{m: m}
	for _, name := range names {
		sc.bound = append(sc.bound, boundVar{name: name})
	}
	if err := sc.check(e.root, false); err != nil {
		return nil, e.posErr(err)
	}
	return e, nil
}

// CompileExpr parses an expression whose first character is at pos (see
// ParseExpr) and checks its names against m: ghost logs, state fields,
// environment names and constant node indices. The expression evaluates
// with m's environment.
func (m *Model) CompileExpr(pos Pos, src string) (*Expr, error) {
	e, err := ParseExpr(pos.File, pos, src)
	if err != nil {
		return nil, err
	}
	return m.compile(src, e.at)
}

// ExprAt compiles the string value at [section].key of the model file (e.g.
// a precondition), with exact file positions, like CompileExpr.
func (m *Model) ExprAt(section, key string) (*Expr, error) {
	return m.ExprAtWith(section, key)
}

// ExprAtWith is ExprAt for an expression that may also use the given
// names, whose values Eval's env supplies (e.g. a fault precondition's
// crashing node, "f").
func (m *Model) ExprAtWith(section, key string, names ...string) (*Expr, error) {
	t, ok := m.Raw(section)
	if !ok {
		return nil, fmt.Errorf("model %s has no [%s] section", m.Path, section)
	}
	path := section + "." + key
	src, ok := t[key].(string)
	if !ok {
		if _, present := t[key]; present {
			return nil, errorf(m.loc.valPos(path), "%s must be a string expression, not %s", path, tomlType(t[key]))
		}
		return nil, errorf(m.loc.keyPos(section), "[%s] has no key %s", section, key)
	}
	return m.compileWith(src, m.stringPos(path), names)
}

// lookup finds the innermost bound variable called name.
func (sc *scope) lookup(name string) *boundVar {
	for i := len(sc.bound) - 1; i >= 0; i-- {
		if sc.bound[i].name == name {
			return &sc.bound[i]
		}
	}
	return nil
}

// logFields lists the fields of the client log's records when dom names
// that log: src, the protocol's fields and the reply pattern's named
// groups.
func (sc *scope) logFields(dom *node) []string {
	c := sc.m.Client
	if dom.op != "ident" || c == nil || dom.sval != c.Log || sc.lookup(dom.sval) != nil {
		return nil
	}
	if _, ok := sc.m.env[dom.sval]; ok {
		return nil
	}
	fields := append([]string{"src"}, c.Protocol.Fields()...)
	for _, name := range c.Reply.SubexpNames() {
		if name != "" && name != "src" && !slices.Contains(fields, name) {
			fields = append(fields, name)
		}
	}
	return fields
}

// checkField reports r.f when r ranges over the client log and f is not
// one of its fields.
func (sc *scope) checkField(n *node) error {
	k := n.kids[0]
	if k.op != "ident" {
		return nil
	}
	b := sc.lookup(k.sval)
	if b == nil || b.fields == nil {
		return nil
	}
	for _, f := range b.fields {
		if f == n.sval {
			return nil
		}
	}
	return &exprError{n.aux, fmt.Sprintf("unknown field %q of %s (fields: %s)", n.sval, k.sval, strings.Join(b.fields, ", "))}
}

// check resolves names in n; list says n stands where a list is expected
// (a quantifier domain or len argument), which words errors as logs.
func (sc *scope) check(n *node, list bool) error {
	switch n.op {
	case "ident":
		return sc.ident(n, list)
	case "nodefield":
		if sc.m.stateVar(n.sval) == nil && !sc.m.IsQueryVar(n.sval) {
			return &exprError{n.aux, fmt.Sprintf("unknown state field %q%s", n.sval, sc.m.declared())}
		}
	case "all", "some", "count":
		if err := sc.check(n.kids[0], true); err != nil {
			return err
		}
		sc.bound = append(sc.bound, boundVar{n.sval, sc.logFields(n.kids[0])})
		defer func() { sc.bound = sc.bound[:len(sc.bound)-1] }()
		return sc.check(n.kids[1], false)
	case "len":
		return sc.check(n.kids[0], true)
	case "field":
		if err := sc.checkField(n); err != nil {
			return err
		}
	}
	if n.op == "node" || n.op == "nodefield" || n.op == "alive" {
		if k := n.kids[0]; k.op == "int" && (k.ival < 0 || k.ival >= int64(sc.m.Nodes)) {
			return &exprError{k.off, fmt.Sprintf("node index %d out of range 0..%d", k.ival, sc.m.Nodes-1)}
		}
	}
	for _, k := range n.kids {
		if err := sc.check(k, false); err != nil {
			return err
		}
	}
	return nil
}

func (sc *scope) ident(n *node, list bool) error {
	name := n.sval
	if sc.lookup(name) != nil {
		return nil
	}
	if _, ok := sc.m.env[name]; ok {
		return nil
	}
	if sc.m.Client != nil && sc.m.Client.Log == name {
		return nil
	}
	if list {
		if sc.m.Client == nil {
			return &exprError{n.off, fmt.Sprintf("unknown log %q (the model has no client, so no ghost logs)", name)}
		}
		return &exprError{n.off, fmt.Sprintf("unknown log %q (logs: %s)", name, sc.m.Client.Log)}
	}
	var known []string
	for _, b := range sc.bound {
		known = append(known, b.name)
	}
	for k := range sc.m.env {
		known = append(known, k)
	}
	if sc.m.Client != nil {
		known = append(known, sc.m.Client.Log)
	}
	if len(known) == 0 {
		return &exprError{n.off, fmt.Sprintf("unknown name %q (no environment names, logs or bound variables in scope)", name)}
	}
	sort.Strings(known)
	return &exprError{n.off, fmt.Sprintf("unknown name %q (in scope: %s)", name, strings.Join(known, ", "))}
}

func (m *Model) stateVar(name string) *StateVar {
	for i := range m.State {
		if m.State[i].Name == name {
			return &m.State[i]
		}
	}
	return nil
}

func (m *Model) declared() string {
	if len(m.order) == 0 {
		return " (no [state] declared)"
	}
	return " (declared: " + strings.Join(m.order, ", ") + ")"
}
