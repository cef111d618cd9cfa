//go:build linux && amd64

package supervisor

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Signals between the processes of a node's tree. kill(2) aimed at
// another process of the caller's tree by pid reaches it; a group (0,
// -1, -pgid) reaches each of its members (killGroup, sys_sessions.go);
// anything else is sysKill's (the caller itself, or a process outside
// the node).

// KillTree implements kill(2) for a node with child processes.
func sysKillTree(c *call) result {
	n := c.n
	pid, sig := int32(c.arg(0)), int(int32(c.arg(1)))
	if pid <= 0 {
		return c.killGroup(int64(pid), sig) // sys_sessions.go
	}
	if len(n.procs) == 0 {
		return sysKill(c)
	}
	if !vkernel.ValidSignal(sig) {
		return errno(unix.EINVAL)
	}
	me := n.procOf(c.t)
	for _, p := range n.procs {
		if pid <= 0 || int32(p.vpid) != pid {
			continue
		}
		if p.gone() {
			// Reaped (a virtual pid is never reused in a run): no such
			// process, as Linux answers once release_task has run.
			return errno(unix.ESRCH)
		}
		switch {
		case p == me:
			return sysKill(c)
		case p.zombie():
			return ret(0) // Linux lets a zombie be signalled, to no effect
		}
		return c.signalProc(p, sig)
	}
	return sysKill(c)
}

// killSelf signals the calling process as kill(getpid(), sig) would.
func (c *call) killSelf(sig int) result {
	if sig == 0 {
		return ret(0)
	}
	return c.signalSelf(sig, nil)
}

// signalProc sends sig to process p of the caller's tree, from the
// caller's virtual pid (signalOther, sys_sigtree.go).
func (c *call) signalProc(p *proc, sig int) result { return c.signalOther(p, nil, sig, nil) }

// killOther sends process p a signal that kills it (SIGKILL, or one
// whose default action is to terminate and that p neither catches,
// ignores nor blocks) and waits for its end: p has ended before the
// caller goes on, as no other task may run meanwhile.
func (c *call) killOther(p *proc, sig int, info []byte) result {
	if err := pidfdSendSiginfo(p.pidfd, sig, info); err != nil {
		return errno(errnoOf(err))
	}
	c.w.mark(signalsKey(c.n))
	return c.awaitKilled(p, sig)
}

// awaitKilled collects the end of process p, which sig is killing. A
// traced process takes a signal only on its way back to user space: a
// leader stopped in a call has that call end with EINTR, which it never
// sees (the signal ends it first), and its delivery stop is passed on. A
// held leader takes the signal when it is resumed. When p is the node's
// main process the whole node ends: the caller's kill never returns
// (reap kills the rest of the tree), so nothing after it races the end.
func (c *call) awaitKilled(p *proc, sig int) result {
	n := c.n
	var leader *task
	var others []*task
	for _, t := range n.procTasks(p) {
		if t.tid == p.pid {
			leader = t
		} else {
			others = append(others, t)
		}
	}
	takers := []*task{leader} // the threads one of which takes the signal
	if leader == nil {
		// The leader ended first (exit(2), vkernel.LeaderZombie): one of
		// the live threads takes the signal (complete_signal), and the
		// leader is collected after them as ever.
		if leader = n.taskByPid(p); leader == nil || len(others) == 0 {
			return ret(0)
		}
		takers = others
	}
	if sig != int(unix.SIGKILL) {
		for _, t := range takers {
			if t.held {
				return ret(0)
			}
		}
		for _, t := range takers {
			if lc := t.call; lc != nil {
				c.w.vdsoSync(t)
				sendResp(n.listener, &notifResp{ID: lc.req.ID, Val: -1, Error: -int32(unix.EINTR)})
				t.call, t.ready = nil, false
			}
		}
		if err := c.w.awaitSignalStop(p, takers, sig); err != nil {
			return failf("%v", err)
		}
	}
	ws, err := collectProc(c.w, leader, others)
	if err != nil {
		return failf("collecting process %d: %v", p.vpid, err)
	}
	if p == n.procs[0] {
		n.status, n.reaped = ws, true
		return done()
	}
	c.w.procEnded(leader, ws)
	return ret(0)
}

// awaitSignalStop waits until one of takers, threads of process p, stops
// to take fatal signal sig (its delivery stop, passed on: the signal then
// ends the process) or ends, passing on every other stop. With one taker
// it waits for it; with several (the kernel picks one, complete_signal)
// it looks at each in turn.
func (w *World) awaitSignalStop(p *proc, takers []*task, sig int) error {
	opts := 0
	if len(takers) > 1 {
		opts = unix.WNOHANG
	}
	for spins := 0; ; spins++ {
		for _, t := range takers {
			got, ws, err := wait4(t.tid, opts)
			if err != nil {
				return fmt.Errorf("process %d did not take signal %d (%v)", p.vpid, sig, err)
			}
			if got != t.tid {
				continue
			}
			if !ws.Stopped() {
				t.exited = true
				return nil // it ended: the group's end is under way
			}
			if err := w.passStop(t, ws); err != nil {
				return err
			}
			if ws.StopSignal() == unix.Signal(sig) {
				return nil
			}
		}
		if opts != 0 && spins > 5000 {
			unix.Poll(nil, 1)
		}
	}
}

// collectProc waits for the end of a dying process's threads, the others
// first (the kernel reports a leader only after them), and returns the
// leader's status.
func collectProc(w *World, leader *task, others []*task) (unix.WaitStatus, error) {
	for _, t := range others {
		wait4(t.tid, 0)
		t.exited, t.call = true, nil
	}
	if leader.p != nil {
		notifyParent(w, leader.n, leader.p, true)
	}
	_, ws, err := wait4(leader.tid, 0)
	leader.exited, leader.call = true, nil
	return ws, err
}

// signalKills reports whether sig ends process pid at once
// (vkernel.ThreadSig.Kills): SIGKILL, or a signal whose default action
// terminates it (signal(7)) and that it does not block, ignore or catch.
func signalKills(pid, sig int) (bool, error) {
	if sig == int(unix.SIGKILL) {
		return true, nil
	}
	k, err := readKernelSig(pid, pid)
	if err != nil {
		return false, err
	}
	return k.Kills(sig), nil
}
