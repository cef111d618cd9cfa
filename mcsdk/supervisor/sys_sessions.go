//go:build linux && amd64

package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Sessions and process groups at the edge: the calls decode their
// arguments and ask the node's process table (vkernel.ProcTable, the one
// record of the tree: parents, ends and every process's virtual group and
// session; vkernel/sessions.go has the rules). Nothing changes on the
// host: every process of a node stays in the node's host process group,
// and a group is signalled by signalling each of its members.

// sessions is the table node n's groups are read from and changed in:
// its process table, or, for a node that never forked, an empty one (its
// main process alone, leading its group in session 1: no call can
// change that before a fork, since setsid is EPERM for a group leader
// and the only group setpgid could name is its own). The node's groups
// are hashed from the first call that asks them on (groupsAsked), as
// when they were a table of their own made at first use.
func (n *node) sessions() *vkernel.ProcTable {
	n.groupsAsked = true
	return n.procTable()
}

// sessErr answers a refusal of the table.
func sessErr(e vkernel.Errno) result { return errno(unix.Errno(e)) }

// sessPid reads argument i as a pid of getpgid(2) or getsid(2): a
// thread id names the thread's process, as the kernel's lookup does.
func (c *call) sessPid(i int) int64 {
	pid := int64(int32(c.arg(i)))
	if pid > 0 {
		if th, r := c.ids().Thread(pid); r == vkernel.OK {
			return th.Pid
		}
	}
	return pid
}

// Getpgrp implements getpgrp(2): the caller's process group.
func sysGetpgrp(c *call) result {
	g, _ := c.n.sessions().Getpgid(c.n.vpid(), 0)
	return ret(g)
}

// Getpgid implements getpgid(2) for the processes (and threads) of the
// node; any other pid is ESRCH.
func sysGetpgid(c *call) result {
	g, e := c.n.sessions().Getpgid(c.n.vpid(), c.sessPid(0))
	if e != 0 {
		return sessErr(e)
	}
	return ret(g)
}

// Getsid implements getsid(2) as getpgid.
func sysGetsid(c *call) result {
	s, e := c.n.sessions().Getsid(c.n.vpid(), c.sessPid(0))
	if e != 0 {
		return sessErr(e)
	}
	return ret(s)
}

// Setsid implements setsid(2): a new session and group for a process
// that leads no group (EPERM for the node's main process, which does).
func sysSetsid(c *call) result {
	s, e := c.n.sessions().Setsid(c.n.vpid())
	if e != 0 {
		return sessErr(e)
	}
	c.groupChanged(c.n.vpid())
	return ret(s)
}

// Setpgid implements setpgid(2) on the caller and its children.
func sysSetpgid(c *call) result {
	pid, pgid := int64(int32(c.arg(0))), int64(int32(c.arg(1)))
	if e := c.n.sessions().Setpgid(c.n.vpid(), pid, pgid); e != 0 {
		return sessErr(e)
	}
	if pid == 0 {
		pid = c.n.vpid()
	}
	c.groupChanged(pid)
	return ret(0)
}

// groupChanged marks, after process pid's group may have changed, the
// children of its parent, whose wait4(0) or wait4(-pgid) selects by its
// group, and its own, whose wait4(0) selects by its group (childrenKey).
func (c *call) groupChanged(pid int64) {
	c.w.mark(childrenKey(c.n, pid))
	if p := c.n.sessions().Process(pid); p != nil && p.Parent != 0 {
		c.w.mark(childrenKey(c.n, p.Parent))
	}
}

// killGroup implements kill(2) for a pid that names a group: 0 the
// caller's, -1 every other process of the node, -pgid that group. Each
// member is signalled as kill(pid) would (signalProc), the caller last;
// a zombie takes it to no effect. A group outside the node has no
// members: ESRCH.
func (c *call) killGroup(pid int64, sig int) result {
	if !vkernel.ValidSignal(sig) {
		return errno(unix.EINVAL)
	}
	me := c.n.vpid()
	pids, e := c.n.sessions().KillTargets(me, pid)
	if e != 0 {
		return sessErr(e)
	}
	self := false
	for _, v := range pids {
		if v == me {
			self = true
			continue
		}
		p := c.treeProc(int32(v))
		if p == nil || p.ended() {
			continue
		}
		if r := c.signalProc(p, sig); r.kind != rReturn || r.errno != 0 {
			return r
		}
	}
	if self {
		return c.killSelf(sig)
	}
	return ret(0)
}

// hashSessions puts the groups of a node with a process table once a
// call asked them (a fork always does: the child's group is its
// parent's); before, every process is in the default groups, hashed as
// nothing.
func (n *node) hashSessions(put func(uint64)) {
	if n.groupsAsked && n.ptab != nil {
		n.ptab.SessionsDigest(put)
	}
}
