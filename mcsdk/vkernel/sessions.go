package vkernel

// Sessions and process groups (credentials(7), setsid(2), setpgid(2)):
// every process of a node's tree has a virtual process group id and
// session id, inherited at fork, kept across execve, changed only by
// setsid and setpgid with Linux's rules. They are virtual only: on the
// host every process of the node stays in the node's own process group,
// so no group a node makes or names is a host group, and signalling a
// group (kill(-pgid), kill(0), kill(-1)) is signalling each member the
// table lists, one by one.
//
// The node's main process leads its own process group (its pid) in
// session 1, the session of its virtual parent pid 1, which is outside
// the node: this is what the host does (the launcher makes it a group
// leader, not a session leader), what a shell does for a job, and what
// getsid has always answered. Being a group leader, it may not call
// setsid (EPERM, as Linux); its children may.
//
// The groups are kept in the process table (Process.Pgid, Sid, Execed),
// the one record of the tree: a process is a member of its group from
// its fork until it is reaped (a zombie too, as on Linux), and its
// parent is the table's.

// member returns the record of process pid if it is not reaped yet (a
// member of its group), nil otherwise.
func (t *ProcTable) member(pid int64) *Process {
	for _, p := range t.procs {
		if p.Pid == pid && p.State != Reaped {
			return p
		}
	}
	return nil
}

// Members lists the processes not reaped yet, in fork order: every
// member of a group.
func (t *ProcTable) Members() []*Process {
	var out []*Process
	for _, p := range t.procs {
		if p.State != Reaped {
			out = append(out, p)
		}
	}
	return out
}

// Exec records that pid called execve: its group and session stay, as
// does its ITIMER_REAL; its POSIX timers are deleted (SigTimers.Exec).
func (t *ProcTable) Exec(pid int64) {
	if p := t.member(pid); p != nil {
		p.Execed = true
		p.Timers.Exec()
	}
}

// lookup resolves a pid argument of getpgid, getsid and setpgid: 0 is
// the caller, any other a process of the table not reaped (ESRCH
// otherwise: a pid outside the node names nothing).
func (t *ProcTable) lookup(caller, pid int64) (*Process, Errno) {
	if pid == 0 {
		pid = caller
	}
	if p := t.member(pid); p != nil {
		return p, 0
	}
	return nil, ESRCH
}

// Getpgid answers getpgid(2) for caller: pid's process group.
func (t *ProcTable) Getpgid(caller, pid int64) (int64, Errno) {
	p, e := t.lookup(caller, pid)
	if e != 0 {
		return 0, e
	}
	return p.Pgid, 0
}

// Getsid answers getsid(2) for caller: pid's session.
func (t *ProcTable) Getsid(caller, pid int64) (int64, Errno) {
	p, e := t.lookup(caller, pid)
	if e != 0 {
		return 0, e
	}
	return p.Sid, 0
}

// groupExists reports whether some process not reaped (a zombie too) is
// in process group pgid, and that process's session.
func (t *ProcTable) groupExists(pgid int64) (sid int64, ok bool) {
	for _, p := range t.procs {
		if p.State != Reaped && p.Pgid == pgid {
			return p.Sid, true
		}
	}
	return 0, false
}

// Setsid answers setsid(2) for caller: a new session and process group,
// both its pid, which it returns; EPERM when a process group with the
// caller's id exists already (it leads one, or once did and a member
// remains).
func (t *ProcTable) Setsid(caller int64) (int64, Errno) {
	p := t.member(caller)
	if p == nil {
		return 0, ESRCH
	}
	if _, ok := t.groupExists(caller); ok {
		return 0, EPERM
	}
	p.Pgid, p.Sid = caller, caller
	return caller, 0
}

// Setpgid answers setpgid(2) for caller, in the kernel's order of
// checks: pid 0 is the caller, pgid 0 is pid; a negative pgid is EINVAL;
// pid must be the caller or a child of the caller (ESRCH), a child in
// the caller's session (EPERM) that has not called execve (EACCES); a
// session leader may not move (EPERM); and a pgid other than pid must
// name a group of the caller's session (EPERM).
func (t *ProcTable) Setpgid(caller, pid, pgid int64) Errno {
	if pid == 0 {
		pid = caller
	}
	if pgid == 0 {
		pgid = pid
	}
	if pgid < 0 {
		return EINVAL
	}
	me := t.member(caller)
	if me == nil {
		return ESRCH
	}
	p := t.member(pid)
	if p == nil {
		return ESRCH
	}
	switch {
	case p.Parent == caller && p.Pid != caller:
		if p.Sid != me.Sid {
			return EPERM
		}
		if p.Execed {
			return EACCES
		}
	case p.Pid != caller:
		return ESRCH
	}
	if p.Sid == p.Pid {
		return EPERM // a session leader
	}
	if pgid != pid {
		if sid, ok := t.groupExists(pgid); !ok || sid != me.Sid {
			return EPERM
		}
	}
	p.Pgid = pgid
	return 0
}

// KillTargets resolves kill(2)'s pid argument when it names more than
// one process: 0 the caller's process group, -1 every process of the
// node but the caller (pid 1, outside the node, is never one), -pgid
// that group. It returns the processes to signal in fork order, zombies
// included (they take a signal to no effect, as on Linux); ESRCH when
// none. A positive pid is one process: EINVAL here.
func (t *ProcTable) KillTargets(caller, pid int64) ([]int64, Errno) {
	var sel func(*Process) bool
	switch {
	case pid > 0:
		return nil, EINVAL
	case pid == -1:
		sel = func(p *Process) bool { return p.Pid != caller }
	default:
		pgid := -pid
		if pid == 0 {
			me := t.member(caller)
			if me == nil {
				return nil, ESRCH
			}
			pgid = me.Pgid
		}
		sel = func(p *Process) bool { return p.Pgid == pgid }
	}
	var out []int64
	for _, p := range t.Members() {
		if sel(p) {
			out = append(out, p.Pid)
		}
	}
	if len(out) == 0 {
		return nil, ESRCH
	}
	return out, 0
}

// Selects reports whether wait4's pid argument, asked by caller, selects
// its child: a positive pid that child, -1 any child, 0 a child in the
// caller's process group, -pgid a child in group pgid (the child's group
// now, as the kernel looks it up at each wait).
func (t *ProcTable) Selects(caller, pid, child int64) bool {
	switch {
	case pid > 0:
		return child == pid
	case pid == -1:
		return true
	}
	c := t.member(child)
	if c == nil {
		return false
	}
	if pid == 0 {
		me := t.member(caller)
		return me != nil && c.Pgid == me.Pgid
	}
	return c.Pgid == -pid
}

// SessionsDigest puts the groups for the world's state hash: the number
// of processes not reaped, then for each, in fork order, its pid, parent
// (1 for none in the node), group, session and whether it exec'd or
// ended.
func (t *ProcTable) SessionsDigest(put func(uint64)) {
	ms := t.Members()
	put(uint64(len(ms)))
	for _, p := range ms {
		put(uint64(p.Pid))
		parent := p.Parent
		if parent == 0 {
			parent = 1
		}
		put(uint64(parent))
		put(uint64(p.Pgid))
		put(uint64(p.Sid))
		put(uint64(boolInt(p.Execed) | boolInt(p.State == Zombie)<<1))
	}
}
