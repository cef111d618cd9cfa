package sched

import "fmt"

// Kind is the kind of a scheduler choice.
type Kind int

// Action kinds.
const (
	Deliver   Kind = iota // deliver a message in flight
	Client                // the environment's client sends a request
	Timer                 // a parked call's timeout fires
	Crash                 // kill a node (SIGKILL)
	Restart               // relaunch a crashed node
	Notice                // the environment tells Node that Req crashed
	Partition             // partition Req of the model begins (exhaustive checks)
	Heal                  // partition Req ends
	Drop                  // the network loses message Chan.Index (seeded runs)
	Dup                   // the network duplicates message Chan.Index (seeded runs)
	Expire                // client Req's pending operation passes its deadline (indeterminate)
	Run                   // thread Task of node Node runs next (an interleaving)
)

var kindNames = [...]string{"deliver", "client", "timer", "crash", "restart", "notice", "partition", "heal", "drop", "dup", "expire", "run"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Action is one choice of the scheduler at a quiescent point.
type Action struct {
	Kind  Kind
	Chan  int // Deliver: channel
	Index int // Deliver: message index within the channel
	Node  int // Timer, Crash, Restart, Notice (the node told)
	Req   int // Client: request index; Notice: the crashed node; Partition, Heal: the partition; Expire: the client
	Task  int // Run, Timer: the thread's index within its node (0 is the main thread)
}

// Network reports whether a is a fault of the network (a drop or a
// duplicate), which happens between steps and is no step of its own.
func (a Action) Network() bool { return a.Kind == Drop || a.Kind == Dup }

// String is the action's stable text form, used in recordings.
func (a Action) String() string {
	switch a.Kind {
	case Deliver, Drop, Dup:
		return fmt.Sprintf("%s %d.%d", a.Kind, a.Chan, a.Index)
	case Client:
		return fmt.Sprintf("client %d", a.Req)
	case Timer:
		if a.Task != 0 {
			return fmt.Sprintf("timer %d.%d", a.Node, a.Task)
		}
		return fmt.Sprintf("timer %d", a.Node)
	case Run:
		return fmt.Sprintf("run %d.%d", a.Node, a.Task)
	case Crash:
		return fmt.Sprintf("crash %d", a.Node)
	case Restart:
		return fmt.Sprintf("restart %d", a.Node)
	case Notice:
		return fmt.Sprintf("notice %d.%d", a.Node, a.Req)
	case Partition, Heal, Expire:
		return fmt.Sprintf("%s %d", a.Kind, a.Req)
	}
	return fmt.Sprintf("action(%d)", a.Kind)
}

// oneNumber are the kinds whose text form has one number.
var oneNumber = map[string]Kind{"client": Client, "crash": Crash, "restart": Restart, "partition": Partition, "heal": Heal, "expire": Expire}

// ParseAction parses the text form written by Action.String.
func ParseAction(s string) (Action, error) {
	var a Action
	var kind, rest string
	if _, err := fmt.Sscanf(s, "%s %s", &kind, &rest); err != nil {
		return a, fmt.Errorf("bad action %q", s)
	}
	var err error
	one := func(p *int) { _, err = fmt.Sscanf(rest, "%d", p) }
	switch kind {
	case "deliver", "drop", "dup":
		a.Kind = map[string]Kind{"deliver": Deliver, "drop": Drop, "dup": Dup}[kind]
		_, err = fmt.Sscanf(rest, "%d.%d", &a.Chan, &a.Index)
	case "timer":
		a.Kind = Timer
		if _, err = fmt.Sscanf(rest, "%d.%d", &a.Node, &a.Task); err != nil {
			a.Task = 0
			one(&a.Node)
		}
	case "run":
		a.Kind = Run
		_, err = fmt.Sscanf(rest, "%d.%d", &a.Node, &a.Task)
	case "notice":
		a.Kind = Notice
		_, err = fmt.Sscanf(rest, "%d.%d", &a.Node, &a.Req)
	default:
		// The kinds with one number: a node or an index (request,
		// partition, client).
		k, ok := oneNumber[kind]
		if !ok {
			err = fmt.Errorf("unknown kind")
			break
		}
		a.Kind = k
		if k == Crash || k == Restart {
			one(&a.Node)
		} else {
			one(&a.Req)
		}
	}
	if err != nil {
		return Action{}, fmt.Errorf("bad action %q: %v", s, err)
	}
	return a, nil
}
