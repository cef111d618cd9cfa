package mcsdk

import (
	"fmt"
	"slices"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// DefaultPCTDepth is pct's bug depth when CheckOptions.PCTDepth is 0:
// two ordering constraints (one change point), enough for a message race
// between two nodes, cheap in the bound's k^(d-1).
const DefaultPCTDepth = 2

// checkStrategy parses opts.Strategy, fills its defaults and refuses the
// options only dfs has.
func checkStrategy(opts *CheckOptions) (sched.Strategy, error) {
	s, err := sched.ParseStrategy(opts.Strategy)
	if err != nil {
		return "", err
	}
	opts.Strategy = string(s)
	if s == sched.DFS {
		return s, nil
	}
	if opts.Workers > 1 {
		return "", fmt.Errorf("parallel workers (-j %d) need strategy dfs, not %s", opts.Workers, s)
	}
	opts.Deepen = false // bfs covers depth after depth by itself; pct and guided cover nothing
	opts.Checkpoints = 0
	opts.Reduction = ""
	if s == sched.BFS {
		opts.Reduction = string(sched.NoReduction)
	}
	if s == sched.PCT && opts.PCTDepth <= 0 {
		opts.PCTDepth = DefaultPCTDepth
	}
	return s, nil
}

// describeStrategy records the strategy and its settings in r.
func (r *CheckResult) describeStrategy(opts CheckOptions) {
	r.Strategy, r.Reduction = opts.Strategy, opts.Reduction
	switch sched.Strategy(opts.Strategy) {
	case sched.PCT:
		r.Seed, r.PCTDepth = opts.Seed, opts.PCTDepth
	case sched.Guided:
		r.Seed = opts.Seed
	}
}

// strategyCounts copies what the strategy counted; for pct, its bound
// with the chains met (n) and the depth bound (k).
func (r *CheckResult) strategyCounts(out sched.Result, s sched.Strategy) {
	r.Chains, r.Abstract, r.Corpus = out.Chains, out.Abstract, out.Corpus
	switch s {
	case sched.BFS:
		r.Shortest = out.Violated // breadth-first: nothing shorter was left
	case sched.PCT:
		r.Bound = sched.PCTBound(max(out.Chains, 1), max(r.Depth, 1), r.PCTDepth)
	}
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// networkShape is the messages in flight as the guided strategy sees
// them: for each link (sending node, receiving node), the kinds of its
// messages (messageKind) with their counts capped at 3, in a canonical
// order. Which channel or connection carries them, and their order
// within a link, are left out.
func networkShape(net *netsim.Network) []byte {
	if net == nil {
		return nil
	}
	count := map[string]int{}
	for _, c := range net.Channels {
		for _, m := range c.Msgs {
			key := fmt.Sprintf("%d>%d:%s", c.FromNode, net.ReceiverNode(c), messageKind(m))
			count[key] = min(count[key]+1, 3)
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b []byte
	for _, k := range keys {
		b = append(b, k...)
		b = append(b, byte('0'+count[k]), ';')
	}
	return b
}

// messageKind is a message's kind for the network's shape: SYN, FIN and
// RST by their flag; else the payload's leading word (its letters, up to
// 12) when it starts with a letter, as text protocols name their
// messages ("VOTE 3 …", "PUT k v"), else its first byte, as binary
// protocols tag theirs.
func messageKind(m netsim.Message) string {
	switch {
	case m.SYN:
		return "SYN"
	case m.FIN:
		return "FIN"
	case m.RST:
		return "RST"
	case len(m.Data) == 0:
		return ""
	}
	n := 0
	for n < len(m.Data) && n < 12 && isWordByte(m.Data[n]) {
		n++
	}
	if n > 0 {
		return string(m.Data[:n])
	}
	return fmt.Sprintf("#%02x", m.Data[0])
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
