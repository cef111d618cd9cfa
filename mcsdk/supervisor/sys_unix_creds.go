//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"os"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Credentials over in-node unix sockets (SCM_CREDENTIALS, SO_PASSCRED,
// unix(7)). Every message carries its sender's credentials: the virtual
// pid of the sending process and the user's ids (weft does not virtualise
// ids), or what the sender stated in an SCM_CREDENTIALS message, which
// must be its own unless the node runs as root (else EPERM, as Linux
// checks), and whose pid must name a process of the node's tree (ESRCH). A receiver with
// SO_PASSCRED set gets them as an SCM_CREDENTIALS message, before any
// SCM_RIGHTS, and a stream read stops where the writer changes, as
// Linux's never glues bytes of different writers for such a reader.
// Linux attaches credentials only when one end had SO_PASSCRED at the
// time of sending (a message sent before the receiver set it reads as
// pid 0, the overflow ids); weft always attaches them.

// overflowID is the kernel's overflowuid and overflowgid, reported for a
// message that carries no credentials.
const overflowID = 65534

// ucredLen is sizeof(struct ucred).
const ucredLen = 12

// senderCred is the calling process's credentials.
func (c *call) senderCred() *vkernel.Ucred {
	return &vkernel.Ucred{Pid: int32(c.n.vpid()), Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())}
}

// statedCred checks the credentials of a sendmsg's SCM_CREDENTIALS
// message (its data, b), as Linux's scm_check_creds: the pid must be the
// caller's or, for root, any process of its tree (another pid names no
// process: ESRCH); the ids its own unless it is root.
func (c *call) statedCred(b []byte) (*vkernel.Ucred, unix.Errno) {
	if len(b) != ucredLen {
		return nil, unix.EINVAL
	}
	cr := &vkernel.Ucred{Pid: int32(le32(b)), Uid: le32(b[4:]), Gid: le32(b[8:])}
	root := os.Geteuid() == 0
	switch {
	case !root && (cr.Pid != int32(c.n.vpid()) || cr.Uid != uint32(os.Getuid()) || cr.Gid != uint32(os.Getgid())):
		return nil, unix.EPERM
	case cr.Pid != int32(c.n.vpid()) && !c.inTree(cr.Pid):
		return nil, unix.ESRCH
	}
	return cr, 0
}

// attachCred gives a message the caller's credentials unless its
// SCM_CREDENTIALS stated others: rs carries them to deliver.
func (c *call) attachCred(rs *rights) *rights {
	if rs == nil {
		rs = &rights{vkernel.UnixAnc{Taken: true}}
	}
	if rs.Cred == nil {
		rs.Cred = c.senderCred()
	}
	return rs
}

// passCred reports whether the descriptor's socket has SO_PASSCRED set
// (the option is kept on weft's placeholder socket).
func passCred(v *vfd) bool {
	on, err := unix.GetsockoptInt(v.ours, unix.SOL_SOCKET, unix.SO_PASSCRED)
	return err == nil && on != 0
}

// credMsg is the SCM_CREDENTIALS control message for cr (nil: none
// carried, pid 0 and the overflow ids), padded to its aligned length.
func credMsg(cr *vkernel.Ucred) []byte {
	if cr == nil {
		cr = &vkernel.Ucred{Uid: overflowID, Gid: overflowID}
	}
	msg := binary.LittleEndian.AppendUint64(nil, cmsgHdrLen+ucredLen)
	msg = binary.LittleEndian.AppendUint32(msg, unix.SOL_SOCKET)
	msg = binary.LittleEndian.AppendUint32(msg, unix.SCM_CREDENTIALS)
	msg = binary.LittleEndian.AppendUint32(msg, uint32(cr.Pid))
	msg = binary.LittleEndian.AppendUint32(msg, cr.Uid)
	msg = binary.LittleEndian.AppendUint32(msg, cr.Gid)
	return append(msg, make([]byte, cmsgAlign(len(msg))-len(msg))...)
}
