// Package mcsdk is weft's public SDK: load a model, check it exhaustively,
// run it from a seed, and read the verdicts.
//
//	m, err := model.Load("targets/repl/repl.model")
//	res, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: "bug"})
//	fmt.Println(res.Verdict, res.Violation.Summary)
//
// Every run is a pure function of (model, variant binary, choices): Check
// explores the choices exhaustively with stateless replay; the supervisor
// makes sure nothing else reaches a node.
package mcsdk

import (
	"github.com/weft-mc/weft/mcsdk/sched"
)

// Verdict is the outcome of a check or run.
type Verdict string

// Verdicts, with the exit codes of the CLI contract.
const (
	Holds    Verdict = "holds"    // exit 0
	Violated Verdict = "violated" // exit 1
	Error    Verdict = "error"    // exit 2: unsupported syscall, watchdog, tool fault
	Invalid  Verdict = "invalid"  // exit 3: a fault precondition was broken
)

// ExitCode is the CLI exit code for v.
func (v Verdict) ExitCode() int {
	switch v {
	case Holds:
		return 0
	case Violated:
		return 1
	case Invalid:
		return 3
	}
	return 2
}

// Action is one scheduler choice (deliver a message, send a client
// request, fire a timer, crash a node).
type Action = sched.Action

// ParseAction parses an action's text form ("deliver 2.0", "client 0").
func ParseAction(s string) (Action, error) { return sched.ParseAction(s) }
