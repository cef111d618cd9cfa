//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// A node's resource limits are virtual (vkernel.Limits): getrlimit,
// setrlimit and prlimit64 of its own processes read and set its table,
// never the host's limits, which weft started it with. A limit the host
// kernel enforces per process (hostEnforced) is also lowered on the host
// process when the node lowers it, so that a node that lowers its
// descriptor limit meets EMFILE where Linux would give it; weft never
// raises a host hard limit for a node.

// hostEnforced are the resources whose lowering weft also applies to the
// node's host process; the others (NPROC, CPU, RTTIME, ...) count host
// users or host time, and weft bounds them itself (Config.MaxTasks).
// CORE is not among them: the host's stays at one byte (noCores), since
// lowerHostLimit raises a soft limit up to the host's hard one, and a
// raised one let a crashing node have the kernel write a core into a host
// directory (redteam core-outdir); a node's cores are not modelled.
var hostEnforced = map[vkernel.Resource]bool{
	vkernel.RlimitNOFILE: true, vkernel.RlimitFSIZE: true, vkernel.RlimitDATA: true, vkernel.RlimitSTACK: true,
	vkernel.RlimitAS: true, vkernel.RlimitMEMLOCK: true,
}

// A node's resource limits are each process's own, as Linux keeps them
// in the process (signal_struct): a fork copies its parent's (sys_fork.go),
// threads share them, and execve keeps them. The main process's table is
// the node's (n.limits), a child's its proc's. A process's soft
// RLIMIT_NOFILE is also its descriptor table's limit, which bounds every
// new descriptor number (F_DUPFD's EINVAL and EMFILE, dup2 and dup3's
// EBADF): set where the limit is set (rlimit), copied with the table at
// a fork.

// virtualLimits is the node's main process's table of virtual limits,
// made at its first use.
func (n *node) virtualLimits(maxTasks int) *vkernel.Limits {
	if n.limits == nil {
		if maxTasks <= 0 {
			maxTasks = DefaultMaxTasks
		}
		n.limits = vkernel.NewLimits(maxTasks)
	}
	return n.limits
}

// procLimits is the limits of the node's process p (nil or one without
// its own: the main process).
func (n *node) procLimits(p *proc, maxTasks int) *vkernel.Limits {
	if p == nil || p.limits == nil {
		return n.virtualLimits(maxTasks)
	}
	return p.limits
}

// limits is the calling process's limits.
func (c *call) limits() *vkernel.Limits { return c.n.procLimits(c.t.p, c.w.cfg.MaxTasks) }

// fdTable is the caller's descriptor table, whose limit is its process's
// soft RLIMIT_NOFILE.
func (c *call) fdTable() *fdTable { return c.n.fds }

// noRoomFor reports whether fewer than n numbers below the soft
// RLIMIT_NOFILE are free in the caller's process (the host's list, which
// holds the descriptors weft does not serve too), when the node has
// lowered it: then a call that makes n descriptors is EMFILE before it
// changes anything (accept(2) leaves the connection queued; pipe(2)
// installs neither end).
func (c *call) noRoomFor(n int) bool {
	limit := c.fdTable().Limit()
	if limit >= vkernel.NofileMax {
		return false
	}
	open, err := c.hostFDs()
	if err != nil {
		return false // the injection answers
	}
	for fd := 0; fd < limit && n > 0; fd++ {
		if !open[fd] {
			n--
		}
	}
	return n > 0
}

// sysGetrlimit implements getrlimit(2) from the node's table.
func sysGetrlimit(c *call) result {
	return c.rlimit(c.t.tid, c.arg(0), 0, c.arg(1))
}

// sysSetrlimit implements setrlimit(2) on the node's table.
func sysSetrlimit(c *call) result {
	return c.rlimit(c.t.tid, c.arg(0), c.arg(1), 0)
}

// sysPrlimit64 implements prlimit64(2) for a process of the node (pid 0:
// the caller; any other a virtual id the node's table names, ESRCH
// otherwise): the limits of the process that thread belongs to.
func sysPrlimit64(c *call) result {
	if int32(c.arg(0)) != 0 {
		th, r, ok := c.hostThread(0)
		if !ok {
			return r
		}
		return c.rlimitOf(c.n.procByVpid(th.Pid), th.Host, c.arg(1), c.arg(2), c.arg(3))
	}
	return c.rlimit(c.t.tid, c.arg(1), c.arg(2), c.arg(3))
}

// procByVpid is the node's process whose virtual pid is vpid, nil for
// the main process (or a node that never forked).
func (n *node) procByVpid(vpid int64) *proc {
	for _, p := range n.procs[min(1, len(n.procs)):] {
		if p.vpid == vpid {
			return p
		}
	}
	return nil
}

// rlimit is rlimitOf the calling process.
func (c *call) rlimit(host int, resource, newAddr, oldAddr uint64) result {
	return c.rlimitOf(c.t.p, host, resource, newAddr, oldAddr)
}

// rlimitOf reads the new limits at newAddr (0: none), sets them in the
// table of process p (nil: the main process), with a soft RLIMIT_NOFILE
// its descriptor table's limit, and writes the old ones at oldAddr (0:
// none); host is the host thread whose process enforces a lowered limit.
func (c *call) rlimitOf(p *proc, host int, resource, newAddr, oldAddr uint64) result {
	res := vkernel.Resource(int32(resource))
	lim := c.n.procLimits(p, c.w.cfg.MaxTasks)
	old, err := lim.Get(res)
	if err != nil {
		return errno(pathErrno(err))
	}
	if newAddr != 0 {
		b, err := c.read(newAddr, 16)
		if err != nil {
			return errno(unix.EFAULT)
		}
		nw := vkernel.Rlimit{Cur: binary.LittleEndian.Uint64(b), Max: binary.LittleEndian.Uint64(b[8:])}
		if _, err := lim.Set(res, nw); err != nil {
			return errno(pathErrno(err))
		}
		if res == vkernel.RlimitNOFILE {
			c.n.procFDs(p).SetLimit(int(min(nw.Cur, vkernel.NofileMax)))
		}
		if hostEnforced[res] {
			lowerHostLimit(host, res, nw)
		}
	}
	if oldAddr != 0 {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:], old.Cur)
		binary.LittleEndian.PutUint64(b[8:], old.Max)
		return errno(errnoOf(c.write(oldAddr, b[:])))
	}
	return ret(0)
}

// procFDs is the descriptor table of the node's process p (nil: the
// main process), whichever process's call is being served (enterProc
// points n.fds at the caller's).
func (n *node) procFDs(p *proc) *fdTable {
	switch {
	case p != nil:
		return p.fds
	case len(n.procs) > 0:
		return n.procs[0].fds
	}
	return n.fds
}

// lowerHostLimit makes the host process of thread host enforce nw where
// it is below the host's limits (never raising a hard limit). The node's
// answer is its table's: a host refusal (the process gone) changes
// nothing of it.
func lowerHostLimit(host int, res vkernel.Resource, nw vkernel.Rlimit) {
	var cur unix.Rlimit
	if unix.Prlimit(host, int(res), nil, &cur) != nil {
		return
	}
	set := unix.Rlimit{Cur: min(nw.Cur, cur.Max), Max: min(nw.Max, cur.Max)}
	if set != cur {
		_ = unix.Prlimit(host, int(res), &set, nil)
	}
}
