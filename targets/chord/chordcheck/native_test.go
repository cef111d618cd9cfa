package chordcheck_test

// Native runs of ../chord_node.c: six real processes on 127.0.0.1, no weft
// supervisor. They prove the C program forms and repairs rings before any
// model checking, using chordcheck on the pointers the nodes print.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

// The seed experiment's ids: nodes 0..2 are the base, 3..5 join.
const idList = "1,22,43,4,25,46"

const (
	tickUS     = 10000 // 10 ms maintenance rounds
	startTick  = 20    // 200 ms for all six listeners to open
	formTime   = 1200 * time.Millisecond
	repairTime = 800 * time.Millisecond
)

func TestNativeRing(t *testing.T) {
	type run struct {
		fix    int
		victim int // node index to SIGKILL once the ring has formed, -1: none
	}
	// Level 0 is left out of the kill run on purpose: the 2001 protocol can
	// readopt the dead node through stabilize (Zave 2012, Figure 6), which
	// is the flaw the campaign measures, not something a test can demand.
	runs := []run{{0, -1}, {1, -1}, {2, -1}, {1, 4}, {2, 4}}
	bins := map[int]string{}
	for _, fix := range []int{0, 1, 2} {
		bins[fix] = buildNode(t, fix)
	}
	// All clusters run at once (t.Parallel would run only GOMAXPROCS of
	// them at a time); each is checked in its own subtest.
	ports := basePorts(t, len(runs), len(strings.Split(idList, ",")))
	clusters := make([]*cluster, len(runs))
	for i, r := range runs {
		clusters[i] = startCluster(t, bins[r.fix], ports[i])
	}
	time.Sleep(formTime)
	for i, r := range runs {
		if r.victim >= 0 {
			clusters[i].kill(t, r.victim)
		}
	}
	time.Sleep(repairTime)
	for i, r := range runs {
		name := fmt.Sprintf("fix%d", r.fix)
		if r.victim >= 0 {
			name += fmt.Sprintf("/kill-node%d", r.victim)
		}
		t.Run(name, func(t *testing.T) {
			checkOneOrderedRing(t, clusters[i].stop(t))
			if t.Failed() {
				clusters[i].dump(t)
			}
		})
	}
}

// checkOneOrderedRing requires every live node on one ordered ring and
// every invariant, required and useful, to hold.
func checkOneOrderedRing(t *testing.T, nodes []chordcheck.Node) {
	t.Helper()
	var alive []int
	for _, n := range nodes {
		if n.Alive {
			alive = append(alive, n.ID)
		}
	}
	slices.Sort(alive)
	if got := chordcheck.RingMembers(nodes); !slices.Equal(got, alive) {
		t.Errorf("ring members %v, want every live node %v", got, alive)
	}
	for _, v := range chordcheck.Violations(nodes, append(chordcheck.Required(), chordcheck.Useful()...)) {
		t.Errorf("%s violated: %s", v.Name, v.Why)
	}
	if t.Failed() {
		t.Logf("final state: %+v", nodes)
	}
}

// buildNode compiles chord_node.c at liveness level fix.
func buildNode(t *testing.T, fix int) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cc not found: %v", err)
		}
		t.Skipf("cc not found (%v); install a C compiler", err)
	}
	bin := filepath.Join(t.TempDir(), fmt.Sprintf("chord_node_fix%d", fix))
	cmd := exec.Command(cc, "-O1", "-Wall", "-Wextra", "-Werror",
		fmt.Sprintf("-DCHORD_FIX=%d", fix), "-o", bin, filepath.Join("..", "chord_node.c"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cc -DCHORD_FIX=%d: %v\n%s", fix, err, out)
	}
	return bin
}

// basePorts finds count disjoint ranges of width free loopback ports below
// the kernel's ephemeral range (so no node's outgoing connection can take a
// port another node is about to listen on) and returns their first ports.
// All ranges are held until all are found.
func basePorts(t *testing.T, count, width int) []int {
	t.Helper()
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	top := ephemeralLow(t)
	var bases []int
	// Spread concurrent test processes over the range by pid.
	start := 10000 + os.Getpid()%((top-10000)/width)*width
	for i := 0; len(bases) < count && i < (top-10000)/width; i++ {
		base := 10000 + (start-10000+i*width)%(top-10000-width)
		if ls, ok := listenRange(base, width); ok {
			held = append(held, ls...)
			bases = append(bases, base)
		}
	}
	if len(bases) < count {
		t.Fatalf("found only %d free ranges of %d loopback ports below %d", len(bases), width, top)
	}
	return bases
}

// ephemeralLow returns the first port the kernel hands out to connect().
func ephemeralLow(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	low, err := strconv.Atoi(f[0])
	if err != nil || low < 11000 {
		t.Fatalf("ephemeral port range %q leaves no room below it", b)
	}
	return low
}

func listenRange(base, width int) ([]net.Listener, bool) {
	var ls []net.Listener
	for p := base; p < base+width; p++ {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			for _, l := range ls {
				l.Close()
			}
			return nil, false
		}
		ls = append(ls, l)
	}
	return ls, true
}

// cluster is six chord_node processes and the lines each printed.
type cluster struct {
	procs  []*exec.Cmd
	logs   []*lineLog
	killed map[int]bool
}

type lineLog struct {
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

func (l *lineLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

func startCluster(t *testing.T, bin string, basePort int) *cluster {
	t.Helper()
	c := &cluster{killed: map[int]bool{}}
	t.Cleanup(func() {
		for _, p := range c.procs {
			p.Process.Kill()
			p.Wait()
		}
	})
	for i := range strings.Split(idList, ",") {
		cmd := exec.Command(bin, "--ids", idList, "--index", strconv.Itoa(i),
			"--base-port", strconv.Itoa(basePort), "--tick-us", strconv.Itoa(tickUS),
			"--start-tick", strconv.Itoa(startTick))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		log := &lineLog{done: make(chan struct{})}
		go func() {
			defer close(log.done)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				log.mu.Lock()
				log.lines = append(log.lines, sc.Text())
				log.mu.Unlock()
			}
		}()
		c.procs = append(c.procs, cmd)
		c.logs = append(c.logs, log)
	}
	return c
}

// dump logs every line the nodes printed.
func (c *cluster) dump(t *testing.T) {
	for i, log := range c.logs {
		for _, line := range log.snapshot() {
			t.Logf("[%d] %s", i, line)
		}
	}
}

// signalLive sends sig to every node not killed.
func (c *cluster) signalLive(t *testing.T, sig syscall.Signal) {
	t.Helper()
	for i, p := range c.procs {
		if !c.killed[i] {
			if err := p.Process.Signal(sig); err != nil {
				t.Fatalf("node %d: %v: %v", i, sig, err)
			}
		}
	}
}

// kill crashes node victim after checking, on the state the nodes have
// printed while all are stopped, that the failure precondition holds.
func (c *cluster) kill(t *testing.T, victim int) {
	t.Helper()
	c.signalLive(t, syscall.SIGSTOP)
	time.Sleep(100 * time.Millisecond) // let the readers drain the pipes
	nodes := plain(c.state(t))
	if ok, why := chordcheck.Precondition(nodes, nodes[victim].ID); !ok {
		t.Fatalf("failure precondition broken before the kill: %s", why)
	}
	if err := c.procs[victim].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-c.logs[victim].done
	c.procs[victim].Wait()
	c.killed[victim] = true
	c.signalLive(t, syscall.SIGCONT)
}

// stop freezes every live node, asks it to exit, and returns the final
// pointers: nodes stop together, so no node outlives another and reacts
// to its exit.
func (c *cluster) stop(t *testing.T) []chordcheck.Node {
	t.Helper()
	c.signalLive(t, syscall.SIGSTOP)
	c.signalLive(t, syscall.SIGTERM)
	c.signalLive(t, syscall.SIGCONT)
	for i, p := range c.procs {
		if c.killed[i] {
			continue
		}
		<-c.logs[i].done // Wait closes the pipe: read it all first
		if err := p.Wait(); err != nil {
			t.Errorf("node %d: %v", i, err)
		}
	}
	nodes := c.state(t)
	for i, n := range nodes {
		if !c.killed[i] && !n.finished {
			t.Errorf("node %d printed no final line", i)
		}
	}
	return plain(nodes)
}

type parsed struct {
	chordcheck.Node
	finished bool
}

func plain(ps []parsed) []chordcheck.Node {
	var out []chordcheck.Node
	for _, p := range ps {
		out = append(out, p.Node)
	}
	return out
}

// state folds each node's printed lines into its current pointers.
func (c *cluster) state(t *testing.T) []parsed {
	t.Helper()
	var out []parsed
	for i, log := range c.logs {
		p := parsed{Node: chordcheck.Node{Index: i, ID: -2, Alive: !c.killed[i]}}
		for _, line := range log.snapshot() {
			if err := apply(&p, line); err != nil {
				t.Fatalf("node %d: %v", i, err)
			}
		}
		out = append(out, p)
	}
	return out
}

// apply updates p from one line of chord_node output:
//
//	node 22: start index 1 fix 2 succ 43 succ2 1 pred 1
//	node 22: succ 43 -> 25
//	node 22: final succ 25 succ2 43 pred 4 dead 0
func apply(p *parsed, line string) error {
	var id, a, b, c, d int
	var field string
	switch {
	case strings.Contains(line, ": start "):
		if _, err := fmt.Sscanf(line, "node %d: start index %d fix %d succ %d succ2 %d pred %d",
			&id, &a, &b, &p.Succ, &p.Succ2, &p.Pred); err != nil {
			return fmt.Errorf("%q: %v", line, err)
		}
		p.ID = id
	case strings.Contains(line, ": final "):
		if _, err := fmt.Sscanf(line, "node %d: final succ %d succ2 %d pred %d",
			&id, &p.Succ, &p.Succ2, &p.Pred); err != nil {
			return fmt.Errorf("%q: %v", line, err)
		}
		p.finished = true
	case strings.Contains(line, " -> "):
		if _, err := fmt.Sscanf(line, "node %d: %s %d -> %d", &id, &field, &c, &d); err != nil {
			return fmt.Errorf("%q: %v", line, err)
		}
		ptr := map[string]*int{"succ": &p.Succ, "succ2": &p.Succ2, "pred": &p.Pred}[field]
		if ptr == nil || *ptr != c {
			return fmt.Errorf("%q does not follow from %+v", line, p.Node)
		}
		*ptr = d
	}
	return nil
}
