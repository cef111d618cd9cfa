package sched

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
)

// msgSystem is a random message-passing system for the reduction's
// property test: nodes with a small local state, channels between every
// pair (FIFO or bag), a delivery that moves its receiver to a new state
// and sends a few messages, node timers, crashes and restarts, all drawn
// from a seed. It reports footprints and origins honestly, as the real
// world does: a delivery touches only its receiver (and the channels
// from it, whose new messages have the delivery as their origin).
type msgSystem struct {
	seed   uint64
	nodes  int
	bag    bool
	timers bool
	init   [][2]int // initial messages: (to, value) from the environment
	// fine observes each node's whole local state, not its low bit: more
	// visible events, and more observed states for a missed class of
	// executions to show in.
	fine bool
	// target is the observed state the invariant rejects.
	target string
}

// msg is one message in flight.
type msg struct {
	val    int
	origin int
}

// msgWorld is one run of a msgSystem.
type msgWorld struct {
	sys    *msgSystem
	local  []int
	dead   []bool
	chans  [][]msg // chans[from*nodes+to]; from = nodes is the environment
	steps  int
	last   Touched
	closed *atomic.Int64
}

func (s *msgSystem) start(closes *atomic.Int64) *msgWorld {
	w := &msgWorld{sys: s, local: make([]int, s.nodes), dead: make([]bool, s.nodes), chans: make([][]msg, (s.nodes+1)*s.nodes), closed: closes}
	for _, m := range s.init {
		c := s.nodes*s.nodes + m[0]
		w.chans[c] = append(w.chans[c], msg{val: m[1]})
	}
	return w
}

// rule is the transition a node makes in state l on input v (a message
// value, or 9 for its timer): a new state and up to two messages.
func (s *msgSystem) rule(node, l, v int) (next int, sends [][2]int) {
	var b [32]byte
	binary.LittleEndian.PutUint64(b[:], s.seed)
	b[8], b[9], b[10] = byte(node), byte(l), byte(v)
	h := sha256.Sum256(b[:])
	next = int(h[0]) % 4
	for k := 0; k < int(h[1])%3; k++ {
		sends = append(sends, [2]int{int(h[2+2*k]) % s.nodes, int(h[3+2*k]) % 3})
	}
	return next, sends
}

func (w *msgWorld) chanEnds(c int) (from, to int) {
	from, to = c/w.sys.nodes, c%w.sys.nodes
	if from == w.sys.nodes {
		from = -1
	}
	return from, to
}

func (w *msgWorld) Enabled() []Action {
	var out []Action
	for c, q := range w.chans {
		for i := range q {
			if !w.sys.bag && i > 0 {
				break
			}
			out = append(out, Action{Kind: Deliver, Chan: c, Index: i})
		}
	}
	if w.sys.timers {
		for n, l := range w.local {
			if l == 3 && !w.dead[n] {
				out = append(out, Action{Kind: Timer, Node: n})
			}
		}
	}
	return out
}

func (w *msgWorld) step(node, v int) {
	next, sends := w.sys.rule(node, w.local[node], v)
	w.local[node] = next
	for _, m := range sends {
		c := node*w.sys.nodes + m[0]
		w.chans[c] = append(w.chans[c], msg{val: m[1], origin: w.steps})
	}
}

func (w *msgWorld) Apply(a Action) error {
	w.steps++
	w.last = Touched{}
	switch a.Kind {
	case Deliver:
		if a.Chan >= len(w.chans) || a.Index >= len(w.chans[a.Chan]) {
			return fmt.Errorf("%v not enabled", a)
		}
		m := w.chans[a.Chan][a.Index]
		w.chans[a.Chan] = slices.Delete(w.chans[a.Chan], a.Index, a.Index+1)
		_, to := w.chanEnds(a.Chan)
		if !w.dead[to] {
			w.step(to, m.val)
		}
	case Timer:
		if w.dead[a.Node] || w.local[a.Node] != 3 {
			return fmt.Errorf("%v not enabled", a)
		}
		w.step(a.Node, 9)
	case Crash:
		w.dead[a.Node] = true
	case Restart:
		w.dead[a.Node], w.local[a.Node] = false, 0
	case Partition, Heal:
	default:
		return fmt.Errorf("%v unknown", a)
	}
	return nil
}

func (w *msgWorld) Status(i int) NodeStatus {
	if w.dead[i] {
		return NodeStatus{Killed: true}
	}
	return NodeStatus{Alive: true}
}

func (w *msgWorld) Endpoints(a Action) (int, int) {
	if a.Kind != Deliver {
		return -1, -1
	}
	return w.chanEnds(a.Chan)
}

func (w *msgWorld) Origin(a Action) int {
	if a.Kind == Deliver && a.Chan < len(w.chans) && a.Index < len(w.chans[a.Chan]) {
		return w.chans[a.Chan][a.Index].origin
	}
	return 0
}

func (w *msgWorld) Touched() Touched { return w.last }

// observed is what the invariant reads: each node's low bit and liveness.
func (w *msgWorld) observed() string {
	b := make([]byte, w.sys.nodes)
	for i, l := range w.local {
		b[i] = byte('0' + l%2)
		if w.sys.fine {
			b[i] = byte('0' + l)
		}
		if w.dead[i] {
			b[i] = 'x'
		}
	}
	return string(b)
}

func (w *msgWorld) Hash(extra []byte) ([32]byte, error) {
	h := sha256.New()
	fmt.Fprint(h, w.local, w.dead)
	for _, q := range w.chans {
		h.Write([]byte{byte(len(q))})
		for _, m := range q {
			h.Write([]byte{byte(m.val)})
		}
	}
	h.Write(extra)
	var out [32]byte
	h.Sum(out[:0])
	return out, nil
}

func (w *msgWorld) Failure() error { return nil }
func (w *msgWorld) Close()         { w.closed.Add(1) }

// randomSystem draws a msgSystem and explorer settings from r.
func randomSystem(r *rand.Rand) (*msgSystem, Faults) {
	s := &msgSystem{seed: r.Uint64(), nodes: 2 + r.IntN(2), bag: r.IntN(2) == 0, timers: r.IntN(2) == 0}
	for k := 0; k < 1+r.IntN(3); k++ {
		s.init = append(s.init, [2]int{r.IntN(s.nodes), r.IntN(3)})
	}
	t := make([]byte, s.nodes)
	for i := range t {
		t[i] = "01"[r.IntN(2)]
	}
	s.target = string(t)
	var f Faults
	switch r.IntN(3) {
	case 1:
		f = Faults{Nodes: []int{0}, Crashes: 1, Restart: r.IntN(2) == 0}
	case 2:
		f.Partitions = []Cut{func(a, b int) bool { return a >= 0 && b >= 0 && (a == 0) != (b == 0) }}
	}
	return s, f
}

// explore runs the explorer over s and returns the result, the observed
// states it checked, and whether every world was closed.
func (s *msgSystem) explore(f Faults, depth int, red Reduction, stopAtBad bool, workers int, opts ...func(*Explorer)) (Result, []string, error) {
	var closes, starts atomic.Int64
	var mu sync.Mutex
	seen := map[string]bool{}
	x := &Explorer{
		Start:     func() (World, error) { starts.Add(1); return s.start(&closes), nil },
		Depth:     depth,
		Faults:    f,
		Reduction: red,
		Workers:   workers,
		Observe: func(w World, _ any) (Observation, error) {
			return Observation{Visible: []byte(w.(*msgWorld).observed())}, nil
		},
		Check: func(w World, _ Observation, _ []Action) (bool, error) {
			o := w.(*msgWorld).observed()
			mu.Lock()
			seen[o] = true
			mu.Unlock()
			return stopAtBad && o == s.target, nil
		},
	}
	for _, o := range opts {
		o(x)
	}
	res, err := x.Run()
	if err == nil && closes.Load() != starts.Load() {
		err = fmt.Errorf("%d worlds started, %d closed", starts.Load(), closes.Load())
	}
	var out []string
	for o := range seen {
		out = append(out, o)
	}
	sort.Strings(out)
	return res, out, err
}

// shortest is the length of a shortest path to the invariant's violation
// within depth, searched as mcsdk.Check does (again below each violation
// found), or -1.
func (s *msgSystem) shortest(f Faults, depth int, red Reduction, workers int) (int, error) {
	best := -1
	for d := depth; d >= 0; {
		res, _, err := s.explore(f, d, red, true, workers)
		if err != nil {
			return 0, err
		}
		if !res.Violated {
			return best, nil
		}
		best = len(res.Path)
		d = best - 1
	}
	return best, nil
}

// TestReductionPreservesStates checks the reduction on random
// message-passing systems: with it, the explorer checks the same set of
// observed states as without, finds a violation exactly when the
// unreduced search does, and at the same shortest length; and it never
// needs a fallback (the footprints and origins are honest).
func TestReductionPreservesStates(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 13))
	var full, reduced int
	for k := 0; k < 400; k++ {
		s, f := randomSystem(r)
		depth := 1 + r.IntN(6)
		name := fmt.Sprintf("system %d (seed %d, %d nodes, bag %v, timers %v, faults %+v, depth %d)", k, s.seed, s.nodes, s.bag, s.timers, f, depth)
		a, oa, err := s.explore(f, depth, NoReduction, false, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, ob, err := s.explore(f, depth, DPOR, false, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(oa, ob) {
			t.Fatalf("%s: observed states without reduction %v, with %v", name, oa, ob)
		}
		if b.Fallbacks != 0 {
			t.Errorf("%s: %d fallbacks", name, b.Fallbacks)
		}
		la, err := s.shortest(f, depth, NoReduction, 1)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := s.shortest(f, depth, DPOR, 1)
		if err != nil {
			t.Fatal(err)
		}
		if la != lb {
			t.Fatalf("%s: shortest violation without reduction %d, with %d", name, la, lb)
		}
		full += a.Executions
		reduced += b.Executions + b.SleepBlocked
	}
	t.Logf("executions: %d without reduction, %d with (counting sleep-blocked ones)", full, reduced)
	if reduced >= full {
		t.Errorf("the reduction saved nothing: %d executions against %d", reduced, full)
	}
}

// TestParallelPreservesStates checks the parallel search (Workers 3) on
// random systems, with and without the reduction: the same observed
// states and the same shortest violation length as the sequential one,
// and every world it started closed.
func TestParallelPreservesStates(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 14))
	for k := 0; k < 150; k++ {
		s, f := randomSystem(r)
		depth := 1 + r.IntN(6)
		for _, red := range []Reduction{NoReduction, DPOR} {
			name := fmt.Sprintf("system %d (seed %d, depth %d, reduction %s)", k, s.seed, depth, red)
			_, seq, err := s.explore(f, depth, red, false, 1)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			_, par, err := s.explore(f, depth, red, false, 3)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !slices.Equal(seq, par) {
				t.Fatalf("%s: observed states sequentially %v, in parallel %v", name, seq, par)
			}
			ls, err := s.shortest(f, depth, red, 1)
			if err != nil {
				t.Fatal(err)
			}
			lp, err := s.shortest(f, depth, red, 3)
			if err != nil {
				t.Fatal(err)
			}
			if ls != lp {
				t.Fatalf("%s: shortest violation sequentially %d, in parallel %d", name, ls, lp)
			}
		}
	}
}

// TestDeepeningPreservesStates checks Explorer.Deepen on random systems,
// with and without the reduction, sequentially and with 3 workers: the
// same observed states as one search with the full bound, the whole bound
// covered, and the first violation found a shortest one.
func TestDeepeningPreservesStates(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 15))
	deepen := func(x *Explorer) { x.Deepen = true }
	for k := 0; k < 150; k++ {
		s, f := randomSystem(r)
		depth := 1 + r.IntN(6)
		for _, red := range []Reduction{NoReduction, DPOR} {
			for _, workers := range []int{1, 3} {
				name := fmt.Sprintf("system %d (seed %d, depth %d, reduction %s, %d workers)", k, s.seed, depth, red, workers)
				_, plain, err := s.explore(f, depth, red, false, 1)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				res, deep, err := s.explore(f, depth, red, false, workers, deepen)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !slices.Equal(plain, deep) || res.Covered != depth {
					t.Fatalf("%s: observed states in one search %v, deepening %v (covered %d)", name, plain, deep, res.Covered)
				}
				want, err := s.shortest(f, depth, red, 1)
				if err != nil {
					t.Fatal(err)
				}
				res, _, err = s.explore(f, depth, red, true, workers, deepen)
				if err != nil {
					t.Fatal(err)
				}
				if got := len(res.Path); !res.Violated && want >= 0 || res.Violated && got != want {
					t.Fatalf("%s: shortest violation %d, deepening found %v after %d", name, want, res.Violated, got)
				}
			}
		}
	}
}

// TestStoppedCoversItsDepth stops searches at random points and checks
// the depth each says it covered: every observed state a complete search
// with that bound checks was checked. Without the reduction the
// depth-first search says so itself; with it, deepening does.
func TestStoppedCoversItsDepth(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 16))
	var claimed int
	for k := 0; k < 300; k++ {
		s, f := randomSystem(r)
		depth := 2 + r.IntN(5)
		red, deep := NoReduction, r.IntN(2) == 0
		if deep && r.IntN(2) == 0 {
			red = DPOR
		}
		n := r.IntN(40)
		stop := func(x *Explorer) {
			asked := 0
			x.Stop = func() bool { asked++; return asked > n }
			x.Deepen = deep
		}
		name := fmt.Sprintf("system %d (seed %d, depth %d, reduction %s, deepen %v, stop after %d)", k, s.seed, depth, red, deep, n)
		res, got, err := s.explore(f, depth, red, false, 1, stop)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Covered < 0 {
			continue
		}
		if res.Stopped && res.Covered > 0 {
			claimed++
		}
		_, want, err := s.explore(f, res.Covered, NoReduction, false, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range want {
			if !slices.Contains(got, o) {
				t.Fatalf("%s: covered %d, but observed state %q within it was not checked", name, res.Covered, o)
			}
		}
	}
	if claimed == 0 {
		t.Error("no stopped search covered a depth above 0: the test checks nothing")
	}
	t.Logf("%d stopped searches covered a depth above 0", claimed)
}
