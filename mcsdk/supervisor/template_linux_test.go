//go:build linux && amd64

package supervisor

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
	"golang.org/x/sys/unix"
)

// startConfig is two nodes of the start probe, each in its own
// directory with its own marker file.
func startConfig(t *testing.T, bin string, markers ...string) Config {
	cfg := Config{BasePort: 7450, Seed: 11}
	for _, m := range markers {
		dir := filepath.Join(t.TempDir(), m)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "marker"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg.Nodes = append(cfg.Nodes, NodeSpec{Path: bin, Args: []string{"same"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: dir})
	}
	return cfg
}

// started is what a world's nodes printed of their start, and its hash.
type started struct {
	out  [][]byte
	hash [32]byte
}

func startOf(t *testing.T, w *World) started {
	t.Helper()
	var s started
	for i := range w.nodes {
		s.out = append(s.out, w.Output(i))
	}
	s.hash = mustHash(t, w)
	return s
}

func (s started) same(o started) bool {
	if s.hash != o.hash || len(s.out) != len(o.out) {
		return false
	}
	for i := range s.out {
		if !bytes.Equal(s.out[i], o.out[i]) {
			return false
		}
	}
	return true
}

// TestTemplateStartsAsFresh: a node started as a fork of a template
// prints what a freshly started one prints (AT_RANDOM, the canary drawn
// from it, its working directory and what it finds there, its ids,
// signals, limits and descriptors) and its world hashes the same,
// memory included: when the template is made, when it is reused, when a
// copy is moved to another directory, and when two worlds need the same
// kind at once. Ending the templates leaves no process.
func TestTemplateStartsAsFresh(t *testing.T) {
	bin := buildProbe(t, "start", "-O1", "-fstack-protector-all")
	for _, cfg := range []Config{startConfig(t, bin, "one", "two"), startConfig(t, bin, "three", "four")} {
		fresh := cfg
		fresh.NoTemplates = true
		w, err := Start(fresh)
		if err != nil {
			t.Fatal(err)
		}
		want := startOf(t, w)
		for i := range w.nodes {
			if w.nodes[i].tmpl != nil {
				t.Fatal("NoTemplates: a node was started from a template")
			}
			if !bytes.Contains(want.out[i], []byte("marker "+filepath.Base(cfg.Nodes[i].Dir))) {
				t.Fatalf("node %d printed %q: not its marker", i, want.out[i])
			}
		}
		w.Close()
		// Two at once: each node holds a template of its own.
		var ws []*World
		seen := map[*nodeTemplate]bool{}
		for k := 0; k < 2; k++ {
			w, err := Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ws = append(ws, w)
			for i, n := range w.nodes {
				if n.tmpl == nil {
					t.Fatalf("world %d node %d: not started from a template", k, i)
				}
				if seen[n.tmpl] {
					t.Fatalf("world %d node %d: shares a template with a live node", k, i)
				}
				seen[n.tmpl] = true
			}
			if got := startOf(t, w); !got.same(want) {
				t.Errorf("world %d from templates:\n%s\nfresh:\n%s", k, bytes.Join(got.out, nil), bytes.Join(want.out, nil))
			}
		}
		for _, w := range ws {
			w.Close()
		}
		// One after the other: the same templates serve again.
		for k := 0; k < 3; k++ {
			w, err := Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, n := range w.nodes {
				if !seen[n.tmpl] {
					t.Errorf("start %d node %d: a new template while %d were idle", k, i, len(seen))
				}
			}
			if got := startOf(t, w); !got.same(want) {
				t.Errorf("start %d from templates:\n%s\nfresh:\n%s", k, bytes.Join(got.out, nil), bytes.Join(want.out, nil))
			}
			w.Close()
		}
		if n := len(seen); n != 4 {
			t.Errorf("%d templates of one kind, want 4 (two worlds of two nodes)", n)
		}
	}
	var pids []int
	templates.mu.Lock()
	for _, l := range templates.idle {
		for _, tm := range l {
			pids = append(pids, tm.pid)
		}
	}
	templates.mu.Unlock()
	CloseTemplates()
	if n := IdleTemplates(); n != 0 {
		t.Errorf("%d idle templates after CloseTemplates", n)
	}
	for _, pid := range pids {
		if err := unix.Kill(pid, 0); err != unix.ESRCH {
			t.Errorf("template process %d: kill 0 gives %v after CloseTemplates, want ESRCH", pid, err)
		}
	}
}

// TestTemplateWalks follows random paths through the checkpoint targets,
// crashes and restarts included, in a world whose nodes start afresh
// and in one whose nodes start from templates: the two hash the same,
// memory included, at every state, and print the same.
func TestTemplateWalks(t *testing.T) {
	for _, tc := range checkpointTargets {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
			fresh := cfg
			fresh.NoTemplates = true
			rng := rand.New(rand.NewPCG(3, 4))
			compared := 0
			for walk := 0; walk < 3; walk++ {
				a, err := Start(fresh)
				if err != nil {
					t.Fatal(err)
				}
				b, err := Start(cfg)
				if err != nil {
					a.Close()
					t.Fatal(err)
				}
				compared += walkBoth(t, a, b, cfg, rng, 10)
				a.Close()
				b.Close()
			}
			if compared < 10 {
				t.Fatalf("only %d states compared", compared)
			}
		})
	}
}

func walkBoth(t *testing.T, a, b *World, cfg Config, rng *rand.Rand, depth int) int {
	t.Helper()
	var path []sched.Action
	for len(path) < depth {
		if ha, hb := mustHash(t, a), mustHash(t, b); ha != hb {
			t.Fatalf("after %v: the fresh world hashes %x, the templated one %x", path, ha[:6], hb[:6])
		}
		for i := range cfg.Nodes {
			if !bytes.Equal(a.Output(i), b.Output(i)) {
				t.Fatalf("after %v: node %d printed %q fresh, %q from a template", path, i, a.Output(i), b.Output(i))
			}
			if st := b.Status(i); st.Alive && b.nodes[i].tmpl == nil {
				t.Fatalf("after %v: node %d was not started from a template", path, i)
			}
		}
		acts := walkActions(a, cfg)
		if len(acts) == 0 {
			break
		}
		act := acts[rng.IntN(len(acts))]
		if err := a.Apply(act); err != nil {
			t.Fatal(err)
		}
		if err := b.Apply(act); err != nil {
			t.Fatal(err)
		}
		path = append(path, act)
	}
	return len(path)
}
