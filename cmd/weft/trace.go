package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/report"
)

func init() {
	var (
		nodes   string
		vars    string
		from    int
		to      int
		asJSON  bool
		svg     string
		steps   int
		kinds   string
		threads bool
	)
	register(&command{
		name:    "trace",
		usage:   "trace REC [--nodes 0,2] [--vars succ,pred] [--kinds deliver,state] [--from STEP] [--to STEP] [--threads] [--json] [--svg FILE [--steps N]]",
		summary: "the timeline of declared state and events from a recording alone (no re-execution)",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&nodes, "nodes", "", "only these nodes (indices)")
			fs.StringVar(&vars, "vars", "", "only these declared globals")
			fs.IntVar(&from, "from", 0, "first step to show")
			fs.IntVar(&to, "to", -1, "last step to show")
			fs.BoolVar(&asJSON, "json", false, "one JSON object per event")
			fs.StringVar(&svg, "svg", "", "write the message sequence diagram to `FILE` (SVG; - for stdout) instead of the timeline")
			fs.StringVar(&kinds, "kinds", "", "only these kinds of event (deliver, send, drop, state, client, invoke, return, expire, crash, restart, partition, timer, run, …); the diagram too")
			fs.BoolVar(&threads, "threads", false, "also show thread switches (run events: which thread of a node ran, mostly a runtime's own), hidden by default")
			fs.IntVar(&steps, "steps", report.DefaultSequenceSteps, "the diagram shows only this many last steps up to the first violation (default 0: the whole run)")
		},
		run: func(args []string) (int, error) {
			if len(args) != 1 {
				return exitUsage, fmt.Errorf("want exactly one recording")
			}
			rec, err := weftlog.ReadFile(args[0])
			if err != nil {
				return exitUsage, err
			}
			keepNode := map[int]bool{}
			for _, s := range splitList(nodes) {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 || n >= rec.Header.Nodes {
					return exitUsage, fmt.Errorf("--nodes: %q is not a node of the recording (0..%d)", s, rec.Header.Nodes-1)
				}
				keepNode[n] = true
			}
			keepKind := map[string]bool{}
			for _, k := range splitList(kinds) {
				keepKind[k] = true
			}
			rec.Events = slices.DeleteFunc(rec.Events, func(e weftlog.Event) bool {
				return (len(keepKind) > 0 && !keepKind[e.Kind]) || (e.Kind == "run" && !threads && !keepKind["run"])
			})
			if svg != "" {
				rec.Events = slices.DeleteFunc(rec.Events, func(e weftlog.Event) bool {
					return e.Step < from || (to >= 0 && e.Step > to) || !nodeKept(keepNode, e)
				})
				return writeSequence(rec, svg, steps)
			}
			keepVar := map[string]bool{}
			for _, v := range splitList(vars) {
				keepVar[v] = true
			}
			h := rec.Header
			if !asJSON {
				fmt.Printf("# %s variant %s seed %d; %s", h.Model, h.Variant, h.Seed, rec.Verdict.Verdict)
				fmt.Print(verdictSuffix(rec))
				fmt.Println()
				if len(rec.Verdict.Violated) > 0 && rec.Verdict.Detail != "" {
					fmt.Printf("# %s\n", strings.ReplaceAll(rec.Verdict.Detail, "\n", "\n# "))
				}
				if len(h.Roles) > 0 {
					fmt.Printf("# roles %s\n", roleList(h.Roles))
				}
				for _, p := range h.Params {
					fmt.Printf("# %s %s\n", p.Name, p.Value)
				}
				fmt.Printf("%6s %10s  %s\n", "step", "t(ms)", "event")
			}
			enc := json.NewEncoder(os.Stdout)
			for _, e := range rec.Events {
				if e.Step < from || (to >= 0 && e.Step > to) {
					continue
				}
				if !nodeKept(keepNode, e) {
					continue
				}
				if e.Kind == "state" && len(keepVar) > 0 && !keepVar[e.Var] {
					continue
				}
				if (e.Kind == "deliver" || e.Kind == "send" || e.Kind == "drop" || e.Kind == "timer") && len(keepVar) > 0 {
					continue
				}
				if asJSON {
					enc.Encode(e)
					continue
				}
				mark := stepMark(rec.Verdict, e.Step)
				fmt.Printf("%6d %10.3f  %s%s\n", e.Step, float64(e.T)/1000, eventText(e), mark)
			}
			return exitHolds, nil
		},
	})
}

// verdictSuffix completes trace's header after the verdict: which
// invariants were violated and where they were judged: at the first
// violation, which ended the run, or in the end state ([campaign] check =
// "final"), where a first failure earlier was transient; a Porcupine
// invariant among them is judged on the whole history.
func verdictSuffix(rec *weftlog.Recording) string {
	v := rec.Verdict
	if len(v.Violated) == 0 {
		return ""
	}
	s := " " + strings.Join(v.Violated, ",")
	if !report.EndJudged(v) {
		return s + fmt.Sprintf(" (first at step %d)", v.FirstViolationStep)
	}
	s += fmt.Sprintf(" in the end state (step %d; check = final: a required invariant failed first, transiently, at step %d)", v.Steps, v.FirstViolationStep)
	for _, p := range rec.Header.Params {
		name, text, _ := strings.Cut(p.Value, ": ")
		if p.Name == "porcupine" && slices.Contains(v.Violated, name) && strings.HasPrefix(text, "not linearizable") {
			s += fmt.Sprintf("; %s: the clients' history is not linearizable", name)
		}
	}
	return s
}

// stepMark marks the timeline line of step: the first violation that
// ended the run, or, when the verdict was judged in the end state, the
// transient first failure and the end state.
func stepMark(v weftlog.Verdict, step int) string {
	switch {
	case v.FirstViolationStep < 0:
		return ""
	case report.EndJudged(v) && step == v.Steps:
		return "   ← end state: violated"
	case step != v.FirstViolationStep:
		return ""
	case v.Verdict == "violated" && !report.EndJudged(v):
		return "   ← first violation"
	}
	return "   ← a required invariant fails (transient: check = final judges the end state)"
}

// nodeKept reports whether e concerns a node of keep (all when empty): its
// node, or either end of a message.
func nodeKept(keep map[int]bool, e weftlog.Event) bool {
	return len(keep) == 0 || keep[e.Node] || (e.Kind == "deliver" || e.Kind == "send" || e.Kind == "drop") && keep[e.Peer]
}

// writeSequence writes rec's sequence diagram to path ("-": stdout).
func writeSequence(rec *weftlog.Recording, path string, steps int) (int, error) {
	if steps < 0 {
		return exitUsage, fmt.Errorf("--steps %d: want 0 (all) or more", steps)
	}
	b, err := report.SequenceSVG(rec, steps)
	if err != nil {
		return exitUsage, err
	}
	if path == "-" {
		_, err = os.Stdout.Write(b)
	} else {
		err = report.WriteFile(path, b)
	}
	if err != nil {
		return exitUsage, err
	}
	return exitHolds, nil
}

func eventText(e weftlog.Event) string {
	switch e.Kind {
	case "state":
		return fmt.Sprintf("n%d.%s = %s", e.Node, e.Var, e.Value)
	case "deliver":
		what := fmt.Sprintf("%dB", e.Bytes)
		if e.Value != "" {
			what = e.Value
		}
		if e.Node < 0 {
			return fmt.Sprintf("deliver n%d→nobody %s", e.Peer, what)
		}
		return fmt.Sprintf("deliver n%d→n%d %s", e.Peer, e.Node, what)
	case "send":
		return fmt.Sprintf("send n%d→%s %dB", e.Node, peerName(e.Peer), e.Bytes)
	case "drop":
		return fmt.Sprintf("LOST n%d→%s %dB (the network dropped it)", e.Node, peerName(e.Peer), e.Bytes)
	case "partition", "heal":
		return fmt.Sprintf("%s %s", strings.ToUpper(e.Kind), e.Value)
	case "invalid":
		return fmt.Sprintf("INVALID crash of n%d: %s", e.Node, e.Value)
	case "crash", "restart":
		return fmt.Sprintf("%s n%d", strings.ToUpper(e.Kind), e.Node)
	case "notice":
		return fmt.Sprintf("notice to n%d: n%d died", e.Node, e.Peer)
	case "clock": // a step of a node's realtime clock
		return fmt.Sprintf("CLOCK JUMP n%d %s", e.Node, e.Value)
	case "invoke", "return", "expire": // the clients' history
		return fmt.Sprintf("%s %s %s at n%d", e.Kind, e.Var, e.Value, e.Node)
	case "run", "timer":
		if e.Value != "" { // a thread: n1/t2
			return fmt.Sprintf("%s %s", e.Kind, e.Value)
		}
	}
	return fmt.Sprintf("%s n%d", e.Kind, e.Node)
}

// peerName names a message's receiver; -1 is the environment (or nobody
// listening).
func peerName(n int) string {
	if n < 0 {
		return "env"
	}
	return fmt.Sprintf("n%d", n)
}
