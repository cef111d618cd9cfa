//go:build linux

package supervisor

import "golang.org/x/sys/unix"

// Nodes see virtual process ids, so nothing about the host's pid
// allocation reaches them: node i is pid 100+i, and its parent is pid 1.
const virtualPidBase = 100

// Getpid implements getpid(2) and gettid(2).
func sysGetpid(c *call) result { return ret(int64(virtualPidBase + c.n.id)) }

// Getppid implements getppid(2).
func sysGetppid(c *call) result { return ret(1) }

// SetTidAddress implements set_tid_address(2) for single-threaded nodes:
// it returns the virtual tid (glibc stores it in the thread descriptor,
// which would otherwise make memory differ between runs).
func sysSetTidAddress(c *call) result { return ret(int64(virtualPidBase + c.n.id)) }

// Rseq implements rseq(2) by refusing it: a registered rseq area holds the
// CPU the thread last ran on, which the kernel rewrites on every return to
// user space. glibc falls back to not using rseq.
func sysRseq(c *call) result { return errno(unix.ENOSYS) }

// Pause implements pause(2) and rt_sigsuspend(2): nodes receive no
// signals from weft, so the call parks until the node is killed.
func sysPause(c *call) result { return park() }
