package mcsdk

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// nodeBinding is what differs between the nodes of a model with [[node]]
// entries or state queries: the symbol tables of nodes that run their own
// binary, and which node each configured state query goes to.
type nodeBinding struct {
	syms    map[int]*symbolTable // node → its binary's symbols; absent: the target's
	queries []boundQuery         // supervisor.Config.Queries, same order
}

// boundQuery is one model query sent to one node.
type boundQuery struct {
	q    *model.Query
	node int
}

// bindNodes reads the declared globals' symbols from every node binary
// that is not the target's, and binds each query to its nodes.
func bindNodes(m *model.Model, bin Binary, syms *symbolTable) (nodeBinding, error) {
	nb := nodeBinding{syms: map[int]*symbolTable{}}
	byPath := map[string]*symbolTable{bin.Path: syms}
	for i := 0; i < m.Nodes; i++ {
		p := m.NodeBinary(i)
		if p == "" || p == bin.Path {
			continue
		}
		st, ok := byPath[p]
		if !ok {
			var err error
			if st, err = readSymbols(p, m.State); err != nil {
				return nb, fmt.Errorf("%s: %v", m.NodeName(i), err)
			}
			byPath[p] = st
		}
		nb.syms[i] = st
	}
	for _, q := range m.Queries {
		for _, n := range q.Nodes {
			nb.queries = append(nb.queries, boundQuery{q: q, node: n})
		}
	}
	return nb, nil
}

// symsOf returns node i's symbol table (def: the target's).
func (nb nodeBinding) symsOf(i int, def *symbolTable) *symbolTable {
	if st, ok := nb.syms[i]; ok {
		return st
	}
	return def
}

// stateQueries returns the supervisor's state queries.
func (nb nodeBinding) stateQueries(m *model.Model) []supervisor.StateQuery {
	var out []supervisor.StateQuery
	for _, b := range nb.queries {
		out = append(out, supervisor.StateQuery{Node: b.node, Data: []byte(b.q.SendTo(m, b.node))})
	}
	return out
}

// readQueries decodes node i's latest query replies into vars and
// appends their encoding to hashed, so that the parsed values take part
// in the state hash. Before the node's first answer the variables are
// zero; a reply that does not parse ends the run with verdict error,
// naming the node and the reply.
func (nb nodeBinding) readQueries(w *supervisor.World, i int, vars map[string]model.Value, hashed *[]byte) error {
	if f := w.Failure(); f != nil {
		return f // the run has ended: a query cut short is no news
	}
	replies := w.QueryReplies()
	for k, b := range nb.queries {
		if b.node != i || k >= len(replies) {
			continue
		}
		vals := b.q.Zero() // no answer yet (refused, or nothing sent back)
		if r := replies[k]; len(r.Data) > 0 {
			var err error
			if vals, err = b.q.Decode(i, string(r.Data)); err != nil {
				return &supervisor.Failure{Node: i, Msg: err.Error()}
			}
		}
		names := make([]string, 0, len(vals))
		for name := range vals {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			vars[name] = vals[name]
			*hashed = append(*hashed, name...)
			*hashed = append(*hashed, '=')
			*hashed = append(*hashed, vals[name].String()...)
			*hashed = append(*hashed, 0)
		}
	}
	return nil
}

// nodeEnv is node i's environment: weft's defaults, then the model's
// target.env and [[node]] env (which may override them).
func nodeEnv(m *model.Model, i int) []string {
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", fmt.Sprintf("WEFT_NODE=%d", i)}
	for _, kv := range m.NodeEnv(i) {
		name, _, _ := strings.Cut(kv, "=")
		for k, e := range env {
			if strings.HasPrefix(e, name+"=") {
				env = append(env[:k], env[k+1:]...)
				break
			}
		}
		env = append(env, kv)
	}
	return env
}

// withNodeBinaries folds the hashes of the nodes' own binaries ([[node]]
// binary) into b.Hash, so that the verdict row's binary hash changes when
// any executable of the run does.
func withNodeBinaries(m *model.Model, b Binary, err error) (Binary, error) {
	if err != nil || len(m.NodeDefs) == 0 {
		return b, err
	}
	seen := map[string]bool{}
	h := sha256.New()
	fmt.Fprintf(h, "weft-nodes-v1\x00%s\x00", b.Hash)
	for i := 0; i < m.Nodes; i++ {
		p := m.NodeBinary(i)
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		nh, err := fileHash(p)
		if err != nil {
			return b, err
		}
		fmt.Fprintf(h, "%d\x00%s\x00", i, nh)
	}
	if len(seen) > 0 {
		b.Hash = hex.EncodeToString(h.Sum(nil))
	}
	return b, nil
}
