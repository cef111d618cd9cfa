package analysis

import (
	"fmt"
	"strconv"
	"strings"
)

// Relation is the relation a claim predicts between two terms.
type Relation string

// The relations of a claim.
const (
	Below        Relation = "<"
	AtMost       Relation = "<="
	Above        Relation = ">"
	AtLeast      Relation = ">="
	Equal        Relation = "=="
	NotEqual     Relation = "!="
	defaultAlpha          = 0.05
)

// ordered reports whether r is one of <, <=, >, >=.
func (r Relation) ordered() bool { return r == Below || r == AtMost || r == Above || r == AtLeast }

// direction returns the alternative that supports an ordered relation.
func (r Relation) direction() Alternative {
	if r == Below || r == AtMost {
		return Less
	}
	return Greater
}

// TermKind says what a claim term denotes.
type TermKind int

// The kinds of term.
const (
	// RateTerm is rate(V): the violation rate of variant (or run) V.
	RateTerm TermKind = iota
	// DriftTerm is drift(V): the spread of V's rate across its runs.
	DriftTerm
	// ConstantTerm is a number, a proportion in [0, 1].
	ConstantTerm
)

// Term is one operand of a claim.
type Term struct {
	Kind    TermKind
	Variant string  // for RateTerm and DriftTerm
	Value   float64 // for ConstantTerm
}

// String returns the term in the claim language.
func (t Term) String() string {
	switch t.Kind {
	case RateTerm:
		return "rate(" + t.Variant + ")"
	case DriftTerm:
		return "drift(" + t.Variant + ")"
	}
	return strconv.FormatFloat(t.Value, 'g', -1, 64)
}

// Claim is a falsifiable prediction about violation rates, stated before
// the data are seen and evaluated against them. Its forms are
//
//	rate(A) REL rate(B) [REL rate(C) …]   REL ∈ <, <=, >, >= for chains
//	rate(A) REL c                         c a proportion (0.02 or 2%)
//	rate(A) == rate(B)   rate(A) != rate(B)
//	drift(A) == 0        drift(A) != 0      (A's rate varies across runs)
//
// optionally followed by "alpha=0.01" (default 0.05) and, for == and !=,
// "within=0.03": the margin inside which two rates count as equal. See
// Evaluate for the tests and the decision rule.
type Claim struct {
	Terms     []Term
	Relations []Relation // len(Terms) − 1
	// Alpha is the significance level; zero means 0.05.
	Alpha float64
	// Margin is the equivalence margin of == and != claims; zero means
	// none (an equality can then be falsified but never confirmed).
	Margin float64
}

// CompareRates returns the claim rate(a) rel rate(b).
func CompareRates(a string, rel Relation, b string) Claim {
	return mustValid(Claim{Terms: []Term{rateTerm(a), rateTerm(b)}, Relations: []Relation{rel}})
}

// OrderRates returns the chain rate(v₀) rel rate(v₁) rel … for an ordered
// relation, e.g. OrderRates(Above, "orig", "fix1", "fix2").
func OrderRates(rel Relation, variants ...string) Claim {
	c := Claim{}
	for i, v := range variants {
		c.Terms = append(c.Terms, rateTerm(v))
		if i > 0 {
			c.Relations = append(c.Relations, rel)
		}
	}
	return mustValid(c)
}

// BoundRate returns the claim rate(a) rel bound.
func BoundRate(a string, rel Relation, bound float64) Claim {
	return mustValid(Claim{Terms: []Term{rateTerm(a), {Kind: ConstantTerm, Value: bound}}, Relations: []Relation{rel}})
}

// NoDrift returns the claim drift(a) == 0: a's runs share one rate.
func NoDrift(a string) Claim {
	return mustValid(Claim{Terms: []Term{{Kind: DriftTerm, Variant: a}, {Kind: ConstantTerm}}, Relations: []Relation{Equal}})
}

// WithAlpha returns c with significance level alpha.
func (c Claim) WithAlpha(alpha float64) Claim {
	c.Alpha = alpha
	return mustValid(c)
}

// WithMargin returns c with equivalence margin m (for == and !=).
func (c Claim) WithMargin(m float64) Claim {
	c.Margin = m
	return mustValid(c)
}

func rateTerm(v string) Term { return Term{Kind: RateTerm, Variant: v} }

// mustValid panics on a claim built wrongly in Go.
func mustValid(c Claim) Claim {
	if err := c.validate(); err != nil {
		panic(err)
	}
	return c
}

// alpha returns the significance level, defaulting to 0.05.
func (c Claim) alpha() float64 {
	if c.Alpha == 0 {
		return defaultAlpha
	}
	return c.Alpha
}

// String returns the claim in the language ParseClaim reads.
func (c Claim) String() string {
	var b strings.Builder
	for i, t := range c.Terms {
		if i > 0 {
			fmt.Fprintf(&b, " %s ", c.Relations[i-1])
		}
		b.WriteString(t.String())
	}
	if c.Alpha != 0 {
		fmt.Fprintf(&b, " alpha=%s", strconv.FormatFloat(c.Alpha, 'g', -1, 64))
	}
	if c.Margin != 0 {
		fmt.Fprintf(&b, " within=%s", strconv.FormatFloat(c.Margin, 'g', -1, 64))
	}
	return b.String()
}

// validate checks that the claim has one of the supported shapes.
func (c Claim) validate() error {
	bad := func(why string) error { return fmt.Errorf("analysis: claim %q: %s", c.String(), why) }
	if len(c.Terms) < 2 || len(c.Relations) != len(c.Terms)-1 {
		return bad("needs terms joined by relations")
	}
	if !(c.Alpha >= 0 && c.Alpha < 0.5) {
		return bad("alpha must be in (0, 0.5)")
	}
	if !(c.Margin >= 0 && c.Margin < 1) {
		return bad("within must be in [0, 1)")
	}
	for _, r := range c.Relations {
		if !r.ordered() && r != Equal && r != NotEqual {
			return bad(fmt.Sprintf("unknown relation %q", r))
		}
	}
	if c.Margin != 0 && c.Relations[0].ordered() {
		return bad("within applies to == and != only")
	}
	first, second := c.Terms[0], c.Terms[1]
	switch {
	case first.Kind != RateTerm && first.Kind != DriftTerm:
		return bad("must start with rate(…) or drift(…)")
	case first.Kind == DriftTerm:
		if len(c.Terms) != 2 || second.Kind != ConstantTerm || second.Value != 0 || c.Relations[0].ordered() && c.Relations[0] != Above {
			return bad("drift is compared with 0 only: drift(V) == 0, drift(V) != 0 or drift(V) > 0")
		}
	case second.Kind == ConstantTerm:
		if len(c.Terms) != 2 || !(second.Value >= 0 && second.Value <= 1) {
			return bad("a rate bound is one proportion in [0, 1]")
		}
	default:
		return validateChain(c, bad)
	}
	return nil
}

// validateChain checks rate(A) REL rate(B) [REL rate(C) …].
func validateChain(c Claim, bad func(string) error) error {
	for _, t := range c.Terms {
		if t.Kind != RateTerm || t.Variant == "" {
			return bad("a comparison joins rate(…) terms only")
		}
	}
	if len(c.Terms) > 2 {
		for _, r := range c.Relations {
			if !r.ordered() || r.direction() != c.Relations[0].direction() {
				return bad("a chain needs relations of one direction (< and <=, or > and >=)")
			}
		}
	}
	return nil
}

// ParseClaim reads a claim from its text form, e.g.
//
//	rate(fix1) < rate(orig)
//	rate(orig) > rate(fix1) > rate(fix2) alpha=0.01
//	rate(fix2) <= 2%
//	drift(orig) == 0 within=0.05
//
// The Unicode relations ≤ ≥ ≠ are accepted too.
func ParseClaim(s string) (Claim, error) {
	p := &claimParser{src: s, rest: strings.TrimSpace(s)}
	c, err := p.parse()
	if err != nil {
		return Claim{}, fmt.Errorf("analysis: claim %q: %w", s, err)
	}
	if err := c.validate(); err != nil {
		return Claim{}, err
	}
	return c, nil
}

// claimParser is a tiny scanner over the claim text.
type claimParser struct {
	src, rest string
}

func (p *claimParser) parse() (Claim, error) {
	var c Claim
	t, err := p.term()
	if err != nil {
		return c, err
	}
	c.Terms = append(c.Terms, t)
	for {
		p.skip()
		rel, ok := p.relation()
		if !ok {
			break
		}
		t, err := p.term()
		if err != nil {
			return c, err
		}
		c.Relations = append(c.Relations, rel)
		c.Terms = append(c.Terms, t)
	}
	return c, p.options(&c)
}

func (p *claimParser) skip() { p.rest = strings.TrimLeft(p.rest, " \t") }

// relation consumes a relation operator.
func (p *claimParser) relation() (Relation, bool) {
	for _, op := range []struct {
		text string
		rel  Relation
	}{
		{"<=", AtMost}, {">=", AtLeast}, {"==", Equal}, {"!=", NotEqual},
		{"≤", AtMost}, {"≥", AtLeast}, {"≠", NotEqual}, {"<", Below}, {">", Above}, {"=", Equal},
	} {
		if strings.HasPrefix(p.rest, op.text) {
			p.rest = p.rest[len(op.text):]
			return op.rel, true
		}
	}
	return "", false
}

// term consumes rate(NAME), drift(NAME) or a number (optionally with %).
func (p *claimParser) term() (Term, error) {
	p.skip()
	for _, f := range []struct {
		name string
		kind TermKind
	}{{"rate(", RateTerm}, {"drift(", DriftTerm}} {
		if !strings.HasPrefix(p.rest, f.name) {
			continue
		}
		name, rest, ok := strings.Cut(p.rest[len(f.name):], ")")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t(,") {
			return Term{}, fmt.Errorf("bad %s…) term", f.name)
		}
		p.rest = rest
		return Term{Kind: f.kind, Variant: name}, nil
	}
	v, err := p.number()
	if err != nil {
		return Term{}, fmt.Errorf("expected rate(V), drift(V) or a number at %q", p.rest)
	}
	return Term{Kind: ConstantTerm, Value: v}, nil
}

// number consumes a float, dividing by 100 when followed by %.
func (p *claimParser) number() (float64, error) {
	end := strings.IndexFunc(p.rest, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r == '.' || r == 'e' || r == 'E' || r == '-' || r == '+')
	})
	if end < 0 {
		end = len(p.rest)
	}
	v, err := strconv.ParseFloat(p.rest[:end], 64)
	if err != nil {
		return 0, err
	}
	p.rest = p.rest[end:]
	if strings.HasPrefix(p.rest, "%") {
		p.rest = p.rest[1:]
		v /= 100
	}
	return v, nil
}

// options consumes trailing alpha=… and within=… settings.
func (p *claimParser) options(c *Claim) error {
	for p.skip(); p.rest != ""; p.skip() {
		key, rest, ok := strings.Cut(p.rest, "=")
		p.rest = rest
		v, err := p.number()
		if !ok || err != nil {
			return fmt.Errorf("expected alpha=… or within=… at %q", key)
		}
		switch strings.TrimSpace(key) {
		case "alpha":
			c.Alpha = v
		case "within":
			c.Margin = v
		default:
			return fmt.Errorf("unknown option %q", key)
		}
	}
	return nil
}
