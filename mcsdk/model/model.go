// Package model parses weft model files (TOML) and evaluates the invariant
// expression language over observed run states.
//
// A model names the target (nodes, C source or binary, arguments), its
// compile variants, the declared node globals that make up observable state,
// the environment (constants, DFS depth, the client) and the invariants.
// [[node]] entries start nodes differently (a role, their own binary,
// arguments and environment: NodeDef), and [state.query] entries read
// node state through the node's own protocol (Query).
// A [workload] section declares clients instead of fixed requests: a
// register, a key-value map or a set, with each operation's request and
// reply formats (package workload); an invariant "porcupine:KIND" asks for
// the clients' history to be linearizable (checked by package mcsdk).
//
// Every parse or validation problem is an *Error carrying the file position
// of the offending token, including tokens inside invariant strings.
//
// # Invariant language
//
// From loosest to tightest binding:
//
//	all x in D : e    some x in D : e    count x in D : e   (e extends as far right as possible)
//	a => b            implication, right associative
//	a or b
//	a and b
//	not a
//	a == b  a != b  a < b  a <= b  a > b  a >= b  a in b  a not in b   (do not chain)
//	a + b  a - b      (+ also joins strings)
//	a * b  a / b  a % b
//	-a
//
// Operands: integer and string literals, true, false, [list, of, values],
// (parentheses), environment names, ghost logs (lists of records, e.g.
// replies), quantified variables, r.field, list[i], nodes (the list 0..N-1),
// node[i].field (a declared global of node i), node[i] (the list of all of
// node i's declared values, array elements included), alive(i), len(x).
// A domain D is any list: a log, nodes, a list literal, an array global.
// "a in b" is membership when b is a list and equality otherwise.
// Integers are int64; arithmetic wraps; division by zero is an error.
package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// Pos is a position in a model file: 1-based line and byte column.
type Pos struct {
	File      string
	Line, Col int
}

// String renders the position as "file:line:col".
func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Error is a positioned parse, validation or evaluation error.
type Error struct {
	Pos Pos
	Msg string
}

// Error renders the error as "file:line:col: msg".
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorf(p Pos, format string, args ...any) *Error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// Model is a parsed and validated model file.
type Model struct {
	bindMu sync.Mutex // Bind

	Path string // the name given to Parse or Load
	Dir  string // filepath.Dir(Path)
	Hash string // sha256 hex of the file bytes

	Nodes  int
	Source string   // absolute path of the C source, or ""
	Binary string   // absolute path of a prebuilt binary, or ""
	Args   []string // per-node arguments with {placeholders}; see NodeArgs
	// TargetEnv is target.env: environment variables every node gets
	// (sorted by name, with {placeholders}); see NodeEnv.
	TargetEnv []EnvVar
	// NodeDefs are the [[node]] entries, one per node (counts expanded),
	// or nil when every node is started alike.
	NodeDefs []NodeDef
	CFlags   string // compiler flags common to every variant
	// Checks are Go source files (absolute paths) of the model's "go:NAME"
	// invariants and preconditions, loaded by package mcsdk/gocheck.
	Checks   []string
	BasePort int // node i listens on BasePort+i
	// CPUs is target.cpus: how many CPUs each node's virtual machine has
	// (0: the supervisor's DefaultCPUs, one).
	CPUs int
	// Ports are target.ports: named ports' base numbers (node i's port
	// NAME is Ports[NAME]+i, unless its [[node]] ports give it another).
	Ports map[string]int

	Variants []Variant // file order; never empty
	State    []StateVar
	// Queries read node state through the nodes' own protocol ([state.query]).
	Queries []*Query

	Env    map[string]int64  // integer scalars of [environment]
	EnvStr map[string]string // string scalars of [environment]
	Depth  int               // DFS depth bound, environment.depth (default 10)

	Client *Client // nil if the model has none
	// Workload is the clients' operations, nil if the model has none;
	// WorkloadStart is when its clients begin ([workload] start).
	Workload      *workload.Spec
	WorkloadStart Start
	Invariants    []*Invariant
	// Bounds are [bounds]: the most one node may hold (zero: defaults).
	Bounds Bounds
	// Network, Faults and Campaign are [network], [faults] and
	// [campaign], decoded and checked once, at load (sections.go).
	Network  Network
	Faults   Faults
	Campaign Campaign

	src   []byte
	loc   *locator
	top   map[string]any
	env   map[string]Value
	order []string // declared state names
}

// Variant is one build of the target: extra compiler flags.
type Variant struct {
	Name   string
	CFlags string
}

// StateVar is a declared global of the target, read from every node.
type StateVar struct {
	Name string
	Type Type
	Pos  Pos
}

// Client is the environment's client: it sends requests to nodes and logs
// every reply line matching Reply as a record in the ghost log Log.
type Client struct {
	Log      string
	Reply    *regexp.Regexp
	Requests []Request
	// Start is when the requests' times begin ([client] start).
	Start Start
	// Protocol is how a connection's bytes divide into replies
	// ([client] protocol; default line).
	Protocol workload.Protocol
}

// Request is one client request: Send (environment values substituted) is
// written to a connection to node Node, on its port or its named Port.
type Request struct {
	Node int
	Send string
	// At is when a seeded run sends it (virtual µs); -1 (unset): at a
	// time drawn from the seed within [campaign] client_window.
	At int64
	// Port is a named port of the node to connect to ("" its port).
	Port string
}

// Defaults used when the model leaves them out.
const (
	DefaultDepth    = 10
	DefaultBasePort = 7000
	DefaultLog      = "replies"
	DefaultReply    = `ACK (?P<val>-?\d+)`
	DefaultSend     = "WRITE {client_val}\n"
)

// RawSections lists the top-level sections that Parse decodes into typed
// values of their own (Model.Network, Model.Faults, Model.Campaign); their
// text stays readable with Model.Raw and Model.Decode.
func RawSections() []string { return []string{"campaign", "faults", "network"} }

// Load reads and parses the model file at path.
func Load(path string) (*Model, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse parses and validates model source. name is used in positions and to
// resolve relative paths (Dir = filepath.Dir(name)); referenced files such
// as the C source must exist.
func Parse(name string, src []byte) (*Model, error) {
	sum := sha256.Sum256(src)
	m := &Model{Path: name, Dir: filepath.Dir(name), Hash: hex.EncodeToString(sum[:]), src: src}
	md, err := toml.Decode(string(src), &m.top)
	if err != nil {
		return nil, tomlError(name, src, err)
	}
	m.loc = newLocator(name, src)
	p := &parser{m: m, md: md, loc: m.loc}
	p.parse()
	if len(p.errs) > 0 {
		sortErrors(p.errs)
		return nil, joinErrors(p.errs)
	}
	return m, nil
}

// tomlError positions a TOML syntax error. The library's line is off by one
// when the error is at a newline, so the byte offset is preferred.
func tomlError(name string, src []byte, err error) error {
	pe, ok := err.(toml.ParseError)
	if !ok {
		return errorf(Pos{File: name, Line: 1, Col: 1}, "%v", err)
	}
	p := Pos{File: name, Line: pe.Position.Line, Col: pe.Position.Col}
	start, msg := pe.Position.Start, pe.Message
	if strings.HasPrefix(msg, "TOML files cannot contain control characters") {
		start++ // the library points at the character before
	}
	if start+1 >= len(src) { // the lexer shows the end of the file as NUL
		msg = strings.Replace(msg, `'\x00'`, "the end of the file", 1)
	}
	if start > 0 && start <= len(src) {
		p = newLocator(name, nil).posIn(src, start)
	}
	return errorf(p, "%s", msg)
}

// Variant returns the variant called name; "" selects the first variant.
func (m *Model) Variant(name string) (Variant, error) {
	if name == "" {
		return m.Variants[0], nil
	}
	names := make([]string, len(m.Variants))
	for i, v := range m.Variants {
		if v.Name == name {
			return v, nil
		}
		names[i] = v.Name
	}
	return Variant{}, fmt.Errorf("model %s has no variant %q (variants: %s)", m.Path, name, strings.Join(names, ", "))
}

// NodeArgs returns node id's arguments (its [[node]] args, else
// target.args) with placeholders substituted: {id}, {nodes}, {base_port},
// {port} (= BasePort+id), {rundir} (RunDir), {modeldir} (the model's
// directory, absolute), {role} and environment names.
func (m *Model) NodeArgs(id int) []string {
	vals := m.placeholders(id)
	args := m.nodeArgs(id)
	out := make([]string, len(args))
	for i, a := range args {
		out[i], _ = substitute(a, vals)
	}
	return out
}

func (m *Model) placeholders(id int) map[string]string {
	vals := map[string]string{}
	for k, v := range m.env {
		if s, ok := v.AsStr(); ok {
			vals[k] = s
		} else {
			vals[k] = v.String()
		}
	}
	vals["id"] = fmt.Sprint(id)
	vals["nodes"] = fmt.Sprint(m.Nodes)
	vals["base_port"] = fmt.Sprint(m.BasePort)
	vals["port"] = fmt.Sprint(m.BasePort + id)
	vals["rundir"] = RunDir
	vals["modeldir"] = m.absDir()
	for _, name := range m.PortNames() {
		p, _ := m.NodePort(id, name)
		vals["port."+name] = fmt.Sprint(p)
	}
	vals["role"] = m.Role(id)
	return vals
}

// absDir is the model's directory as an absolute path ({modeldir}).
func (m *Model) absDir() string {
	if abs, err := filepath.Abs(m.Dir); err == nil {
		return abs
	}
	return m.Dir
}

// substitute replaces {name} by vals[name]. It returns the byte offset of
// the first unknown placeholder's name, or -1.
func substitute(s string, vals map[string]string) (string, int) {
	var b strings.Builder
	bad := -1
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		j += i
		k := strings.IndexByte(s[j:], '}')
		if k < 0 || !isPlaceholder(s[j+1:j+k]) {
			b.WriteString(s[i : j+1])
			i = j + 1
			continue
		}
		k += j
		b.WriteString(s[i:j])
		if v, ok := vals[s[j+1:k]]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[j : k+1])
			if bad < 0 {
				bad = j + 1
			}
		}
		i = k + 1
	}
	return b.String(), bad
}

// isPlaceholder reports whether s can name a placeholder: an identifier,
// or port.NAME (a named port).
func isPlaceholder(s string) bool {
	if name, ok := strings.CutPrefix(s, "port."); ok {
		return isIdent(name)
	}
	return isIdent(s)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Raw returns the undecoded contents of a top-level section, as decoded by
// the TOML library into map[string]any (integers are int64).
func (m *Model) Raw(section string) (map[string]any, bool) {
	t, ok := m.top[section].(map[string]any)
	return t, ok
}

// Decode decodes a top-level section into v with the TOML library's rules.
// Keys of the section that v does not take are errors, positioned.
// A missing section leaves v unchanged.
func (m *Model) Decode(section string, v any) error {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(m.src), &top)
	if err != nil {
		return tomlError(m.Path, m.src, err)
	}
	prim, ok := top[section]
	if !ok {
		return nil
	}
	if err := md.PrimitiveDecode(prim, v); err != nil {
		return m.decodeError(section, err)
	}
	var errs []error
	for _, k := range md.Undecoded() {
		if len(k) > 1 && k[0] == section {
			errs = append(errs, errorf(m.loc.keyPos(k.String()), "unknown key %s in [%s]", k[len(k)-1], section))
		}
	}
	return joinErrors(errs)
}

// ParseReply matches one complete line (without its newline) that node src
// sent back to the client against c.Reply. On a match it returns the ghost
// log record {src: SRC, name: value…} with one field per named group, in
// group order; values that parse as decimal integers become integers.
func (c *Client) ParseReply(src int, line string) (Value, bool) {
	match := c.Reply.FindStringSubmatch(line)
	if match == nil {
		return Value{}, false
	}
	fields := []Field{{Name: "src", Value: Int(int64(src))}}
	for i, name := range c.Reply.SubexpNames() {
		if name == "" || name == "src" {
			continue
		}
		if n, err := strconv.ParseInt(match[i], 10, 64); err == nil {
			fields = append(fields, Field{Name: name, Value: Int(n)})
		} else {
			fields = append(fields, Field{Name: name, Value: Str(match[i])})
		}
	}
	return Record(fields), true
}

// ParseFrame matches one reply that node src sent back to the client, as
// its protocol framed it (Protocol; see workload.Frame), against c.Reply.
// On a match it returns the ghost log record {src: SRC, protocol
// fields…, named groups…}: the protocol's fields (an HTTP reply's status,
// reason and body, a RESP reply's type), then one per named group of
// Reply matched over the reply's text, in group order (a group named like
// a protocol field replaces it). Values that parse as decimal integers
// become integers.
func (c *Client) ParseFrame(src int, f workload.Frame) (Value, bool) {
	rec, ok := c.ParseReply(src, f.Text)
	if !ok {
		return Value{}, false
	}
	fields := rec.Fields()
	out := fields[:1:1]
	for _, pf := range f.Fields {
		if slices.ContainsFunc(fields[1:], func(g Field) bool { return g.Name == pf[0] }) {
			continue
		}
		out = append(out, Field{Name: pf[0], Value: textValue(pf[1])})
	}
	return Record(append(out, fields[1:]...)), true
}

// textValue is s as an integer if it is a decimal integer, else as a
// string.
func textValue(s string) Value {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Int(n)
	}
	return Str(s)
}

// decodeError positions an error of the TOML decoder, which names the key
// only inside its message: `toml: line 46 (last key "network.order"): …`.
func (m *Model) decodeError(section string, err error) error {
	msg := err.Error()
	if pe, ok := err.(toml.ParseError); ok {
		return errorf(m.loc.valPos(pe.LastKey), "%s", pe.Message)
	}
	const marker = `(last key "`
	i := strings.Index(msg, marker)
	if i < 0 {
		return errorf(m.loc.keyPos(section), "[%s]: %s", section, strings.TrimPrefix(msg, "toml: "))
	}
	key, rest, _ := strings.Cut(msg[i+len(marker):], `")`)
	rest = strings.TrimPrefix(rest, ": ")
	var line int
	fmt.Sscanf(msg, "toml: line %d", &line)
	if lc, ok := m.loc.onLine(key, line); ok { // an entry of an array of tables
		return errorf(m.loc.pos(lc.val), "%s: %s", key, rest)
	}
	return errorf(m.loc.valPos(key), "%s: %s", key, rest)
}
