package sched

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestSeeded runs testdata/seeded/*.txt: world defines a fake network
// (chan FROM TO [dgram] [N messages sent at 0], timer NODE AT_US, echo C D),
// run draws a seeded run over it and prints every choice.
func TestSeeded(t *testing.T) {
	datadriven.Walk(t, "testdata/seeded", func(t *testing.T, path string) {
		var base *eventFake
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "world":
				f, err := parseEventFake(d.Input)
				if err != nil {
					return "error: " + err.Error()
				}
				base = f
				return "ok"
			case "run":
				p := planFrom(d)
				f := base.clone()
				s := NewSeeded(p)
				choices, err := runSeeded(s, f, 1<<62)
				c := s.Counts()
				out := formatChoices(choices) + fmt.Sprintf("sent %d, dropped %d, duplicated %d, held %d\n", c.Sent, c.Dropped, c.Duplicated, c.Held)
				if err != nil {
					out += "error: " + err.Error() + "\n"
				}
				// Every run replays: the same choices on a fresh world give
				// the same history.
				g := base.clone()
				if err := replaySeeded(choices, g); err != nil {
					t.Errorf("replay: %v", err)
				} else if !slices.Equal(f.log, g.log) {
					t.Errorf("replay diverged:\n%v\n%v", f.log, g.log)
				}
				return out
			}
			return fmt.Sprintf("unknown command %q", d.Cmd)
		})
	})
}

func parseEventFake(text string) (*eventFake, error) {
	f := &eventFake{echo: map[int]int{}, dead: map[int]bool{}}
	id := 0
	for _, line := range strings.Split(text, "\n") {
		w := strings.Fields(line)
		if len(w) == 0 {
			continue
		}
		num := func(i int) int {
			n, _ := strconv.Atoi(w[i])
			return n
		}
		switch w[0] {
		case "chan":
			c := fakeChan{from: num(1), to: num(2)}
			for _, x := range w[3:] {
				if x == "dgram" {
					c.dgram = true
				} else if n, err := strconv.Atoi(x); err == nil {
					for range n {
						c.sent = append(c.sent, 0)
						c.ids = append(c.ids, id)
						id++
					}
				}
			}
			f.chans = append(f.chans, c)
		case "timer":
			f.timers = append(f.timers, TimerInfo{Node: num(1), Deadline: int64(num(2)) * 1000})
		case "ttimer": // ttimer NODE TASK US: a thread's timeout
			f.timers = append(f.timers, TimerInfo{Node: num(1), Task: num(2), Deadline: int64(num(3)) * 1000})
		case "ready": // ready NODE TASK...
			for _, x := range w[2:] {
				k, _ := strconv.Atoi(x)
				f.ready = append(f.ready, [2]int{num(1), k})
			}
		case "echo":
			f.echo[num(1)] = num(2)
		default:
			return nil, fmt.Errorf("bad line %q", line)
		}
	}
	return f, nil
}

// planFrom reads seed=S latency=LO-HI bag drop=P dup=P reorder=P
// crashes=N nodes=(..) until=US restart=LO-HI notices partition=FROM-UNTIL
// clients=N window=US.
func planFrom(d *datadriven.TestData) Plan {
	p := Plan{FIFO: true, Latency: uniform(1000, 1000)}
	rng := func(s string) (int64, int64) {
		lo, hi, _ := strings.Cut(s, "-")
		a, _ := strconv.ParseInt(lo, 10, 64)
		b, _ := strconv.ParseInt(hi, 10, 64)
		return a, b
	}
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	for _, arg := range d.CmdArgs {
		v := ""
		if len(arg.Vals) > 0 {
			v = arg.Vals[0]
		}
		switch arg.Key {
		case "seed":
			p.Seed, _ = strconv.ParseUint(v, 10, 64)
		case "latency":
			p.Latency = uniform(rng(v))
		case "bag":
			p.FIFO = false
		case "drop":
			p.Drop = f(v)
		case "dup":
			p.Duplicate = f(v)
		case "reorder":
			p.Reorder = f(v)
		case "crashes":
			p.Crashes, _ = strconv.Atoi(v)
		case "nodes":
			for _, n := range arg.Vals {
				k, _ := strconv.Atoi(n)
				p.Nodes = append(p.Nodes, k)
			}
		case "until":
			p.Until, _ = strconv.ParseInt(v, 10, 64)
		case "restart":
			p.Restart, p.RestartDelay = true, uniform(rng(v))
		case "notices":
			p.Notices = true
		case "partition":
			lo, hi := rng(v)
			p.Partitions = append(p.Partitions, PartitionPlan{From: lo, Until: hi, Cut: func(a, b int) bool { return a >= 0 && b >= 0 && a != b }})
		case "clients":
			n, _ := strconv.Atoi(v)
			for range n {
				p.Clients = append(p.Clients, ClientPlan{Until: p.Until})
			}
		}
	}
	return p
}

// FuzzSeededReplay builds a random fake network and plan from the fuzzer's
// bytes, runs the seeded scheduler over it twice (the same choices both
// times: determinism) and replays the choices on a fresh network (the same
// history: replay reproduces the run).
func FuzzSeededReplay(f *testing.F) {
	f.Add(uint64(1), []byte{3, 1, 0, 2, 1, 9, 4})
	f.Add(uint64(7), []byte{0, 5, 255, 17, 3, 3, 3, 3, 8})
	f.Fuzz(func(t *testing.T, seed uint64, b []byte) {
		at := func(i int) int {
			if len(b) == 0 {
				return 0
			}
			return int(b[i%len(b)])
		}
		world := &eventFake{echo: map[int]int{}, dead: map[int]bool{}}
		nch := 1 + at(0)%3
		id := 0
		for c := range nch {
			ch := fakeChan{from: c % 2, to: (c + 1) % 2, dgram: at(c+1)%2 == 1}
			for range at(c+2) % 5 {
				ch.sent = append(ch.sent, int64(at(id+3)%4)*1000_000)
				ch.ids = append(ch.ids, id)
				id++
			}
			world.chans = append(world.chans, ch)
		}
		if at(4)%2 == 0 && nch > 1 {
			world.echo[0] = 1
		}
		if at(5)%3 == 0 {
			world.timers = append(world.timers, TimerInfo{Node: 1, Deadline: int64(at(6)) * 100_000})
		}
		p := Plan{
			Seed: seed, FIFO: at(7)%2 == 0, Latency: uniform(0, int64(at(8))*100),
			Drop: float64(at(9)%4) / 4, Duplicate: float64(at(10)%4) / 4, Reorder: float64(at(11)%4) / 4,
			Nodes: []int{0, 1}, Crashes: at(12) % 3, Until: int64(at(13)) * 50, Restart: at(14)%2 == 0,
			RestartDelay: uniform(1, 500), Notices: at(15)%2 == 0,
		}
		if at(16)%3 == 0 {
			p.Partitions = []PartitionPlan{{From: int64(at(17)) * 10, Until: int64(at(17))*10 + int64(at(18))*20 + 1, Cut: func(a, b int) bool { return a >= 0 && b >= 0 && a != b }}}
		}
		for range at(19) % 3 {
			p.Clients = append(p.Clients, ClientPlan{Until: int64(at(20)) * 30})
		}
		// The second run describes every channel at every step (a world
		// that cannot count a channel's messages): skipping the channels
		// that did not grow changes nothing.
		w1, w2 := world.clone(), world.clone()
		w2.uncounted = true
		c1, err1 := runSeeded(NewSeeded(p), w1, 1<<62)
		c2, err2 := runSeeded(NewSeeded(p), w2, 1<<62)
		if (err1 == nil) != (err2 == nil) || !slices.Equal(c1, c2) || !slices.Equal(w1.log, w2.log) {
			t.Fatalf("two runs of one plan differ:\n%s\n%s", formatChoices(c1), formatChoices(c2))
		}
		if err1 != nil {
			t.Fatalf("run: %v", err1)
		}
		w3 := world.clone()
		if err := replaySeeded(c1, w3); err != nil {
			t.Fatalf("replay: %v\n%s", err, formatChoices(c1))
		}
		if !slices.Equal(w1.log, w3.log) {
			t.Fatalf("replay diverged:\n%v\n%v", w1.log, w3.log)
		}
		// Time never goes backwards.
		for i := 1; i < len(c1); i++ {
			if c1[i].A.Kind != Drop && c1[i].A.Kind != Dup && c1[i].At < c1[i-1].At {
				t.Fatalf("choice %d at %d before %d:\n%s", i, c1[i].At, c1[i-1].At, formatChoices(c1))
			}
		}
	})
}

// TestReplayerOnlyChooses: the Replayer hands out a recording's drops and
// duplicates as choices, one at a time, without applying them (a drop of
// a copy is possible only once its duplicate was applied), and reports a
// choice the world cannot take as a divergence naming the step it comes
// before.
func TestReplayerOnlyChooses(t *testing.T) {
	tests := []struct {
		name    string
		choices []Timed
		want    []string // each choice as handed out, then the error if any
	}{
		{"dup then drop of the copy", []Timed{{0, Action{Kind: Dup}}, {0, Action{Kind: Drop, Index: 1}}, {5, Action{Kind: Deliver}}},
			[]string{"dup 0.0", "drop 0.1", "deliver 0.0"}},
		{"drop of a message not there", []Timed{{0, Action{Kind: Deliver}}, {0, Action{Kind: Drop, Index: 1}}},
			[]string{"deliver 0.0", "error: step 2: drop 0.1 is not possible: the run diverged"}},
		{"dup of a message not there", []Timed{{0, Action{Kind: Dup, Chan: 1}}},
			[]string{"error: step 1: dup 1.0 is not possible: the run diverged"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &eventFake{dead: map[int]bool{}, chans: []fakeChan{{from: 0, to: 1, dgram: true, sent: []int64{0}, ids: []int{0}}}}
			r := NewReplayer(tc.choices)
			var got []string
			for {
				before := f.String()
				a, at, ok, err := r.Next(f)
				if now := f.String(); now != before {
					t.Fatalf("Next changed the world:\n%s\nto\n%s", before, now)
				}
				if err != nil {
					got = append(got, "error: "+err.Error())
					break
				}
				if !ok {
					break
				}
				got = append(got, a.String())
				if err := f.apply(a, at); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
