//go:build linux && amd64

package supervisor

import "golang.org/x/sys/unix"

// Nodes see virtual process ids, so nothing about the host's pid
// allocation reaches them: node i is pid 100+i, and its parent is pid 1.
const virtualPidBase = 100

// Getpid implements getpid(2): the calling process's virtual pid.
func sysGetpid(c *call) result { return ret(c.n.vpid()) }

// Getppid implements getppid(2): a child's parent in the node's tree, or
// pid 1 (outside the node) for the main process and orphans.
func sysGetppid(c *call) result {
	if p := c.t.p; p != nil {
		return ret(c.n.ptab.Getppid(p.vpid))
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

// group is the node's process group id: its main process's virtual pid,
// the one group its processes are in on the host (F_SETOWN and
// PRIO_PGRP name it). The groups and sessions processes make with
// setpgid and setsid are virtual only (sys_sessions.go).
func (n *node) group() int64 { return virtualPidBase + int64(n.id) }

// inTree reports whether pid names a process of the node's tree that has
// not been reaped.
func (c *call) inTree(pid int32) bool {
	for _, p := range c.n.procs {
		if int32(p.vpid) == pid && !p.gone() {
			return true
		}
	}
	return false
}
