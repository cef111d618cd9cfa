//go:build linux && amd64

package supervisor

import "golang.org/x/sys/unix"

// Nodes see virtual process ids, so nothing about the host's pid
// allocation reaches them: node i is pid 100+i, and its parent is pid 1.
const virtualPidBase = 100

// Getpid implements getpid(2), gettid(2) and getpgrp(2).
func sysGetpid(c *call) result { return ret(c.n.vpid()) }

// Getppid implements getppid(2).
func sysGetppid(c *call) result { return ret(1) }

// Rseq implements rseq(2) by refusing it: a registered rseq area holds the
// CPU the thread last ran on, which the kernel rewrites on every return to
// user space. glibc falls back to not using rseq.
func sysRseq(c *call) result { return errno(unix.ENOSYS) }

// vpid is the node's virtual pid (and tid, process group id).
func (n *node) vpid() int64 { return virtualPidBase + int64(n.id) }

// isSelf reports whether a pid argument names the node: 0 or its pid.
func (c *call) isSelf(i int) bool {
	pid := int32(c.arg(i))
	return pid == 0 || pid == int32(c.n.vpid())
}

// Getpgid implements getpgid(2): each node leads its own process group
// (the launcher starts it with setpgid), whose id is its virtual pid.
func sysGetpgid(c *call) result {
	if !c.isSelf(0) {
		return errno(unix.ESRCH)
	}
	return ret(c.n.vpid())
}

// Setpgid implements setpgid(2): the node already leads its group, so
// only the no-op succeeds.
func sysSetpgid(c *call) result {
	if !c.isSelf(0) {
		return errno(unix.ESRCH)
	}
	if !c.isSelf(1) {
		return errno(unix.EPERM)
	}
	return ret(0)
}

// Getsid implements getsid(2): a node belongs to the session of its
// virtual parent, pid 1.
func sysGetsid(c *call) result {
	if !c.isSelf(0) {
		return errno(unix.ESRCH)
	}
	return ret(1)
}

// Setsid implements setsid(2): a process group leader may not create a
// session (setsid(2), EPERM).
func sysSetsid(c *call) result { return errno(unix.EPERM) }

// selfOnly serves a call whose argument i is a pid, 0 meaning the caller:
// pid 0 runs natively. The node's own virtual pid would need the call
// rewritten for the host pid, which weft does not do: it ends the run, so
// the gap shows. Any other pid names no process the node can see.
func selfOnly(i int) handler {
	return func(c *call) result {
		switch int32(c.arg(i)) {
		case 0:
			return cont()
		case int32(c.n.vpid()):
			return failf("passing the node's own pid (not 0) is not modelled")
		}
		return errno(unix.ESRCH)
	}
}
