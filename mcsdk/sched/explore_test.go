package sched

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestExplore runs the scripts in testdata/explore*.txt: a graph command
// defines a fake system, explore runs the explorer over it and prints the
// verdict, the path and the counts, enabled prints what is enabled after
// a path.
func TestExplore(t *testing.T) {
	datadriven.Walk(t, "testdata/explore", func(t *testing.T, path string) {
		var g *graph
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "graph":
				var err error
				if g, err = parseGraph(d.Input); err != nil {
					return "error: " + err.Error()
				}
				return "ok"
			case "explore":
				return runExplore(t, g, d)
			case "enabled":
				x := explorer(g, d, new(atomic.Int64))
				w, _ := x.Start()
				var path []Action
				for _, s := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					if s == "" {
						continue
					}
					a, err := ParseAction(s)
					if err != nil {
						return "error: " + err.Error()
					}
					if err := w.Apply(a); err != nil {
						return "error: " + err.Error()
					}
					path = append(path, a)
				}
				var out []string
				for _, a := range x.Enabled(w, path, Observation{}) {
					out = append(out, a.String())
				}
				return strings.Join(out, "\n")
			}
			return fmt.Sprintf("unknown command %q", d.Cmd)
		})
	})
}

// explorer builds an Explorer over g from the command's arguments:
// depth=N crashes=N nodes=(a,b) restart workers=N drift=N partitions=(0|1,2) where each
// partition lists its groups separated by |.
func explorer(g *graph, d *datadriven.TestData, closes *atomic.Int64) *Explorer {
	x := &Explorer{
		Start: func() (World, error) { return &fakeWorld{g: g, at: g.start, closed: closes}, nil },
		Observe: func(w World, parent any) (Observation, error) {
			at := w.(*fakeWorld).at
			return Observation{Data: at, Visible: []byte(fmt.Sprintf("%s/%v", g.obs[at], g.bad[at]))}, nil
		},
		Check: func(w World, ob Observation, path []Action) (bool, error) {
			return g.bad[w.(*fakeWorld).at], nil
		},
	}
	for _, arg := range d.CmdArgs {
		switch arg.Key {
		case "depth":
			x.Depth, _ = strconv.Atoi(arg.Vals[0])
		case "crashes":
			x.Faults.Crashes, _ = strconv.Atoi(arg.Vals[0])
		case "nodes":
			for _, v := range arg.Vals {
				n, _ := strconv.Atoi(v)
				x.Faults.Nodes = append(x.Faults.Nodes, n)
			}
		case "restart":
			x.Faults.Restart = true
		case "reduction":
			x.Reduction = Reduction(arg.Vals[0])
		case "workers":
			x.Workers, _ = strconv.Atoi(arg.Vals[0])
		case "deepen":
			x.Deepen = true
		case "drift": // drift=N: the worlds started after the N-th hash differently (replays verified)
			n, _ := strconv.Atoi(arg.Vals[0])
			x.VerifyReplays = true
			started, start := 0, x.Start
			x.Start = func() (World, error) {
				w, err := start()
				if started++; started > n {
					w.(*fakeWorld).salt = "drifted"
				}
				return w, err
			}
		case "stop": // stop=N: the N+1-th expansion is refused
			n, _ := strconv.Atoi(arg.Vals[0])
			asked := 0
			x.Stop = func() bool { asked++; return asked > n }
		case "partitions":
			for _, p := range arg.Vals {
				side := map[int]int{}
				for gi, grp := range strings.Split(p, "|") {
					for _, n := range strings.Split(grp, "+") {
						k, _ := strconv.Atoi(n)
						side[k] = gi
					}
				}
				x.Faults.Partitions = append(x.Faults.Partitions, func(a, b int) bool {
					return a >= 0 && b >= 0 && side[a] != side[b]
				})
			}
		}
	}
	return x
}

func runExplore(t *testing.T, g *graph, d *datadriven.TestData) string {
	var closes, starts atomic.Int64
	x := explorer(g, d, &closes)
	start := x.Start
	x.Start = func() (World, error) { starts.Add(1); return start() }
	res, err := x.Run()
	var b strings.Builder
	switch {
	case err != nil:
		fmt.Fprintf(&b, "error: %v\n", err)
	case res.Stopped && !res.Violated:
		fmt.Fprintf(&b, "stopped: no violation within what was explored\n")
	case res.Violated:
		var steps []string
		for _, a := range res.Path {
			steps = append(steps, a.String())
		}
		fmt.Fprintf(&b, "violated after %d: %s\n", len(res.Path), strings.Join(steps, ", "))
	default:
		fmt.Fprintf(&b, "holds within depth %d\n", x.Depth)
	}
	if res.Stopped || x.Deepen {
		fmt.Fprintf(&b, "covered to depth %d, reached depth %d, truncated %d\n", res.Covered, res.Reached, res.Truncated)
	}
	fmt.Fprintf(&b, "states %d, expansions %d, executions %d, replays %d, by depth %v", res.States, res.Expansions, res.Executions, res.Replays, res.ByDepth)
	if res.SleepBlocked > 0 || res.Fallbacks > 0 {
		fmt.Fprintf(&b, ", sleep-blocked %d, fallbacks %d", res.SleepBlocked, res.Fallbacks)
	}
	// Every world started (the first and each replay) is closed once.
	if closes.Load() != starts.Load() {
		t.Errorf("%d worlds started, %d closed", starts.Load(), closes.Load())
	}
	return b.String()
}
