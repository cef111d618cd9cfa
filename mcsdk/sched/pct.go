package sched

import (
	"fmt"
	"math/rand/v2"
)

// chainOf is the chain an action belongs to: PCT's "thread". A chain is
// what one source of events does over time, so that PCT's priorities
// order sources rather than single events: the messages of one channel
// (in order), one thread's timer or run, the environment's clients (their
// requests are alternatives: which operation, value and node), one
// node's crash or restart, one partition's start or heal, one client's
// expiry.
func chainOf(a Action) Action {
	c := Action{Kind: a.Kind}
	switch a.Kind {
	case Deliver, Drop, Dup:
		c.Chan = a.Chan
	case Timer, Run:
		c.Node, c.Task = a.Node, a.Task
	case Crash, Restart:
		c.Node = a.Node
	case Notice:
		c.Node, c.Req = a.Node, a.Req
	case Client:
	default:
		c.Req = a.Req
	}
	return c
}

// pctRun is one PCT execution's schedule: each chain's priority (drawn
// when the chain first has an action enabled; above d) and the d-1
// change points, steps at which the chain about to run drops to priority
// d-j (the j-th point), below every initial priority.
type pctRun struct {
	r      *rand.Rand
	d      int
	prio   map[Action]int64
	change map[int]int // step (1-based) → j
}

func newPCTRun(seed uint64, exec, d, k int) *pctRun {
	p := &pctRun{r: rand.New(rand.NewPCG(seed, uint64(exec))), d: d, prio: map[Action]int64{}, change: map[int]int{}}
	for j, s := range p.r.Perm(k)[:min(d-1, k)] {
		p.change[s+1] = j + 1
	}
	return p
}

// pick is an action of the enabled chain with the highest priority, after
// the change point of this step, if any, lowered the chain that would
// have run; among the chain's actions (a bag's messages, the clients'
// requests) one drawn uniformly.
func (p *pctRun) pick(acts []Action, step int) int {
	for _, a := range acts {
		if c := chainOf(a); p.prio[c] == 0 {
			p.prio[c] = int64(p.d) + 1 + p.r.Int64N(1<<40)
		}
	}
	best := p.best(acts)
	if j, ok := p.change[step]; ok {
		p.prio[chainOf(acts[best])] = int64(p.d - j)
		best = p.best(acts)
	}
	var same []int
	for i, a := range acts {
		if chainOf(a) == chainOf(acts[best]) {
			same = append(same, i)
		}
	}
	if len(same) > 1 {
		best = same[p.r.IntN(len(same))]
	}
	return best
}

func (p *pctRun) best(acts []Action) int {
	best := 0
	for i, a := range acts {
		if p.prio[chainOf(a)] > p.prio[chainOf(acts[best])] {
			best = i
		}
	}
	return best
}

// runPCT is Run with Strategy PCT: executions 1, 2, ... (up to Runs, or
// until Stop), execution i drawing its priorities and change points from
// the stream (Seed, i), each from the initial state to the bound. With n
// chains and k = Depth steps, one execution finds a given bug of depth
// PCTDepth (the number of ordering constraints it needs) with
// probability at least 1/(n k^(d-1)) (the paper's Theorem; Result.Chains
// is the largest n met).
func (x *Explorer) runPCT() (Result, error) {
	k := newWalk(x)
	d, steps := max(x.PCTDepth, 1), max(x.Depth, 1)
	for i := 1; x.Runs <= 0 || i <= x.Runs; i++ {
		w, err := x.Start()
		if err != nil {
			return k.res, err
		}
		ob, bad, _, err := k.look(w, nil, nil)
		if err != nil || bad {
			w.Close()
			if bad {
				k.violated(nil)
			}
			return k.finish(err)
		}
		p := newPCTRun(x.Seed, i, d, steps)
		err = k.extend(w, nil, ob, p.pick, nil)
		k.res.Chains = max(k.res.Chains, len(p.prio))
		if err != nil {
			return k.finish(err)
		}
	}
	return k.res, nil
}

// PCTBound states PCT's guarantee for n chains, k steps and bug depth d.
func PCTBound(n, k, d int) string {
	return fmt.Sprintf("finds any depth-%d bug with probability >= 1/(n k^(d-1)) = 1/(%d·%d^%d) per run", d, n, k, d-1)
}
