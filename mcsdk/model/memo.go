package model

import (
	"sort"
	"sync"
)

// memoLimit bounds a memo's entries; a full memo starts again empty.
const memoLimit = 1 << 16

// A memo keeps a Go invariant's answers by state. An invariant is a pure
// function of the State it is given (weft evaluates it only when what it
// reads changed, and a verdict is a function of the states a run passes
// through), so its answer for a state seen before, in this run or in an
// earlier run of the same campaign, is the answer it gave then. Interpreted
// checks (yaegi) cost hundreds of microseconds per call; a lookup costs the
// state's key. Safe for concurrent use by a campaign's workers.
type memo struct {
	mu sync.Mutex
	m  map[string]memoEntry
}

type memoEntry struct {
	ok  bool
	why string
}

func newMemo() *memo { return &memo{m: map[string]memoEntry{}} }

// call returns fn(s), from the memo when s was seen before.
func (c *memo) call(fn GoFunc, s State) (bool, string) {
	if c == nil {
		return fn(s)
	}
	key := s.key()
	c.mu.Lock()
	e, hit := c.m[key]
	c.mu.Unlock()
	if hit {
		return e.ok, e.why
	}
	ok, why := fn(s)
	c.mu.Lock()
	if len(c.m) >= memoLimit {
		clear(c.m)
	}
	c.m[key] = memoEntry{ok, why}
	c.mu.Unlock()
	return ok, why
}

// key encodes everything a State holds, canonically: per node its
// liveness and every variable by name, then every log by name. Value
// renderings are unambiguous (strings are quoted, records name their
// fields), and the separators below never occur unquoted in them.
func (s State) key() string {
	b := make([]byte, 0, 256)
	names := func(m map[string]Value) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	for _, n := range s.Nodes {
		if n.Alive {
			b = append(b, '+')
		} else {
			b = append(b, '-')
		}
		for _, name := range names(n.Vars) {
			b = append(b, name...)
			b = append(b, '=')
			b = n.Vars[name].appendTo(b)
			b = append(b, 0)
		}
		b = append(b, '\n')
	}
	logs := make([]string, 0, len(s.Logs))
	for name := range s.Logs {
		logs = append(logs, name)
	}
	sort.Strings(logs)
	for _, name := range logs {
		b = append(b, name...)
		b = append(b, '=')
		for _, v := range s.Logs[name] {
			b = v.appendTo(b)
			b = append(b, 0)
		}
		b = append(b, '\n')
	}
	return string(b)
}
