package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// parser validates the decoded TOML tree into a Model, collecting errors.
type parser struct {
	m    *Model
	md   toml.MetaData
	loc  *locator
	errs []error
}

func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}

// sortErrors orders positioned errors by line and column (stable).
func sortErrors(errs []error) {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].(*Error), errs[j].(*Error)
		return a.Pos.Line < b.Pos.Line || a.Pos.Line == b.Pos.Line && a.Pos.Col < b.Pos.Col
	})
}

func (p *parser) errAt(pos Pos, format string, args ...any) {
	p.errs = append(p.errs, errorf(pos, format, args...))
}

func isRawSection(name string) bool {
	for _, s := range RawSections() {
		if s == name {
			return true
		}
	}
	return false
}

func (p *parser) parse() {
	for _, k := range p.md.Keys() {
		if len(k) != 1 {
			continue
		}
		name := k[0]
		switch name {
		case "node":
			// an array of tables, read by nodes()
		case "target", "variants", "state", "environment", "client", "workload", "invariants", "bounds":
			if _, ok := p.m.top[name].(map[string]any); !ok {
				p.errAt(p.loc.keyPos(name), "%s must be a table, not %s", name, tomlType(p.m.top[name]))
			}
		default:
			if !isRawSection(name) {
				p.errAt(p.loc.keyPos(name), "unknown section [%s] (known: target, node, variants, state, environment, client, workload, invariants, bounds, %s)",
					name, strings.Join(RawSections(), ", "))
			}
		}
	}
	p.target()
	p.nodes()
	p.variants()
	p.state()
	p.environment()
	p.client()
	p.workload()
	p.invariants()
	p.bounds()
	p.sections()
}

// table returns the section's table (nil if absent or not a table).
func (p *parser) table(name string) map[string]any {
	t, _ := p.m.top[name].(map[string]any)
	return t
}

// keys returns the keys directly under the table at path, in file order.
func (p *parser) keys(path ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range p.md.Keys() {
		if len(k) != len(path)+1 || seen[k[len(path)]] {
			continue
		}
		match := true
		for i := range path {
			match = match && k[i] == path[i]
		}
		if match {
			seen[k[len(path)]] = true
			out = append(out, k[len(path)])
		}
	}
	return out
}

// checkKeys reports every key of t (at locator path) not in allowed.
func (p *parser) checkKeys(path string, t map[string]any, allowed ...string) {
	var bad []string
	for k := range t {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	sort.Slice(bad, func(i, j int) bool {
		return p.loc.find(path+"."+bad[i]).key < p.loc.find(path+"."+bad[j]).key
	})
	for _, k := range bad {
		p.errAt(p.loc.keyPos(path+"."+k), "unknown key %s in [%s] (allowed: %s)",
			k, strings.Split(path, "#")[0], strings.Join(allowed, ", "))
	}
}

func tomlType(v any) string {
	switch v.(type) {
	case int64:
		return "an integer"
	case string:
		return "a string"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case time.Time:
		return "a datetime"
	}
	return fmt.Sprintf("%T", v)
}

// getInt returns t[key] as an integer; present reports whether it was set
// (with the right type).
func (p *parser) getInt(t map[string]any, path, key string) (n int64, present bool) {
	v, ok := t[key]
	if !ok {
		return 0, false
	}
	if n, ok := v.(int64); ok {
		return n, true
	}
	p.errAt(p.loc.valPos(path+"."+key), "%s.%s must be an integer, not %s", displayPath(path), key, tomlType(v))
	return 0, false
}

func (p *parser) getString(t map[string]any, path, key string) (s string, present bool) {
	v, ok := t[key]
	if !ok {
		return "", false
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	p.errAt(p.loc.valPos(path+"."+key), "%s.%s must be a string, not %s", displayPath(path), key, tomlType(v))
	return "", false
}

// displayPath turns a locator path ("client.request#1") into the TOML form
// shown to users ("client.request[1]").
func displayPath(path string) string {
	i := strings.IndexByte(path, '#')
	if i < 0 {
		return path
	}
	j := strings.IndexByte(path[i:], '.')
	if j < 0 {
		return path[:i] + "[" + path[i+1:] + "]"
	}
	return path[:i] + "[" + path[i+1:i+j] + "]" + displayPath(path[i+j:])
}

// stringAt returns the decoded string at path and a function mapping byte
// offsets within it to file positions (exact, escapes included).
func (p *parser) stringAt(path string) func(int) Pos {
	return p.m.stringPos(path)
}

func (m *Model) stringPos(path string) func(int) Pos {
	lc := m.loc.find(path)
	_, offs, ok := decodeString(m.loc.src, lc.val)
	start := m.loc.pos(lc.val)
	return func(i int) Pos {
		if !ok || len(offs) == 0 {
			return start
		}
		return m.loc.pos(offs[max(0, min(i, len(offs)-1))])
	}
}

func (p *parser) target() {
	t := p.table("target")
	m := p.m
	m.BasePort = DefaultBasePort
	if t == nil {
		p.errAt(Pos{File: m.Path, Line: 1, Col: 1}, "missing [target] section")
		return
	}
	p.checkKeys("target", t, "nodes", "source", "binary", "args", "env", "cflags", "base_port", "checks", "ports", "cpus")
	m.Ports = p.portTable(t, "target")
	n, ok := p.getInt(t, "target", "nodes")
	switch {
	case !ok && t["nodes"] == nil:
		if _, ok := m.top["node"]; !ok {
			p.errAt(p.loc.keyPos("target"), "target.nodes is required (or [[node]] entries)")
		}
	case ok && (n < 1 || n > 1024):
		p.errAt(p.loc.valPos("target.nodes"), "target.nodes must be between 1 and 1024, not %d", n)
	default:
		m.Nodes = int(n)
	}
	if bp, ok := p.getInt(t, "target", "base_port"); ok {
		if bp < 1 || bp+int64(max(m.Nodes, 1))-1 > 65535 {
			p.errAt(p.loc.valPos("target.base_port"), "target.base_port %d out of range: ports base_port..base_port+nodes-1 must lie in 1..65535", bp)
		} else {
			m.BasePort = int(bp)
		}
	}
	if n, ok := p.getInt(t, "target", "cpus"); ok {
		if n < 1 || n > 64 {
			p.errAt(p.loc.valPos("target.cpus"), "target.cpus must be between 1 and 64, not %d", n)
		} else {
			m.CPUs = int(n)
		}
	}
	m.CFlags, _ = p.getString(t, "target", "cflags")
	p.args(t)
	m.TargetEnv = p.envTable(t, "target")
	p.checks(t)
	p.sourceFiles(t)
}

func (p *parser) args(t map[string]any) {
	v, ok := t["args"]
	if !ok {
		return
	}
	list, ok := v.([]any)
	if !ok {
		p.errAt(p.loc.valPos("target.args"), "target.args must be an array of strings, not %s", tomlType(v))
		return
	}
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			p.errAt(p.loc.valPos("target.args"), "target.args[%d] must be a string, not %s", i, tomlType(e))
			continue
		}
		p.m.Args = append(p.m.Args, s)
	}
}

// checks reads target.checks: Go files, relative to the model, that must
// exist.
func (p *parser) checks(t map[string]any) {
	v, ok := t["checks"]
	if !ok {
		return
	}
	list, ok := v.([]any)
	if !ok {
		p.errAt(p.loc.valPos("target.checks"), "target.checks must be an array of Go file names, not %s", tomlType(v))
		return
	}
	for i, e := range list {
		s, ok := e.(string)
		if !ok || !strings.HasSuffix(s, ".go") {
			p.errAt(p.loc.valPos("target.checks"), "target.checks[%d] must be the name of a .go file, not %v", i, e)
			continue
		}
		path := s
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.m.Dir, s)
		}
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if _, err := os.Stat(path); err != nil {
			p.errAt(p.loc.valPos("target.checks"), "target.checks[%d]: %v", i, err)
			continue
		}
		p.m.Checks = append(p.m.Checks, path)
	}
}

// checkArgs validates the placeholders of target.args once the environment
// is known.
func (p *parser) checkArgs() {
	vals := p.m.placeholders(0)
	for _, a := range p.m.Args {
		if _, bad := substitute(a, vals); bad >= 0 {
			name := a[bad:]
			name = name[:strings.IndexByte(name, '}')]
			p.errAt(p.loc.valPos("target.args"), "target.args: unknown placeholder {%s} (known: %s)", name, placeholderNames)
		}
	}
}

func (p *parser) sourceFiles(t map[string]any) {
	m := p.m
	src, hasSrc := p.getString(t, "target", "source")
	bin, hasBin := p.getString(t, "target", "binary")
	switch {
	case hasSrc && hasBin:
		p.errAt(p.loc.keyPos("target.binary"), "target.source and target.binary are exclusive")
	case hasSrc:
		m.Source = p.existing(src, "target.source", "source file")
	case hasBin:
		m.Binary = p.existing(bin, "target.binary", "binary")
	case t["source"] == nil && t["binary"] == nil && p.allNodesHaveBinaries():
		// every [[node]] names its binary
	case t["source"] == nil && t["binary"] == nil:
		def := strings.TrimSuffix(filepath.Base(m.Path), filepath.Ext(m.Path)) + ".c"
		if abs, err := filepath.Abs(filepath.Join(m.Dir, def)); err == nil && fileExists(abs) {
			m.Source = abs
			return
		}
		p.errAt(p.loc.keyPos("target"), "missing source: set target.source or target.binary (default %s does not exist)",
			filepath.Join(m.Dir, def))
	}
}

func (p *parser) existing(rel, path, what string) string {
	full := rel
	if !filepath.IsAbs(full) {
		full = filepath.Join(p.m.Dir, rel)
	}
	abs, err := filepath.Abs(full)
	if err != nil || !fileExists(abs) {
		p.errAt(p.loc.valPos(path), "%s %s does not exist", what, full)
		return ""
	}
	return abs
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func (p *parser) variants() {
	t := p.table("variants")
	for _, k := range p.keys("variants") {
		if s, ok := p.getString(t, "variants", k); ok {
			p.m.Variants = append(p.m.Variants, Variant{Name: k, CFlags: s})
		}
	}
	if len(p.m.Variants) == 0 {
		p.m.Variants = []Variant{{Name: "default"}}
	}
}

func (p *parser) state() {
	t := p.table("state")
	for _, k := range p.keys("state") {
		if k == "query" {
			continue // state queries, read by queries()
		}
		path := "state." + k
		s, ok := p.getString(t, "state", k)
		if !ok {
			continue
		}
		if !isIdent(k) {
			p.errAt(p.loc.keyPos(path), "state name %q is not a C identifier", k)
			continue
		}
		typ, err := ParseType(s)
		if err != nil {
			p.errAt(p.loc.valPos(path), "state.%s: %v", k, err)
			continue
		}
		p.m.State = append(p.m.State, StateVar{Name: k, Type: typ, Pos: p.loc.keyPos(path)})
		p.m.order = append(p.m.order, k)
	}
}

func (p *parser) environment() {
	m := p.m
	m.Env, m.EnvStr, m.env = map[string]int64{}, map[string]string{}, map[string]Value{}
	m.Depth = DefaultDepth
	t := p.table("environment")
	for _, k := range p.keys("environment") {
		path := "environment." + k
		switch v := t[k].(type) {
		case int64:
			m.Env[k], m.env[k] = v, Int(v)
		case string:
			m.EnvStr[k], m.env[k] = v, Str(v)
		default:
			p.errAt(p.loc.valPos(path), "environment.%s must be an integer or a string, not %s", k, tomlType(v))
			continue
		}
		if !isIdent(k) {
			p.errAt(p.loc.keyPos(path), "environment name %q is not an identifier", k)
		}
	}
	if d, ok := p.getInt(t, "environment", "depth"); ok {
		if d < 1 {
			p.errAt(p.loc.valPos("environment.depth"), "environment.depth must be at least 1, not %d", d)
		} else {
			m.Depth = int(d)
		}
	}
	p.checkArgs()
	p.checkNodePlaceholders()
	p.queries()
}

func (p *parser) client() {
	t := p.table("client")
	m := p.m
	if t == nil {
		if _, ok := m.env["client_val"]; ok {
			m.Client = &Client{Log: DefaultLog, Reply: regexp.MustCompile(DefaultReply), Protocol: workload.Line}
			send, _ := substitute(DefaultSend, m.placeholders(0))
			m.Client.Requests = []Request{{Node: 0, Send: send, At: -1}}
		}
		return
	}
	p.checkKeys("client", t, "log", "reply", "request", "start", "protocol")
	c := &Client{Log: DefaultLog, Reply: regexp.MustCompile(DefaultReply)}
	m.Client = c
	c.Start = p.start(t, "client")
	c.Protocol = p.protocol(t, "client")
	if log, ok := p.getString(t, "client", "log"); ok {
		if !isIdent(log) || isKeyword(log) {
			p.errAt(p.loc.valPos("client.log"), "client.log %q must be an identifier that is not a keyword", log)
		}
		c.Log = log
	}
	if re, ok := p.getString(t, "client", "reply"); ok {
		r, err := regexp.Compile(re)
		if err != nil {
			p.errAt(p.loc.valPos("client.reply"), "client.reply: %v", err)
		} else {
			c.Reply = r
		}
	}
	p.requests(t, c)
}

// protocol reads SECTION.protocol: how replies are framed (default line).
func (p *parser) protocol(t map[string]any, section string) workload.Protocol {
	s, ok := p.getString(t, section, "protocol")
	if !ok {
		return workload.Line
	}
	if !slices.Contains(workload.Protocols(), workload.Protocol(s)) {
		names := make([]string, 0, 4)
		for _, pr := range workload.Protocols() {
			names = append(names, string(pr))
		}
		p.errAt(p.loc.valPos(section+".protocol"), "unknown %s.protocol %q (%s)", section, s, strings.Join(names, ", "))
		return workload.Line
	}
	return workload.Protocol(s)
}

func (p *parser) requests(t map[string]any, c *Client) {
	v, ok := t["request"]
	if !ok {
		return
	}
	list, ok := v.([]map[string]any)
	if !ok {
		p.errAt(p.loc.keyPos("client.request"), "client.request must be an array of tables ([[client.request]]), not %s", tomlType(v))
		return
	}
	vals := p.m.placeholders(0)
	for i, r := range list {
		path := fmt.Sprintf("client.request#%d", i)
		p.checkKeys(path, r, "node", "send", "at", "port")
		req := Request{At: -1}
		if n, ok := p.getInt(r, path, "node"); ok {
			if n < 0 || n >= int64(p.m.Nodes) {
				p.errAt(p.loc.valPos(path+".node"), "client.request[%d].node %d out of range 0..%d", i, n, p.m.Nodes-1)
			}
			req.Node = int(n)
		}
		send, ok := p.getString(r, path, "send")
		if !ok && r["send"] == nil {
			p.errAt(p.loc.keyPos(path), "client.request[%d].send is required", i)
		}
		s, bad := substitute(send, vals)
		if bad >= 0 {
			name := send[bad : strings.IndexByte(send[bad:], '}')+bad]
			p.errAt(p.stringAt(path+".send")(bad), "unknown placeholder {%s} (known: environment names, id, nodes, base_port, port, port.NAME)", name)
		}
		req.Send = s
		if _, err := c.Protocol.EncodeRequest(s); err != nil {
			p.errAt(p.loc.valPos(path+".send"), "client.request[%d].send: %v", i, err)
		}
		if name, ok := p.getString(r, path, "port"); ok {
			if _, known := p.m.NodePort(req.Node, name); !known {
				p.errAt(p.loc.valPos(path+".port"), "client.request[%d].port: node %d has no port named %q (ports: %s)", i, req.Node, name, strings.Join(p.m.PortNames(), ", "))
			}
			req.Port = name
		}
		if at, ok := p.getInt(r, path, "at"); ok {
			if at < 0 || at > 1_000_000_000_000_000 {
				p.errAt(p.loc.valPos(path+".at"), "client.request[%d].at = %d: want a virtual time in µs between 0 and 10^15", i, at)
			}
			req.At = at
		}
		c.Requests = append(c.Requests, req)
	}
}

func (p *parser) invariants() {
	t := p.table("invariants")
	for _, k := range p.keys("invariants") {
		path := "invariants." + k
		src, ok := p.getString(t, "invariants", k)
		if !ok {
			continue
		}
		at := p.stringAt(path)
		inv := &Invariant{Name: k, Src: src, Pos: at(0), m: p.m}
		if kind, ok := strings.CutPrefix(src, "porcupine:"); ok {
			if !p.porcupine(inv, kind, at) {
				continue
			}
		} else if name, ok := strings.CutPrefix(src, "go:"); ok {
			if !isIdent(name) {
				p.errAt(at(3), "invalid Go invariant name %q", name)
				continue
			}
			inv.Go = name
		} else {
			e, err := p.m.compile(src, at)
			if err != nil {
				p.errs = append(p.errs, err)
				continue
			}
			inv.expr = e
		}
		p.m.Invariants = append(p.m.Invariants, inv)
	}
}
