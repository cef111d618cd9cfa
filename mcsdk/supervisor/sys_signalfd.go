//go:build linux && amd64

package supervisor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Signal descriptors (signalfd(2)), kept minimal: the kernel creates the
// descriptor and dequeues signals on read, since only the node itself can
// take its own pending signals; weft decides when a read may run. It reads
// the calling thread's pending signals (its own and the process's, from
// /proc) and lets the read through when one in the descriptor's mask is
// pending or the read is non-blocking; otherwise the read parks in weft and
// is retried as the world changes. weft does not model signal masks or
// pending sets itself: they are the kernel's, changed only by the node's
// own calls (a signal it sends itself, through weft, is pending at once).

// sigFD is a signalfd: its mask and rules are vkernel.Signalfd's.
type sigFD struct{ vkernel.Signalfd }

// Signalfd implements signalfd(2) and signalfd4(2): the kernel creates or
// updates the descriptor; weft records the mask, and adopts a new
// descriptor at the node's next served call (fileHandler).
func sysSignalfd(c *call) result {
	if c.arg(2) != 8 {
		return errno(unix.EINVAL)
	}
	if c.req.Data.Nr == unix.SYS_SIGNALFD4 && c.arg(3)&^uint64(unix.SFD_NONBLOCK|unix.SFD_CLOEXEC) != 0 {
		return errno(unix.EINVAL)
	}
	if _, err := c.read(c.arg(1), 8); err != nil {
		return errno(unix.EFAULT)
	}
	if fd := int(int32(c.arg(0))); fd != -1 {
		v := c.n.fds.At(fd)
		if v == nil {
			return cont() // the kernel answers EBADF or EINVAL
		}
		s, ok := v.obj.(*sigFD)
		if !ok {
			return errno(unix.EINVAL)
		}
		b, _ := c.read(c.arg(1), 8)
		s.SetMask(binary.LittleEndian.Uint64(b))
		return cont()
	}
	// The descriptor is the calling process's: adopted at that process's
	// next served call. (A node-wide flag let another process's call
	// scan its own table instead, and the new signalfd was then polled
	// from weft's own thread, where it reports weft's pending signals,
	// Go's SIGURG among them: runs of one seed parted under load.)
	if c.n.sigScan == nil {
		c.n.sigScan = map[int]bool{}
	}
	c.n.sigScan[c.n.memPid()] = true
	return cont()
}

// adoptSignalfds finds the node's signalfds that weft does not know yet
// (their fdinfo names a sigmask) and records them with a duplicate of
// their description.
func (n *node) adoptSignalfds() {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", n.memPid()))
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && n.fds.At(fd) == nil {
			n.adoptSignalfd(fd)
		}
	}
}

// adoptSignalfd records the calling process's descriptor fd if it is a
// signalfd weft does not know yet, and returns it.
func (n *node) adoptSignalfd(fd int) (*vfd, bool) {
	info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", n.memPid(), fd))
	i := bytes.Index(info, []byte("sigmask:\t"))
	if err != nil || i < 0 {
		return nil, false
	}
	mask, err := strconv.ParseUint(strings.Fields(string(info[i+9:]))[0], 16, 64)
	if err != nil {
		return nil, false
	}
	dup, err := unix.PidfdGetfd(n.pidfd, fd, 0)
	if err != nil {
		return nil, false
	}
	v := &vfd{obj: &sigFD{*vkernel.NewSignalfd(mask)}, ours: dup}
	fl := fdinfoFlags(info)
	v.file = vkernel.NewOpenFile(v.obj.Kind(), int(fl)) // SFD_NONBLOCK, as the kernel made it
	n.fds.Record(fd, v, fl&unix.O_CLOEXEC != 0)         // the number the kernel chose
	return v, true
}

var signalfdOps = map[int]fileOp{
	unix.SYS_READ:  func(c *call, v *vfd) result { return readSignalfd(c, v, c.arg(2)) },
	unix.SYS_READV: func(c *call, v *vfd) result { return readSignalfd(c, v, 1<<20) },
}

func (s *sigFD) ops() map[int]fileOp { return signalfdOps }

func (*sigFD) Kind() vkernel.FileKind { return anonFileKind }

func (s *sigFD) Wake(_ vkernel.FileWorld, x *vkernel.EpollEntry) [2]uint64 { return x.WakeOf(0, 0) }

func (s *sigFD) Events(w vkernel.FileWorld) uint32 { return s.Signalfd.Events(w.PendingSignals()) }

func (s *sigFD) Hash(h *vkernel.FileHasher) {
	h.Put(fileTagInNode)
	s.Signalfd.Hash(h.Put)
}

func (s *sigFD) Release(vkernel.FileWorld) {}

// readSignalfd lets a read run natively when it will not block
// (vkernel.Signalfd.Read), and parks it otherwise.
func readSignalfd(c *call, v *vfd, size uint64) result {
	if err := v.obj.(*sigFD).Read(size, c.pendingSignals(), v.nonblocking()); err != nil {
		return vkAnswer(err)
	}
	return cont()
}

// pendingSignals is the calling thread's pending set: its own and its
// process's (/proc/PID/task/TID/status, SigPnd and ShdPnd).
func (c *call) pendingSignals() uint64 {
	k, err := readKernelSig(c.n.memPid(), c.t.tid)
	if err != nil {
		return 0
	}
	return uint64(k.AllPending())
}

// fdinfoFlags reads the flags from a descriptor's /proc/PID/fdinfo text:
// its "flags:" line (octal) holds the description's status flags, and
// O_CLOEXEC when the descriptor has it (proc(5)); 0 when it has none.
func fdinfoFlags(info []byte) uint64 {
	i := bytes.Index(info, []byte("flags:\t"))
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(info[i+7:]))
	if len(f) == 0 {
		return 0
	}
	fl, err := strconv.ParseUint(f[0], 8, 64)
	if err != nil {
		return 0
	}
	return fl
}
