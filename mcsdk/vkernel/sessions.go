package vkernel

import "slices"

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

// Member is one process's place in its node's sessions.
type Member struct {
	Pid    int64 // virtual pid
	Parent int64 // its parent's virtual pid; 1 (outside the node) for the main process and orphans
	Pgid   int64 // its process group
	Sid    int64 // its session
	Execed bool  // it called execve since its fork: its parent's setpgid is EACCES
	Zombie bool  // it ended and is not reaped yet: still a member of its group
}

// Sessions is one node's table of process groups and sessions: one
// Member per process not yet reaped, in fork order, the main process
// first. The zero value is not usable; use NewSessions.
type Sessions struct {
	procs []Member
}

// NewSessions returns the table of a node whose main process has
// virtual pid main: it leads group main in session Session.
func NewSessions(main int64) *Sessions {
	return &Sessions{procs: []Member{{Pid: main, Parent: 1, Pgid: main, Sid: Session}}}
}

func (s *Sessions) index(pid int64) int {
	return slices.IndexFunc(s.procs, func(m Member) bool { return m.Pid == pid })
}

// Member returns process pid's record.
func (s *Sessions) Member(pid int64) (Member, bool) {
	if i := s.index(pid); i >= 0 {
		return s.procs[i], true
	}
	return Member{}, false
}

// Members lists the table, in fork order.
func (s *Sessions) Members() []Member { return slices.Clone(s.procs) }

// Fork records child, forked by parent: it is in its parent's group and
// session.
func (s *Sessions) Fork(parent, child int64) {
	m := Member{Pid: child, Parent: parent, Pgid: parent, Sid: Session}
	if p, ok := s.Member(parent); ok {
		m.Pgid, m.Sid = p.Pgid, p.Sid
	}
	if i := s.index(child); i >= 0 { // a pid is reused only after its process was reaped
		s.procs[i] = m
		return
	}
	s.procs = append(s.procs, m)
}

// Exec records that pid called execve: its group and session stay.
func (s *Sessions) Exec(pid int64) {
	if i := s.index(pid); i >= 0 {
		s.procs[i].Execed = true
	}
}

// Exit records the end of pid: a zombie, still in its group until its
// parent reaps it. Its children become orphans, children of pid 1
// outside the node, which reaps those already ended.
func (s *Sessions) Exit(pid int64) {
	if i := s.index(pid); i >= 0 {
		s.procs[i].Zombie = true
	}
	s.procs = slices.DeleteFunc(s.procs, func(m Member) bool { return m.Parent == pid && m.Zombie })
	for i := range s.procs {
		if s.procs[i].Parent == pid {
			s.procs[i].Parent = 1
		}
	}
}

// Reap forgets pid: its parent waited for it (or nobody will).
func (s *Sessions) Reap(pid int64) {
	s.procs = slices.DeleteFunc(s.procs, func(m Member) bool { return m.Pid == pid })
}

// lookup resolves a pid argument of getpgid, getsid and setpgid: 0 is
// the caller, any other a process of the table (ESRCH otherwise: a pid
// outside the node names nothing).
func (s *Sessions) lookup(caller, pid int64) (Member, Errno) {
	if pid == 0 {
		pid = caller
	}
	if m, ok := s.Member(pid); ok {
		return m, 0
	}
	return Member{}, ESRCH
}

// Getpgid answers getpgid(2) for caller: pid's process group.
func (s *Sessions) Getpgid(caller, pid int64) (int64, Errno) {
	m, e := s.lookup(caller, pid)
	return m.Pgid, e
}

// Getsid answers getsid(2) for caller: pid's session.
func (s *Sessions) Getsid(caller, pid int64) (int64, Errno) {
	m, e := s.lookup(caller, pid)
	return m.Sid, e
}

// groupExists reports whether some process of the table (a zombie too)
// is in process group pgid, and that process's session.
func (s *Sessions) groupExists(pgid int64) (sid int64, ok bool) {
	for _, m := range s.procs {
		if m.Pgid == pgid {
			return m.Sid, true
		}
	}
	return 0, false
}

// Setsid answers setsid(2) for caller: a new session and process group,
// both its pid, which it returns; EPERM when a process group with the
// caller's id exists already (it leads one, or once did and a member
// remains).
func (s *Sessions) Setsid(caller int64) (int64, Errno) {
	i := s.index(caller)
	if i < 0 {
		return 0, ESRCH
	}
	if _, ok := s.groupExists(caller); ok {
		return 0, EPERM
	}
	s.procs[i].Pgid, s.procs[i].Sid = caller, caller
	return caller, 0
}

// Setpgid answers setpgid(2) for caller, in the kernel's order of
// checks: pid 0 is the caller, pgid 0 is pid; a negative pgid is EINVAL;
// pid must be the caller or a child of the caller (ESRCH), a child in
// the caller's session (EPERM) that has not called execve (EACCES); a
// session leader may not move (EPERM); and a pgid other than pid must
// name a group of the caller's session (EPERM).
func (s *Sessions) Setpgid(caller, pid, pgid int64) Errno {
	if pid == 0 {
		pid = caller
	}
	if pgid == 0 {
		pgid = pid
	}
	if pgid < 0 {
		return EINVAL
	}
	me, ok := s.Member(caller)
	if !ok {
		return ESRCH
	}
	i := s.index(pid)
	if i < 0 {
		return ESRCH
	}
	p := s.procs[i]
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
		if sid, ok := s.groupExists(pgid); !ok || sid != me.Sid {
			return EPERM
		}
	}
	s.procs[i].Pgid = pgid
	return 0
}

// KillTargets resolves kill(2)'s pid argument when it names more than
// one process: 0 the caller's process group, -1 every process of the
// node but the caller (pid 1, outside the node, is never one), -pgid
// that group. It returns the processes to signal in fork order, zombies
// included (they take a signal to no effect, as on Linux); ESRCH when
// none. A positive pid is one process: EINVAL here.
func (s *Sessions) KillTargets(caller, pid int64) ([]int64, Errno) {
	var sel func(Member) bool
	switch {
	case pid > 0:
		return nil, EINVAL
	case pid == -1:
		sel = func(m Member) bool { return m.Pid != caller }
	default:
		pgid := -pid
		if pid == 0 {
			me, ok := s.Member(caller)
			if !ok {
				return nil, ESRCH
			}
			pgid = me.Pgid
		}
		sel = func(m Member) bool { return m.Pgid == pgid }
	}
	var out []int64
	for _, m := range s.procs {
		if sel(m) {
			out = append(out, m.Pid)
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
func (s *Sessions) Selects(caller, pid, child int64) bool {
	switch {
	case pid > 0:
		return child == pid
	case pid == -1:
		return true
	}
	c, ok := s.Member(child)
	if !ok {
		return false
	}
	if pid == 0 {
		me, ok := s.Member(caller)
		return ok && c.Pgid == me.Pgid
	}
	return c.Pgid == -pid
}

// Default reports whether every process is still in the main process's
// group and in session 1, as a node starts.
func (s *Sessions) Default() bool {
	if len(s.procs) == 0 {
		return true
	}
	main := s.procs[0].Pid
	for _, m := range s.procs {
		if m.Pgid != main || m.Sid != Session {
			return false
		}
	}
	return true
}

// Digest puts the table for the world's state hash: every process's
// pid, parent, group, session and whether it exec'd or ended.
func (s *Sessions) Digest(put func(uint64)) {
	put(uint64(len(s.procs)))
	for _, m := range s.procs {
		put(uint64(m.Pid))
		put(uint64(m.Parent))
		put(uint64(m.Pgid))
		put(uint64(m.Sid))
		put(uint64(boolInt(m.Execed) | boolInt(m.Zombie)<<1))
	}
}
