//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Descriptor passing over in-node unix sockets (SCM_RIGHTS, unix(7)). A
// descriptor in flight is weft's: a copy of an in-node description with its
// own duplicate of the placeholder, or weft's duplicate (pidfd_getfd) of a
// kernel descriptor. The receiver gets it installed as a new descriptor of
// the same description; a socket closed with descriptors still queued
// closes them. Credentials (SCM_CREDENTIALS) travel with every message
// (sys_unix_creds.go).

// passedFD is one descriptor in flight.
type passedFD struct {
	v      *vfd // a copy of an in-node description; nil for a kernel descriptor
	kernel int  // weft's duplicate of the kernel descriptor
}

// rights are what one sendmsg carries: its descriptors (*passedFD),
// taken once a message carries them, and the credentials (nil: the
// sender's, attachCred).
type rights struct{ vkernel.UnixAnc }

// scmMaxFD is SCM_MAX_FD, the most descriptors one message may carry.
const scmMaxFD = 253

// cmsgHdrLen is sizeof(struct cmsghdr) on x86-64.
const cmsgHdrLen = 16

func cmsgAlign(n int) int { return (n + 7) &^ 7 }

// readRights parses the control buffer of a sendmsg: SCM_RIGHTS and
// SCM_CREDENTIALS; it captures the descriptors only if capture is set.
// ok=false means r is the answer.
func (c *call) readRights(hdr uint64, controllen uint64, capture bool) (*rights, result, bool) {
	if controllen == 0 {
		return nil, result{}, true
	}
	p, err := c.read(hdr+32, 8)
	if err != nil || controllen > 1<<16 {
		return nil, errno(unix.EFAULT), false
	}
	b, err := c.read(binary.LittleEndian.Uint64(p), int(controllen))
	if err != nil {
		return nil, errno(unix.EFAULT), false
	}
	var fds []int32
	var cred *vkernel.Ucred
	for off := 0; off+cmsgHdrLen <= len(b); {
		clen := int(binary.LittleEndian.Uint64(b[off:]))
		level, typ := int32(binary.LittleEndian.Uint32(b[off+8:])), int32(binary.LittleEndian.Uint32(b[off+12:]))
		if clen < cmsgHdrLen || off+clen > len(b) {
			return nil, errno(unix.EINVAL), false
		}
		switch {
		case level == unix.SOL_SOCKET && typ == unix.SCM_RIGHTS:
			for i := off + cmsgHdrLen; i+4 <= off+clen; i += 4 {
				fds = append(fds, int32(binary.LittleEndian.Uint32(b[i:])))
			}
		case level == unix.SOL_SOCKET && typ == unix.SCM_CREDENTIALS:
			var e unix.Errno
			if cred, e = c.statedCred(b[off+cmsgHdrLen : off+clen]); e != 0 {
				return nil, errno(e), false
			}
		default:
			return nil, errno(unix.EINVAL), false
		}
		off += cmsgAlign(clen)
	}
	if len(fds) > scmMaxFD {
		return nil, errno(unix.EINVAL), false
	}
	rs := &rights{vkernel.UnixAnc{Cred: cred}}
	if !capture {
		return rs, result{}, true
	}
	for _, fd := range fds {
		pf, e := c.n.capture(int(fd))
		if e != 0 {
			rs.release(c.w, c.n)
			return nil, errno(e), false
		}
		rs.Rights = append(rs.Rights, pf)
	}
	return rs, result{}, true
}

// capture takes a descriptor of the node in flight.
func (n *node) capture(fd int) (*passedFD, unix.Errno) {
	if v := n.fds.At(fd); v != nil {
		ours, err := unix.Dup(v.ours)
		if err != nil {
			return nil, unix.ENFILE
		}
		cp := *v
		cp.ours = ours
		return &passedFD{v: &cp}, 0
	}
	dup, err := unix.PidfdGetfd(n.pidfd, fd, 0)
	if err != nil {
		return nil, unix.EBADF
	}
	unix.CloseOnExec(dup)
	return &passedFD{kernel: dup}, 0
}

// release closes descriptors that will not arrive (the send failed).
func (rs *rights) release(w *World, n *node) {
	if rs == nil || rs.Taken {
		return
	}
	for _, pf := range rs.Rights {
		pf.(*passedFD).close(w, n)
	}
	rs.Rights = nil
}

// close drops a descriptor in flight; an in-node description with no
// other descriptor left is released.
func (pf *passedFD) close(w *World, n *node) {
	if pf.v == nil {
		unix.Close(pf.kernel)
		return
	}
	unix.Close(pf.v.ours)
	pf.v.ours = -1
	if !n.referenced(pf.v.description(), pf) {
		pf.v.obj.Release(fileWorld{w: w, n: n})
	}
}

// referenced reports whether a descriptor of the node, or a descriptor in
// flight other than skip, refers to description d.
func (n *node) referenced(d any, skip *passedFD) bool {
	for _, v := range n.fds.All() {
		if v.description() == d {
			return true
		}
	}
	for _, v := range n.fds.All() {
		if s, ok := v.obj.(unixSock); ok && s.carries(d, skip) {
			return true
		}
	}
	return n.heldBySend(d, skip)
}

// heldBySend reports whether a sendmsg of the node waiting with the
// descriptors it took (call.rights) holds description d, other than
// skip: Linux keeps such a description open until the send ends.
func (n *node) heldBySend(d any, skip *passedFD) bool {
	for _, t := range n.tasks {
		if t.exited || t.call == nil || t.call.rights == nil {
			continue
		}
		for _, r := range t.call.rights.Rights {
			if pf := r.(*passedFD); pf != skip && pf.v != nil && pf.v.description() == d {
				return true
			}
		}
	}
	return false
}

// dropRights releases the descriptors c took and holds (an interrupted
// send: they will not travel).
func (c *call) dropRights() {
	if c.rights != nil {
		c.rights.release(c.w, c.n)
		c.rights = nil
	}
}

// hashHeldRights writes the descriptions each waiting sendmsg of the
// node holds (heldBySend), in task order; nothing if none does, so the
// hash of every other state is as before.
func (n *node) hashHeldRights(h *vkernel.FileHasher) {
	for i, t := range n.tasks {
		if t.exited || t.call == nil || t.call.rights == nil {
			continue
		}
		h.Put(heldRightsTag)
		h.Put(uint64(i))
		h.Put(uint64(len(t.call.rights.Rights)))
		for _, r := range t.call.rights.Rights {
			if pf := r.(*passedFD); pf.v != nil {
				hashDesc(h, pf.v)
			} else {
				h.Put(0) // a kernel descriptor: weft's duplicate, no state of its own
			}
		}
	}
}

// heldRightsTag starts each waiting send's descriptors in the hash.
const heldRightsTag = 0x48454c44 // "HELD"

// carries reports whether a message queued on s (or on a connection
// waiting in its backlog) holds description d in flight.
func (s unixSock) carries(d any, skip *passedFD) bool {
	return s.InFlight(func(r any) bool {
		pf := r.(*passedFD)
		return pf != skip && pf.v != nil && pf.v.description() == d
	})
}

// installRights gives the receiver the descriptors of a message: it
// installs as many as the control buffer at hdr holds, closes the rest
// (MSG_CTRUNC), and writes the SCM_RIGHTS message and the lengths, after
// the control message pre (SCM_CREDENTIALS, or nil) if it fits.
// It returns the msg_flags to add.
func (c *call) installRights(hdr uint64, fds []any, cloexec bool, pre []byte) (uint32, result) {
	b, err := c.read(hdr+32, 16)
	if err != nil {
		return 0, errno(unix.EFAULT)
	}
	ctrl, clen := binary.LittleEndian.Uint64(b), int(binary.LittleEndian.Uint64(b[8:]))
	var flags uint32
	used := 0
	if pre != nil {
		// put_cmsg: a buffer shorter than the message gets what fits of it
		// (none if not even its header), and MSG_CTRUNC.
		full := int(binary.LittleEndian.Uint64(pre))
		if clen < full {
			flags |= unix.MSG_CTRUNC
		}
		if clen >= cmsgHdrLen {
			if err := c.write(ctrl, pre[:min(full, clen)]); err != nil {
				return 0, errno(unix.EFAULT)
			}
			used = min(len(pre), clen)
			ctrl, clen = ctrl+uint64(used), clen-used
		}
	}
	room := 0
	if clen >= cmsgHdrLen {
		room = (clen - cmsgHdrLen) / 4
	}
	var nums []byte
	for i, r := range fds {
		pf := r.(*passedFD)
		if i >= room {
			flags |= unix.MSG_CTRUNC
			pf.close(c.w, c.n)
			continue
		}
		var fd int
		var err error
		if pf.v != nil {
			fd, err = c.injectAt(pf.v, pf.v.ours, cloexec)
		} else {
			fd, err = injectFD(c.n.listener, c.req.ID, pf.kernel, cloexec)
			unix.Close(pf.kernel)
		}
		if err != nil {
			flags |= unix.MSG_CTRUNC
			if pf.v != nil {
				pf.close(c.w, c.n)
			}
			continue
		}
		nums = binary.LittleEndian.AppendUint32(nums, uint32(fd))
	}
	if len(nums) > 0 {
		msg := binary.LittleEndian.AppendUint64(nil, uint64(cmsgHdrLen+len(nums)))
		msg = binary.LittleEndian.AppendUint32(msg, unix.SOL_SOCKET)
		msg = binary.LittleEndian.AppendUint32(msg, unix.SCM_RIGHTS)
		msg = append(msg, nums...)
		if err := c.write(ctrl, msg); err != nil {
			return 0, errno(unix.EFAULT)
		}
		used += min(cmsgAlign(len(msg)), clen)
	}
	if err := c.write(hdr+40, binary.LittleEndian.AppendUint64(nil, uint64(used))); err != nil {
		return 0, errno(unix.EFAULT)
	}
	return flags, result{}
}

// sendHoldsRights reports whether a sendmsg of the node waits holding
// descriptors it took: weft's duplicates of them are not copied by a
// checkpoint, which refuses the state.
func (n *node) sendHoldsRights() bool {
	for _, t := range n.tasks {
		if !t.exited && t.call != nil && t.call.rights != nil {
			return true
		}
	}
	return false
}
