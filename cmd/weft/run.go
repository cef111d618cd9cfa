package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/cmd/weft/internal/cluster"
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/gocheck"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

func init() {
	var (
		variant string
		seed    seedFlag
		quiet   bool
		asJSON  bool
		sysc    syscallsFlag
		prog    programFlags
		trace   string
	)
	register(&command{
		name:    "run",
		usage:   "run MODEL [--variant V] --seed S  |  run --seed S [--nodes N] [--port P] [--duration D] [--emit-model] -- BINARY ARGS...",
		summary: "one seeded run (virtual time, seeded faults and randomness), node output prefixed; exit as check",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&variant, "variant", "", "variant to run (default: the model's first)")
			fs.Var(&seed, "seed", "the seed `S` (required): every latency, fault time and random byte derives from it")
			fs.BoolVar(&quiet, "quiet", false, "do not show node output")
			fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
			fs.Var(&sysc, "syscalls", "show, per node, every syscall made and how weft served it (--syscalls=all also notifies and counts the passthrough calls)")
			fs.StringVar(&trace, "sched-trace", "", "write the scheduling trace to `FILE`: every action, notification, stop and signal that decides which tasks may run, to compare two runs of one seed (diff)")
			prog.register(fs)
		},
		run: func(args []string) (int, error) {
			if len(args) == 0 {
				return exitUsage, fmt.Errorf("want MODEL, or -- BINARY [ARGS]")
			}
			isModel := strings.HasSuffix(args[0], ".model")
			if isModel && prog.given() {
				return exitUsage, fmt.Errorf("--nodes, --port, --duration and --emit-model describe a program run with -- BINARY ARGS; a model says these itself (target.nodes, target.base_port, campaign.duration)")
			}
			if !isModel && prog.emit {
				src, err := programSource(args[0], args[1:], prog)
				if err != nil {
					return exitUsage, err
				}
				fmt.Print(src)
				return exitHolds, nil
			}
			if !seed.set {
				return exitUsage, fmt.Errorf("--seed is required: a run is a function of its seed, so say which (e.g. --seed 1; weft campaign runs many)")
			}
			var m *model.Model
			var err error
			if isModel && len(args) > 1 {
				return exitUsage, fmt.Errorf("want one MODEL, got %d arguments (a program's arguments go after --: run --seed S -- BINARY ARGS)", len(args))
			}
			if isModel {
				m, err = loadModel(args[0])
			} else {
				m, err = programModel(args[0], args[1:], prog)
			}
			if err != nil {
				return exitUsage, err
			}
			p := newLinePrinter(os.Stdout, m.Nodes)
			opts := mcsdk.RunOptions{Variant: variant, Seed: seed.v, Syscalls: sysc.on, SyscallsAll: sysc.all, Host: host()}
			if trace != "" {
				f, err := os.Create(trace)
				if err != nil {
					return exitUsage, err
				}
				tw := bufio.NewWriterSize(f, 1<<20)
				defer func() { tw.Flush(); f.Close() }()
				opts.Host.Trace = tw
			}
			if !quiet && !asJSON {
				opts.OnOutput = p.write
			}
			in := watchInterrupts("run", os.Stderr, interruptGrace)
			res, err := mcsdk.Run(m, opts)
			p.flush()
			if sig := in.stop(); sig != nil {
				return interrupted("run", sig, "the run was abandoned (no verdict)")
			}
			if err != nil {
				return exitUsage, err
			}
			if asJSON {
				res.Events = nil
				return res.Verdict.ExitCode(), printJSON(res)
			}
			printRun(m, res, rerunLine(args, isModel, prog, res))
			if sysc.on {
				printSyscalls(os.Stdout, res.Syscalls, sysc.all, m.NodeName)
			} else if res.Verdict == mcsdk.Error && strings.Contains(res.Detail, "syscall") {
				fmt.Println("  (weft run --syscalls lists every call each node made and how weft answered it)")
			}
			return res.Verdict.ExitCode(), nil
		},
	})
}

// programFlags describe a program run (run -- BINARY ARGS) in place of a
// model: how many nodes, their base port, how long, or print the model.
type programFlags struct {
	nodes    int
	port     int
	duration virtualDuration
	emit     bool
}

func (p *programFlags) register(fs *flag.FlagSet) {
	p.nodes = 1
	boundedInt(fs, &p.nodes, "nodes", 1, maxProgramNodes, "", "with -- BINARY: run `N` copies of the program as nodes 0..N-1 ({id} in ARGS is each node's number)")
	boundedInt(fs, &p.port, "port", 0, 65535, "", "with -- BINARY: the base port `P`: node i's {port} in ARGS is P+i (target.base_port)")
	fs.Var(&p.duration, "duration", "with -- BINARY: end the run after `D` of virtual time (e.g. 2s, 500ms; campaign.duration), for a server that never exits")
	fs.BoolVar(&p.emit, "emit-model", false, "with -- BINARY: print the model of this program run (save it as NAME.model, edit it, run it with weft run NAME.model --seed S) and run nothing")
}

// given reports whether a program-run flag was set.
func (p *programFlags) given() bool {
	return p.nodes != 1 || p.port != 0 || p.duration.us != 0 || p.emit
}

// maxProgramNodes bounds --nodes (as the model's target.nodes).
const maxProgramNodes = 64

// virtualDuration is a flag of virtual time, kept in µs (the model's unit).
type virtualDuration struct{ us int64 }

func (d *virtualDuration) String() string {
	if d == nil || d.us == 0 {
		return ""
	}
	return (time.Duration(d.us) * time.Microsecond).String()
}

func (d *virtualDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil || v < time.Microsecond {
		return fmt.Errorf("want a positive duration with a unit, e.g. 2s or 500ms")
	}
	d.us = int64(v / time.Microsecond)
	return nil
}

// programModel makes the model of a program run: BINARY ARGS as p.nodes
// nodes with no network faults or invariants of its own (programSource).
func programModel(bin string, args []string, p programFlags) (*model.Model, error) {
	src, err := programSource(bin, args, p)
	if err != nil {
		return nil, err
	}
	return model.Parse("(weft run -- "+filepath.Base(bin)+")", []byte(src))
}

// programSource writes the model of a program run: the binary by its
// absolute path (so the model loads from anywhere), its arguments, and,
// when given, nodes, base port and duration; an invariant that always
// holds stands in for the user's own, so that the model runs as saved.
func programSource(bin string, args []string, p programFlags) (string, error) {
	path, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(path); err != nil {
		return "", err
	}
	q := make([]string, len(args))
	for i, a := range args {
		b, _ := json.Marshal(a)
		q[i] = string(b)
	}
	var b strings.Builder
	b.WriteString("# Written by weft run --emit-model. Save it as NAME.model, edit it, and run it\n")
	b.WriteString("# with: weft run NAME.model --seed 1   (placeholders in args: {id}, {nodes}, {port})\n")
	jb, _ := json.Marshal(path)
	fmt.Fprintf(&b, "[target]\nnodes = %d\nbinary = %s\nargs = [%s]\n", p.nodes, jb, strings.Join(q, ", "))
	if p.port != 0 {
		fmt.Fprintf(&b, "base_port = %d\n", p.port)
	}
	if p.duration.us != 0 {
		fmt.Fprintf(&b, "\n[campaign]\n# the run ends after this much virtual time (µs)\nduration = %d\n", p.duration.us)
	}
	b.WriteString("\n[invariants]\n# What must hold in every state: replace this with your own, e.g.\n")
	b.WriteString("# up = \"all i in nodes : alive(i)\"\nplaceholder = \"true\"\n")
	return b.String(), nil
}

// printRun prints a run's parameters and verdict. Under [campaign] check
// = "final" only the final state decides, so an earlier failure of a run
// that was not violated is shown as what it is: transient, not judged.
func printRun(m *model.Model, res *mcsdk.RunResult, rerun string) {
	fmt.Println(rerun)
	for _, p := range res.Params {
		fmt.Printf("  %-8s %s\n", p.Name, p.Value)
	}
	switch res.Verdict {
	case mcsdk.Holds:
		fmt.Printf("holds")
	case mcsdk.Violated:
		fmt.Printf("violated: %s", strings.Join(res.Violated, ", "))
	case mcsdk.Invalid:
		fmt.Printf("invalid: %s", res.Detail)
	case mcsdk.Error:
		fmt.Printf("error: %s", res.Detail)
	}
	fmt.Printf(" after %d steps, %s of virtual time\n", res.Steps, res.VirtualTime)
	fmt.Printf("  invariants checked: %s\n", checkedNames(m))
	if v := res.FirstViolation; v != nil {
		why := strings.ReplaceAll(v.Why, "\n", "\n    ")
		final := m.Campaign.Check == "final"
		atEnd := res.Verdict == mcsdk.Violated && res.FirstViolationStep < res.Steps
		if atEnd {
			printEndState(m, res)
		}
		if atEnd || final && !slices.Contains(res.Violated, v.Invariant) {
			fmt.Printf("  (transient, not judged: check = final) %s failed first at step %d (%s): %s\n", v.Invariant, res.FirstViolationStep, res.FirstViolationTime, why)
		} else {
			fmt.Printf("  first violation at step %d (%s): %s: %s\n", res.FirstViolationStep, res.FirstViolationTime, v.Invariant, why)
		}
	}
	printFinalPorcupine(m, res)
	if len(res.Useful) > 0 {
		fmt.Printf("  also failing (not required): %s\n", strings.Join(res.Useful, ", "))
	}
	printRefusals(os.Stdout, res.Refusals, m.NodeName)
}

// printEndState prints why each state invariant the run violated fails in
// its end state, where the verdict was judged ([campaign] check = "final":
// the run went on past its first, transient, failure). Porcupine's
// invariants are printed by printFinalPorcupine.
func printEndState(m *model.Model, res *mcsdk.RunResult) {
	for _, inv := range m.Invariants {
		if inv.Porcupine != "" || !slices.Contains(res.Violated, inv.Name) {
			continue
		}
		_, why, err := inv.Check(res.Final)
		if err != nil {
			why = err.Error()
		}
		fmt.Printf("  violated in the end state (step %d, %s): %s: %s\n", res.Steps, res.VirtualTime, inv.Name, strings.ReplaceAll(why, "\n", "\n    "))
	}
}

// printFinalPorcupine prints Porcupine's account of a linearizability
// invariant the run violated in its final state only (check = "final"):
// its first violation, if any, is then another invariant's transient one,
// which says nothing of the clients' history.
func printFinalPorcupine(m *model.Model, res *mcsdk.RunResult) {
	if res.Verdict != mcsdk.Violated || m.Workload == nil || (res.FirstViolation != nil && res.FirstViolation.Linearizability != nil) {
		return
	}
	for _, inv := range m.Invariants {
		if inv.Porcupine == "" || !slices.Contains(res.Violated, inv.Name) {
			continue
		}
		text, _, err := res.Linearizability(m)
		if err != nil {
			fmt.Printf("  %s: %v\n", inv.Name, err)
			return
		}
		fmt.Printf("  %s (final state): %s\n", inv.Name, strings.ReplaceAll(text, "\n", "\n    "))
		return
	}
}

// printRefusals lists what weft refused the nodes, once per kind: node,
// call, path or request, the answer, and the rule.
func printRefusals(w io.Writer, rs []supervisor.Refusal, name func(int) string) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "refused by weft (%d kinds):\n", len(rs))
	for _, r := range rs {
		what := ""
		if r.What != "" {
			what = " " + r.What
		}
		times := ""
		if r.Count > 1 {
			times = fmt.Sprintf(" (%d times)", r.Count)
		}
		fmt.Fprintf(w, "  %s %s%s: %s%s; rule: %s\n", name(r.Node), r.Call, what, r.Answer, times, r.Rule)
	}
}

// checkedNames lists the model's invariants, those that decide the
// verdict first ([campaign] required; all by default).
func checkedNames(m *model.Model) string {
	req := m.Campaign.Required
	var names []string
	for _, inv := range m.Invariants {
		n := inv.Name
		if len(req) > 0 && !slices.Contains(req, n) {
			n += " (not required)"
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// rerunLine is the command that repeats a run: for a model, with its
// variant and seed; for a program, its flags and command line.
func rerunLine(args []string, isModel bool, p programFlags, res *mcsdk.RunResult) string {
	if isModel {
		return fmt.Sprintf("weft run %s --variant %s --seed %d", res.Model, res.Variant, res.Seed)
	}
	line := fmt.Sprintf("weft run --seed %d", res.Seed)
	if p.nodes != 1 {
		line += fmt.Sprintf(" --nodes %d", p.nodes)
	}
	if p.port != 0 {
		line += fmt.Sprintf(" --port %d", p.port)
	}
	if p.duration.us != 0 {
		line += " --duration " + p.duration.String()
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = argQuote(a)
	}
	return line + " -- " + strings.Join(q, " ") + "   (--emit-model prints its model)"
}

// argQuote quotes an argument of a program run's command line for a
// POSIX shell (cluster.ShellQuote), leaving weft's placeholders such as {id} as
// they are: braces without a comma are not expanded.
func argQuote(a string) string {
	if strings.ContainsAny(a, "{}") && !strings.Contains(a, ",") {
		if cluster.ShellQuote(strings.NewReplacer("{", "", "}", "").Replace(a)) == strings.NewReplacer("{", "", "}", "").Replace(a) {
			return a
		}
	}
	return cluster.ShellQuote(a)
}

// linePrinter prefixes each line of node output with its node, in the
// order the scheduler produced it.
type linePrinter struct {
	out     *os.File
	partial [][]byte
}

func newLinePrinter(out *os.File, nodes int) *linePrinter {
	return &linePrinter{out: out, partial: make([][]byte, nodes)}
}

// maxLine bounds the part of a line of node output weft holds: a longer
// line is printed in pieces of maxLine bytes, each prefixed as a line. A
// node writing gigabytes without a newline had weft hold them all and
// copy them again at each write, for minutes (redteam hang-stdout).
const maxLine = 64 << 10

func (p *linePrinter) write(node int, data []byte) {
	buf := append(p.partial[node], data...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			if len(buf) < maxLine {
				break
			}
			fmt.Fprintf(p.out, "n%d| %s\n", node, buf[:maxLine])
			buf = buf[maxLine:]
			continue
		}
		fmt.Fprintf(p.out, "n%d| %s\n", node, buf[:i])
		buf = buf[i+1:]
	}
	p.partial[node] = append([]byte(nil), buf...) // not the whole write's array
}

func (p *linePrinter) flush() {
	for i, b := range p.partial {
		if len(b) > 0 {
			fmt.Fprintf(p.out, "n%d| %s\n", i, b)
		}
		p.partial[i] = nil
	}
}

// exitInterrupted is the exit code of a command stopped by SIGINT or
// SIGTERM (as campaign's).
const exitInterrupted = 130

// interruptGrace is how long a run may take to return once its node
// processes are killed before weft exits anyway.
const interruptGrace = 3 * time.Second

// interrupts watches for SIGINT and SIGTERM during a run. Asking for them
// also undoes the SIGINT-ignored disposition a shell gives a background
// job, so `weft run … &` stops on SIGINT too. From the first signal on,
// every child process (the nodes, a compiler) is killed, so the run
// returns promptly and cleans up; a second signal, or a command that does
// not return within the grace period, exits at once (the nodes die with
// weft: they are started with PR_SET_PDEATHSIG).
type interrupts struct {
	ch   chan os.Signal
	got  chan os.Signal
	done chan struct{}
}

func watchInterrupts(cmd string, stderr io.Writer, grace time.Duration) *interrupts {
	in := &interrupts{ch: make(chan os.Signal, 2), got: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		var sig os.Signal
		select {
		case sig = <-in.ch:
		case <-in.done:
			return
		}
		in.got <- sig
		// Kill again while waiting: a command of several runs (shrink)
		// may start another before it sees the interruption.
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(grace)
	wait:
		for {
			killChildren()
			select {
			case <-in.done:
				return
			case <-in.ch:
				break wait
			case <-deadline:
				break wait
			case <-tick.C:
			}
		}
		fmt.Fprintf(stderr, "weft %s: interrupted by %s: exiting without a verdict\n", cmd, signalName(sig))
		gocheck.Shutdown()
		os.Exit(exitInterrupted)
	}()
	return in
}

// stop ends the watch and returns the signal received, if any.
func (in *interrupts) stop() os.Signal {
	signal.Stop(in.ch)
	close(in.done)
	select {
	case sig := <-in.got:
		return sig
	default:
		return nil
	}
}

// interrupted reports a command stopped by sig on stderr, saying what was
// abandoned, and returns exitInterrupted.
func interrupted(cmd string, sig os.Signal, what string) (int, error) {
	fmt.Fprintf(os.Stderr, "weft %s: interrupted by %s: %s and its node processes killed\n", cmd, signalName(sig), what)
	return exitInterrupted, nil
}

func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		return unix.SignalName(s)
	}
	return sig.String()
}
