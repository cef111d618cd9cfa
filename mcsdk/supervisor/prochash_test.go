//go:build linux && amd64

package supervisor

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// treeDigest is the process tree's contribution to the world hash
// (hashProcs without memory).
func treeDigest(w *World, n *node) [32]byte {
	h := sha256.New()
	put := func(v uint64) { h.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	if err := w.hashProcs(n, HashGlobals, put, h); err != nil {
		panic(err)
	}
	return [32]byte(h.Sum(nil))
}

// randTree draws a node's process tree: a main process, children with
// parents among the earlier ones, some ended (zombie or gone, with a
// status), some suspended by a vfork, and tasks spread over them.
func randTree(r *rand.Rand) *node {
	n := &node{id: r.IntN(3)}
	n.mainProc()
	n.procs[0].pidfd = -1
	n.tasks = []*task{{n: n, k: 0}}
	for k := 1; k <= r.IntN(5)+1; k++ {
		t := &task{n: n, k: k}
		p := &proc{vpid: t.vtid(), pidfd: -1}
		p.v = n.ptab.Fork(n.procs[r.IntN(len(n.procs))].vpid, p.vpid, int(unix.SIGCHLD))
		switch r.IntN(3) {
		case 1:
			p.v.State = vkernel.Zombie
		case 2:
			p.v.State = vkernel.Reaped
		}
		if p.ended() {
			p.v.Status = uint32(r.IntN(1 << 16))
		} else if r.IntN(4) == 0 {
			p.vforker = n.tasks[0]
		}
		t.p = p
		n.procs = append(n.procs, p)
		n.tasks = append(n.tasks, t)
	}
	return n
}

// cloneTree copies a tree so that the copy shares no record with it.
func cloneTree(n *node) *node {
	c := &node{id: n.id}
	m := map[*proc]*proc{}
	c.mainProc()
	*c.procs[0].v = *n.procs[0].v
	for i, p := range n.procs {
		q := *p
		if i > 0 {
			q.v = c.ptab.Fork(p.v.Parent, p.vpid, p.v.ExitSignal)
			*q.v = *p.v
		} else {
			q.v = c.procs[0].v
		}
		m[p] = &q
		if i == 0 {
			c.procs[0] = &q
		} else {
			c.procs = append(c.procs, &q)
		}
	}
	for _, t := range n.tasks {
		u := *t
		u.n = c
		if t.p != nil {
			u.p = m[t.p]
		}
		c.tasks = append(c.tasks, &u)
	}
	for _, q := range c.procs {
		if q.vforker != nil {
			q.vforker = c.tasks[0]
		}
	}
	return c
}

// TestProcHashProperty: equal process trees hash equally, and changing
// any one thing a process of the tree could observe or that decides what
// it can do next (a pid, a parent link, a zombie's or reaped child's
// status, a vfork suspension, which process a task belongs to) changes
// the hash.
func TestProcHashProperty(t *testing.T) {
	w := &World{}
	r := rand.New(rand.NewPCG(1, 2))
	mutations := []struct {
		name   string
		mutate func(n *node, r *rand.Rand) bool // false: not applicable to this tree
	}{
		{"pid", func(n *node, r *rand.Rand) bool {
			p := n.procs[1+r.IntN(len(n.procs)-1)]
			p.vpid += 7
			p.v.Pid += 7
			return true
		}},
		{"parent", func(n *node, r *rand.Rand) bool {
			p := n.procs[1+r.IntN(len(n.procs)-1)]
			if p.v.Parent == n.procs[0].vpid {
				p.v.Parent = 0
			} else {
				p.v.Parent = n.procs[0].vpid
			}
			return true
		}},
		{"zombie reaped", func(n *node, r *rand.Rand) bool {
			for _, p := range n.procs {
				if p.zombie() {
					p.v.State = vkernel.Reaped
					return true
				}
			}
			return false
		}},
		{"status", func(n *node, r *rand.Rand) bool {
			for _, p := range n.procs {
				if p.ended() {
					p.v.Status ^= 1 << 8
					return true
				}
			}
			return false
		}},
		{"vfork", func(n *node, r *rand.Rand) bool {
			for _, p := range n.procs[1:] {
				if !p.ended() {
					if p.vforker == nil {
						p.vforker = n.tasks[0]
					} else {
						p.vforker = nil
					}
					return true
				}
			}
			return false
		}},
		{"forking thread", func(n *node, r *rand.Rand) bool { // the thread whose own child it is (__WNOTHREAD)
			for _, p := range n.procs[1:] {
				if p.v.Parent != 0 {
					if p.v.Thread == p.v.Parent {
						p.v.Thread = p.v.Parent + 5000
					} else {
						p.v.Thread = p.v.Parent
					}
					return true
				}
			}
			return false
		}},
		{"address space", func(n *node, r *rand.Rand) bool { n.procs[1+r.IntN(len(n.procs)-1)].space += 1; return true }},
		{"task's process", func(n *node, r *rand.Rand) bool {
			if len(n.tasks) < 3 {
				return false
			}
			n.tasks[1].p, n.tasks[2].p = n.tasks[2].p, n.tasks[1].p
			return true
		}},
	}
	applied := map[string]int{}
	for i := 0; i < 500; i++ {
		n := randTree(r)
		d := treeDigest(w, n)
		if c := cloneTree(n); treeDigest(w, c) != d {
			t.Fatalf("tree %d: an equal copy hashes differently", i)
		}
		for _, m := range mutations {
			c := cloneTree(n)
			if !m.mutate(c, r) {
				continue
			}
			applied[m.name]++
			if treeDigest(w, c) == d {
				t.Errorf("tree %d: changing the %s leaves the hash unchanged", i, m.name)
			}
		}
	}
	for _, m := range mutations {
		if applied[m.name] < 50 {
			t.Errorf("mutation %q applied only %d times", m.name, applied[m.name])
		}
	}
}
