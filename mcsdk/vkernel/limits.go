package vkernel

import (
	"fmt"
	"strings"
)

// Virtual resource limits (issue 36 §3). A node reads and sets its
// limits (getrlimit(2), setrlimit(2), prlimit64(2)) in a table of its
// own, Limits, that starts at fixed defaults whatever the host's limits
// are: RLIMIT_NPROC is the node's bound on live processes and threads,
// RLIMIT_NOFILE 65536 (NofileDefault), RLIMIT_STACK 8 MiB, and so on
// (NewLimits). As Linux's, a soft limit may not exceed its hard limit
// (EINVAL) and a hard limit may be lowered but never raised again (EPERM:
// a node holds no CAP_SYS_RESOURCE over its virtual limits).

// Resource is a resource of getrlimit(2), numbered as Linux numbers them.
type Resource int

// The resources.
const (
	RlimitCPU        Resource = 0
	RlimitFSIZE      Resource = 1
	RlimitDATA       Resource = 2
	RlimitSTACK      Resource = 3
	RlimitCORE       Resource = 4
	RlimitRSS        Resource = 5
	RlimitNPROC      Resource = 6
	RlimitNOFILE     Resource = 7
	RlimitMEMLOCK    Resource = 8
	RlimitAS         Resource = 9
	RlimitLOCKS      Resource = 10
	RlimitSIGPENDING Resource = 11
	RlimitMSGQUEUE   Resource = 12
	RlimitNICE       Resource = 13
	RlimitRTPRIO     Resource = 14
	RlimitRTTIME     Resource = 15
	NumResources              = 16
)

// Infinity is RLIM_INFINITY.
const Infinity = ^uint64(0)

// Rlimit is one resource's soft (Cur) and hard (Max) limit.
type Rlimit struct {
	Cur, Max uint64
}

// NofileDefault is RLIMIT_NOFILE's soft and hard limit. They are equal
// so that Go's runtime, which raises its soft limit to the hard one at
// start, makes no call (a node's schedule stays that of a host whose
// limits are equal), and large enough for a server's usual request
// (redis asks for 10032) while a loop that closes every descriptor up
// to the limit stays short.
const NofileDefault = 65536

// SigPendingMax is the virtual RLIMIT_SIGPENDING (and /proc's SigQ limit).
const SigPendingMax = 15392

// resourceInfo names a resource as /proc/PID/limits does, with its unit
// and default.
var resourceInfo = [NumResources]struct {
	name, unit string
	def        Rlimit
}{
	RlimitCPU:        {"Max cpu time", "seconds", Rlimit{Infinity, Infinity}},
	RlimitFSIZE:      {"Max file size", "bytes", Rlimit{Infinity, Infinity}},
	RlimitDATA:       {"Max data size", "bytes", Rlimit{Infinity, Infinity}},
	RlimitSTACK:      {"Max stack size", "bytes", Rlimit{8 << 20, Infinity}},
	RlimitCORE:       {"Max core file size", "bytes", Rlimit{0, Infinity}},
	RlimitRSS:        {"Max resident set", "bytes", Rlimit{Infinity, Infinity}},
	RlimitNPROC:      {"Max processes", "processes", Rlimit{}},
	RlimitNOFILE:     {"Max open files", "files", Rlimit{NofileDefault, NofileDefault}},
	RlimitMEMLOCK:    {"Max locked memory", "bytes", Rlimit{8 << 20, 8 << 20}},
	RlimitAS:         {"Max address space", "bytes", Rlimit{Infinity, Infinity}},
	RlimitLOCKS:      {"Max file locks", "locks", Rlimit{Infinity, Infinity}},
	RlimitSIGPENDING: {"Max pending signals", "signals", Rlimit{SigPendingMax, SigPendingMax}},
	RlimitMSGQUEUE:   {"Max msgqueue size", "bytes", Rlimit{819200, 819200}},
	RlimitNICE:       {"Max nice priority", "", Rlimit{0, 0}},
	RlimitRTPRIO:     {"Max realtime priority", "", Rlimit{0, 0}},
	RlimitRTTIME:     {"Max realtime timeout", "us", Rlimit{Infinity, Infinity}},
}

// Limits is one node's virtual resource limits. The zero value is not
// usable; use NewLimits.
type Limits struct {
	lim [NumResources]Rlimit
}

// NewLimits returns the default limits of a node whose bound on live
// processes and threads is maxTasks (RLIMIT_NPROC, soft and hard).
func NewLimits(maxTasks int) *Limits {
	l := &Limits{}
	for r := range l.lim {
		l.lim[r] = resourceInfo[r].def
	}
	l.lim[RlimitNPROC] = Rlimit{uint64(maxTasks), uint64(maxTasks)}
	return l
}

// Get returns resource r's limits (EINVAL for an unknown resource).
func (l *Limits) Get(r Resource) (Rlimit, error) {
	if r < 0 || r >= NumResources {
		return Rlimit{}, EINVAL
	}
	return l.lim[r], nil
}

// Set sets resource r's limits to nw and returns the old ones: EINVAL for
// an unknown resource or a soft limit above the hard one, EPERM for a
// hard limit above the current hard limit; a refused call changes
// nothing.
func (l *Limits) Set(r Resource, nw Rlimit) (Rlimit, error) {
	old, err := l.Get(r)
	switch {
	case err != nil:
		return Rlimit{}, err
	case nw.Cur > nw.Max:
		return Rlimit{}, EINVAL
	case nw.Max > old.Max:
		return Rlimit{}, EPERM
	}
	l.lim[r] = nw
	return old, nil
}

// Clone is a copy of l, which changes independently of it (fork(2): a
// child's limits start as its parent's).
func (l *Limits) Clone() *Limits {
	c := *l
	return &c
}

// ProcLimits is /proc/PID/limits of the table, as Linux writes it.
func (l *Limits) ProcLimits() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit", "Hard Limit", "Units")
	for r, info := range resourceInfo {
		fmt.Fprintf(&b, "%-25s %-20s %-20s %-10s\n", info.name, limitText(l.lim[r].Cur), limitText(l.lim[r].Max), info.unit)
	}
	return []byte(b.String())
}

func limitText(v uint64) string {
	if v == Infinity {
		return "unlimited"
	}
	return fmt.Sprint(v)
}
