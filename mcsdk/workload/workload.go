// Package workload describes client workloads of a model — a register
// (read, write, cas), a key-value map (get, put, append per key) or a set
// (add, read) — and runs their clients as a pure state machine: which
// operation each client may invoke next, which are pending, and how
// replies complete them. It imports no os, time or net: the scheduler
// (package sched) chooses among the calls it enables, the supervisor
// carries the bytes, and package history checks what the clients saw.
//
// Every choice a client could make is one entry of a finite Table: for
// client c's operation number k, each (operation, key, value, node)
// allowed by the Spec. The table's index is the Req of a sched.Client
// action, so exhaustive checks branch over the candidates and seeded runs
// draw one.
package workload

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kind is the data type the clients operate on.
type Kind string

// Workload kinds.
const (
	Register Kind = "register" // read, write, cas
	KV       Kind = "kv"       // get, put, append per key
	Set      Kind = "set"      // add, read
)

// OpsOf lists the operations of a kind, in canonical order.
func OpsOf(k Kind) []string {
	switch k {
	case Register:
		return []string{"read", "write", "cas"}
	case KV:
		return []string{"get", "put", "append"}
	case Set:
		return []string{"add", "read"}
	}
	return nil
}

// Reads reports whether op only observes (it has no effect when it fails
// or its outcome is unknown).
func Reads(op string) bool { return op == "read" || op == "get" }

// Spec is a model's [workload].
type Spec struct {
	Kind    Kind
	Clients int
	Ops     int     // operations per client
	Nodes   [][]int // per client: the nodes it may contact, in order
	Use     []string
	Values  []int64
	Keys    []string // kv only
	// Request formats each operation's request: {value}, {old}, {key},
	// {client} and {seq} (the client's operation number, from 0), so that
	// a target can tell every command apart.
	Request map[string]string
	// Protocol is how a call's connection's bytes divide into replies
	// (Line by default). With Stream, Reply and Fail are searched in all
	// the bytes the connection has received so far.
	Protocol Protocol
	// Reply matches a successful reply; a named group "value"
	// carries a read's result (a set's read: integers separated by
	// commas or spaces). Fail, if set, matches a definite failure (a cas
	// whose old value did not match).
	Reply map[string]*regexp.Regexp
	Fail  map[string]*regexp.Regexp
	// TimeoutUS is the virtual deadline after which a seeded run's client
	// gives up on an operation (indeterminate) and moves on; ThinkUS the
	// largest pause before each operation, drawn from the seed.
	TimeoutUS, ThinkUS int64
	_                  struct{}
}

// Call is one operation a client may invoke.
type Call struct {
	Client, Seq int
	Op          string
	Key         string // kv
	Value, Old  int64  // the value written, added or appended; cas: new and old
	Node        int
	_           struct{}
}

// String describes the call as "write 5", "cas 5->7", "put x 3", "read".
func (c Call) String() string {
	s := c.Op
	if c.Key != "" {
		s += " " + c.Key
	}
	switch {
	case c.Op == "cas":
		s += fmt.Sprintf(" %d->%d", c.Old, c.Value)
	case !Reads(c.Op):
		s += fmt.Sprintf(" %d", c.Value)
	}
	return s
}

// RequestOf is the call's request as the spec's format writes it (text;
// Encode gives the bytes sent).
func (s *Spec) RequestOf(c Call) []byte {
	r := strings.NewReplacer("{value}", strconv.FormatInt(c.Value, 10), "{old}", strconv.FormatInt(c.Old, 10), "{key}", c.Key,
		"{client}", strconv.Itoa(c.Client), "{seq}", strconv.Itoa(c.Seq))
	return []byte(r.Replace(s.Request[c.Op]))
}

// Encode is the bytes the call sends: its request in the spec's protocol
// (Protocol.EncodeRequest).
func (s *Spec) Encode(c Call) ([]byte, error) {
	return s.Protocol.EncodeRequest(string(s.RequestOf(c)))
}

// CheckRequests reports the first request of the spec's operations in use
// that its protocol cannot encode, for every key and value.
func (s *Spec) CheckRequests() (op string, err error) {
	keys := s.Keys
	if len(keys) == 0 {
		keys = []string{""}
	}
	for _, op := range s.Use {
		for _, k := range keys {
			for _, v := range s.Values {
				if _, err := s.Encode(Call{Op: op, Key: k, Value: v, Old: v}); err != nil {
					return op, err
				}
			}
		}
	}
	return "", nil
}

// Table lists every call of every client, by client, then operation
// number, then operation (in OpsOf order among Use), key, old value,
// value and node. Slot(c, k) gives the range of client c's k-th
// operation.
type Table struct {
	Calls []Call
	slots [][]int // [client][seq] -> first index; the slot ends at the next
}

// NewTable enumerates the calls of s.
func NewTable(s *Spec) *Table {
	t := &Table{}
	for c := 0; c < s.Clients; c++ {
		var starts []int
		for k := 0; k < s.Ops; k++ {
			starts = append(starts, len(t.Calls))
			t.Calls = append(t.Calls, s.candidates(c, k)...)
		}
		t.slots = append(t.slots, starts)
	}
	return t
}

// Slot is the range [lo, hi) of the calls client c may make as its k-th
// operation.
func (t *Table) Slot(c, k int) (lo, hi int) {
	lo = t.slots[c][k]
	hi = len(t.Calls)
	switch {
	case k+1 < len(t.slots[c]):
		hi = t.slots[c][k+1]
	case c+1 < len(t.slots) && len(t.slots[c+1]) > 0:
		hi = t.slots[c+1][0]
	}
	return lo, hi
}

func (s *Spec) uses(op string) bool {
	for _, u := range s.Use {
		if u == op {
			return true
		}
	}
	return false
}

func (s *Spec) candidates(client, seq int) []Call {
	var out []Call
	keys := s.Keys
	if s.Kind != KV || len(keys) == 0 {
		keys = []string{""}
	}
	nodes := s.Nodes[client%len(s.Nodes)]
	for _, op := range OpsOf(s.Kind) {
		if !s.uses(op) {
			continue
		}
		olds, vals := []int64{0}, s.Values
		if Reads(op) {
			vals = []int64{0}
		}
		if op == "cas" {
			olds = append([]int64{0}, s.Values...)
		}
		for _, key := range keys {
			for _, old := range olds {
				for _, v := range vals {
					if op == "cas" && old == v {
						continue
					}
					for _, n := range nodes {
						out = append(out, Call{Client: client, Seq: seq, Op: op, Key: key, Value: v, Old: old, Node: n})
					}
				}
			}
		}
	}
	return out
}

// Outcome is what a reply says of a call.
type Outcome int

// Outcomes.
const (
	Pending       Outcome = iota // no reply yet
	Ok                           // the reply says it took effect (reads: with Values)
	Failed                       // a definite failure: it took no effect (a cas that did not match)
	Indeterminate                // no reply by the deadline: it may or may not take effect
)

var outcomeNames = [...]string{"pending", "ok", "fail", "indeterminate"}

func (o Outcome) String() string { return outcomeNames[o] }

// Parse matches a reply line to call c: ok says whether it is a reply to
// c at all; out is Ok or Failed, with a read's values.
func (s *Spec) Parse(c Call, line string) (out Outcome, values []int64, ok bool) {
	if re := s.Fail[c.Op]; re != nil && re.MatchString(line) {
		return Failed, nil, true
	}
	re := s.Reply[c.Op]
	if re == nil {
		return Pending, nil, false
	}
	m := re.FindStringSubmatch(line)
	if m == nil {
		return Pending, nil, false
	}
	if i := re.SubexpIndex("value"); i >= 0 && Reads(c.Op) {
		for _, f := range strings.FieldsFunc(m[i], func(r rune) bool { return r == ',' || r == ' ' }) {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return Pending, nil, false
			}
			values = append(values, n)
		}
	}
	return Ok, values, true
}
