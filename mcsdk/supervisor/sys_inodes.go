//go:build linux && amd64

package supervisor

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Inode and device numbers are virtual (vkernel.Inodes): stat, fstat,
// newfstatat and statx show vkernel.Dev and the world's number for the
// file, never the host's, and statx no mount id.

// inodeTable is the world's table of virtual inode numbers, made at its
// first use.
func (w *World) inodeTable() *vkernel.Inodes {
	if w.inodes == nil {
		w.inodes = vkernel.NewInodes()
	}
	return w.inodes
}

// statName is the view's path of the file sp names ("" for a descriptor
// of a file with none: a pipe, a socket, a deleted file). A file of the
// node's run directory has a view path below vkernel.RunDir, so its
// number does not depend on where the run directory lies on the host.
func (c *call) statName(sp statPlace) string {
	if !sp.fd {
		return sp.name
	}
	link, err := os.Readlink(sp.host)
	if err != nil || !strings.HasPrefix(link, "/") || strings.HasSuffix(link, " (deleted)") {
		return ""
	}
	v, _ := c.view().Locate(link)
	return v
}

// virtualIno is the virtual inode number of the host file (dev, ino)
// that sp names; birth is its statx birth time, which weft reads when
// the call did not (0: the host records none).
func (c *call) virtualIno(sp statPlace, dev, ino uint64, birth *int64) uint64 {
	if birth == nil {
		var stx unix.Statx_t
		b := int64(0)
		if unix.Statx(unix.AT_FDCWD, sp.host, sp.atFlags(), unix.STATX_BTIME, &stx) == nil && stx.Mask&unix.STATX_BTIME != 0 {
			b = stxNs(stx.Btime)
		}
		birth = &b
	}
	f := vkernel.HostFile{HostIno: vkernel.HostIno{Dev: dev, Ino: ino}, Birth: *birth}
	return c.w.inodeTable().Ino(f, c.statName(sp))
}

// virtualizeStat gives st, the host's stat of sp's file (whose birth
// time is birth: hostTimes), its virtual device and inode numbers.
func (c *call) virtualizeStat(st *unix.Stat_t, sp statPlace, birth int64) {
	st.Dev, st.Ino = vkernel.Dev, c.virtualIno(sp, st.Dev, st.Ino, &birth)
}

// virtualizeStatx gives stx, the host's statx of sp's file (whose birth
// time is birth), its virtual device and inode numbers, and no mount id.
func (c *call) virtualizeStatx(stx *unix.Statx_t, sp statPlace, birth int64) {
	stx.Ino = c.virtualIno(sp, unix.Mkdev(stx.Dev_major, stx.Dev_minor), stx.Ino, &birth)
	stx.Dev_major, stx.Dev_minor = vkernel.DevMajor, vkernel.DevMinor
	stx.Mnt_id = 0
	stx.Mask &^= unix.STATX_MNT_ID | statxMntIDUnique
}

// statxMntIDUnique is STATX_MNT_ID_UNIQUE (Linux 6.8).
const statxMntIDUnique = 0x4000
