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
var hostEnforced = map[vkernel.Resource]bool{
	vkernel.RlimitNOFILE: true, vkernel.RlimitFSIZE: true, vkernel.RlimitDATA: true, vkernel.RlimitSTACK: true,
	vkernel.RlimitAS: true, vkernel.RlimitCORE: true, vkernel.RlimitMEMLOCK: true,
}

// limits is the node's table of virtual limits, made at its first use.
func (n *node) virtualLimits(maxTasks int) *vkernel.Limits {
	if n.limits == nil {
		if maxTasks <= 0 {
			maxTasks = DefaultMaxTasks
		}
		n.limits = vkernel.NewLimits(maxTasks)
	}
	return n.limits
}

func (c *call) limits() *vkernel.Limits { return c.n.virtualLimits(c.w.cfg.MaxTasks) }

// fdTable is the caller's descriptor table with its limit set to the
// node's soft RLIMIT_NOFILE, which bounds every new descriptor number
// (F_DUPFD's EINVAL and EMFILE, dup2 and dup3's EBADF): the one place
// the table learns what setrlimit and prlimit64 set.
func (c *call) fdTable() *fdTable {
	own, _ := c.limits().Get(vkernel.RlimitNOFILE)
	c.n.fds.SetLimit(int(min(own.Cur, vkernel.NofileMax)))
	return c.n.fds
}

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
// otherwise).
func sysPrlimit64(c *call) result {
	host := c.t.tid
	if int32(c.arg(0)) != 0 {
		th, r, ok := c.hostThread(0)
		if !ok {
			return r
		}
		host = th.Host
	}
	return c.rlimit(host, c.arg(1), c.arg(2), c.arg(3))
}

// rlimit reads the new limits at newAddr (0: none), sets them in the
// table, and writes the old ones at oldAddr (0: none); host is the host
// thread whose process enforces a lowered limit.
func (c *call) rlimit(host int, resource, newAddr, oldAddr uint64) result {
	res := vkernel.Resource(int32(resource))
	old, err := c.limits().Get(res)
	if err != nil {
		return errno(pathErrno(err))
	}
	if newAddr != 0 {
		b, err := c.read(newAddr, 16)
		if err != nil {
			return errno(unix.EFAULT)
		}
		nw := vkernel.Rlimit{Cur: binary.LittleEndian.Uint64(b), Max: binary.LittleEndian.Uint64(b[8:])}
		if _, err := c.limits().Set(res, nw); err != nil {
			return errno(pathErrno(err))
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
