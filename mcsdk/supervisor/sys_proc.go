//go:build linux && amd64

package supervisor

import "golang.org/x/sys/unix"

// Nodes see virtual process ids, so nothing about the host's pid
// allocation reaches them: node i is pid 100+i, and its parent is pid 1.
const virtualPidBase = 100

// Getpid implements getpid(2): the calling process's virtual pid.
func sysGetpid(c *call) result { return ret(c.n.vpid()) }

// Getpgrp implements getpgrp(2): every process of a node's tree is in
// the node's group.
func sysGetpgrp(c *call) result { return ret(c.n.group()) }

// Getppid implements getppid(2): a child's parent in the node's tree, or
// pid 1 (outside the node) for the main process and orphans.
func sysGetppid(c *call) result {
	if p := c.t.p; p != nil && p.parent != nil {
		return ret(p.parent.vpid)
	}
	return ret(1)
}

// Rseq implements rseq(2) by refusing it: a registered rseq area holds the
// CPU the thread last ran on, which the kernel rewrites on every return to
// user space. glibc falls back to not using rseq.
func sysRseq(c *call) result { return errno(unix.ENOSYS) }

// vpid is the node's virtual pid (and its main thread's tid); while a
// child process's call is served, that process's pid (enterProc).
func (n *node) vpid() int64 {
	if n.self != nil {
		return n.self.vpid
	}
	return virtualPidBase + int64(n.id)
}

// isSelf reports whether a pid argument names the node: 0 or its pid.
func (c *call) isSelf(i int) bool {
	pid := int32(c.arg(i))
	return pid == 0 || pid == int32(c.n.vpid())
}

// group is the node's process group id: its main process's virtual pid.
// Every process of the node's tree is in it.
func (n *node) group() int64 { return virtualPidBase + int64(n.id) }

// inTree reports whether pid names a process of the node's tree that has
// not been reaped.
func (c *call) inTree(pid int32) bool {
	for _, p := range c.n.procs {
		if int32(p.vpid) == pid && !p.gone {
			return true
		}
	}
	return false
}

// Getpgid implements getpgid(2): each node leads its own process group
// (the launcher starts it with setpgid), whose id is its virtual pid;
// the processes of its tree are in it too.
func sysGetpgid(c *call) result {
	if !c.isSelf(0) && !c.inTree(int32(c.arg(0))) {
		return errno(unix.ESRCH)
	}
	return ret(c.n.group())
}

// Setpgid implements setpgid(2): the node already leads its group, so
// only the no-op succeeds: the main process joining its own group, a
// child joining the node's. A child may not lead a group of its own
// (process groups within a node are not modelled): EPERM.
func sysSetpgid(c *call) result {
	if !c.isSelf(0) {
		return errno(unix.ESRCH)
	}
	pg := int64(int32(c.arg(1)))
	if pg == c.n.group() || c.t.p == nil && pg == 0 {
		return ret(0)
	}
	return errno(unix.EPERM)
}

// Getsid implements getsid(2): a node and its tree belong to the session
// of the node's virtual parent, pid 1.
func sysGetsid(c *call) result {
	if !c.isSelf(0) && !c.inTree(int32(c.arg(0))) {
		return errno(unix.ESRCH)
	}
	return ret(1)
}

// Setsid implements setsid(2): a process group leader (the node's main
// process) may not create a session (setsid(2), EPERM); a child process
// is answered its own pid, as Linux answers, but sessions are not
// modelled: it stays in the node's group and session (getpgid, getsid),
// and nothing changes on the host (postgres's children call it).
func sysSetsid(c *call) result {
	if p := c.t.p; p != nil {
		return ret(p.vpid)
	}
	return errno(unix.EPERM)
}
