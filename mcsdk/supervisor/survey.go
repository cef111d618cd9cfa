package supervisor

// SyscallUse is how one node used one syscall during a run and how weft
// answered it: what `weft run --syscalls` shows, so that a user sees at
// once what their binary needs.
// A restarted node's rows count all its lives; the execve of each launch
// is weft's, not the node's, and is not counted.
type SyscallUse struct {
	Node int    `json:"node"`
	Name string `json:"name"`
	Nr   int    `json:"nr"`
	// Decision is the syscall table's row: "served", "passthrough",
	// "refused" or "unsupported".
	Decision string `json:"decision"`
	// Count is the number of calls weft saw (notified calls); it is exact.
	// Passthrough calls are allowed by the filter and never seen unless
	// the world notifies everything (Config.NotifyAll).
	Count int `json:"count"`
	// Served calls were answered by weft with a value, Kernel calls were
	// let through to the kernel (a file write, an mmap), Errors were
	// answered with an errno (by a handler, or by the table's refusal),
	// Failed ended the run, and Pending were parked when the survey was
	// taken.
	Served  int      `json:"served"`
	Kernel  int      `json:"kernel"`
	Errors  []ErrnoN `json:"errors,omitempty"`
	Failed  int      `json:"failed"`
	Pending int      `json:"pending"`
	Note    string   `json:"note,omitempty"` // the table's note, or why the run ended here
	_       struct{} // may grow
}

// ErrnoN is how many calls were answered with one errno.
type ErrnoN struct {
	Errno string `json:"errno"`
	N     int    `json:"n"`
}

// Refusal is one kind of call weft refused a node, reported once per run
// however often the node repeated it: a write outside its run directory,
// a call the syscall table refuses, or a call weft does not model (which
// ends the run).
type Refusal struct {
	Node int    `json:"node"`
	Call string `json:"call"`
	// What is the path or request refused ("" when the call is refused
	// whatever its arguments).
	What string `json:"what,omitempty"`
	// Answer is the errno the node got, or "run ended" for a call weft
	// does not model.
	Answer string `json:"answer"`
	Rule   string `json:"rule"` // weft's rule that refused it
	Count  int    `json:"count"`
	_      struct{}
}
