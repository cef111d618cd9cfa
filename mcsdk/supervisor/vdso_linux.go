//go:build linux && amd64

package supervisor

// weft's vDSO (native/vdso.c): most calls a single-threaded node makes
// are clock reads (41% of a Chord run's), and each was a seccomp round
// trip. At each exec stop weft copies its own small vDSO over the
// process's [vdso] pages, which the kernel maps with VM_MAYWRITE so that
// a debugger can patch them: a forced write through /proc/PID/mem turns
// them into the process's private copy, still read-only and executable to
// the process. Its clock_gettime, gettimeofday and time answer from
// readings weft writes into the image (weft_clock) before the process
// runs; with the readings switched off they make the real syscall, which
// weft intercepts as before.
//
// The readings are on while a task runs with no other task of its node
// ready (vdsoSync). Time moves only between quiescent points, when no task
// runs, so a reading written before a task resumes is what the syscall
// would have answered; and a call is a preemption point only while
// another task of the node is ready (runNode), a set that changes only in
// weft's handlers, which sync again before they answer. So a read answered
// from the image was never a scheduling point, and every read beside a
// ready task stays the syscall it was: thread and process interleavings
// are unchanged. The clone, fork and vfork handlers also switch the
// readings off before the new task exists (a child inherits the image).
// The image is read-only and executable, so memory hashing (private
// writable mappings) never sees it; the readings are a function of the
// world's clock, which is hashed, and of the ready set, which is too.

import (
	"debug/elf"
	_ "embed"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

//go:embed native/vdso.c
var vdsoSource []byte

//go:embed native/vdso.lds
var vdsoScript []byte

// vdsoClocks is how many clock ids the image answers (0 to 11, through
// CLOCK_TAI); its weft_clock is magic, on, valid, then one reading each.
const (
	vdsoClocks   = 12
	vdsoMagic    = 0x6f73647674666577 // "weftvdso", little-endian
	vdsoOnOffset = 8
)

// vdsoBuilt is weft's vDSO, built once per Toolchain.
type vdsoBuilt struct {
	path  string // the linked shared object
	image []byte // its loadable segment, loaded at offset 0
	clock int    // offset of weft_clock in it
}

var vdsos byToolchain[vdsoBuilt]

// vdsoImage builds with tc (once per source version, cached beside the
// native launcher) and returns weft's vDSO and the offset of its readings.
func vdsoImage(tc Toolchain) (vdsoBuilt, error) {
	return vdsos.get(tc, func(tc Toolchain) (vdsoBuilt, error) {
		var v vdsoBuilt
		var err error
		v.path, v.image, v.clock, err = buildVDSO(tc)
		return v, err
	})
}

func buildVDSO(tc Toolchain) (string, []byte, int, error) {
	out, err := ccCached(tc, "weft's vDSO", "weft-vdso-", ".so", [][]byte{vdsoSource, vdsoScript}, []string{".c", ".lds"},
		func(srcs []string, out string) []string {
			return []string{"-O2", "-fPIC", "-shared", "-nostdlib", "-fno-stack-protector",
				"-fno-asynchronous-unwind-tables", "-fno-builtin", "-fcf-protection=none",
				"-Wl,-T," + srcs[1], "-Wl,--hash-style=both", "-Wl,-soname=linux-vdso.so.1",
				"-Wl,--build-id=none", "-Wl,-z,norelro", "-Wl,-z,noexecstack", "-o", out, srcs[0]}
		})
	if err != nil {
		return "", nil, 0, err
	}
	image, clock, err := loadVDSO(out)
	return out, image, clock, err
}

// loadVDSO reads the linked image: one loadable segment at offset and
// address 0, copied as it is, and where weft_clock is in it.
func loadVDSO(path string) ([]byte, int, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var load *elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			if load != nil {
				return nil, 0, fmt.Errorf("%s: more than one loadable segment", path)
			}
			load = p
		}
	}
	if load == nil || load.Off != 0 || load.Vaddr != 0 || load.Filesz != load.Memsz {
		return nil, 0, fmt.Errorf("%s: not one segment loaded at 0", path)
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, 0, err
	}
	clock := -1
	for _, s := range syms {
		if s.Name == "weft_clock" {
			clock = int(s.Value)
		}
	}
	image := make([]byte, load.Filesz)
	if _, err := load.ReadAt(image, 0); err != nil {
		return nil, 0, err
	}
	if clock < 0 || clock+vdsoOnOffset+8+8*vdsoClocks > len(image) || binary.LittleEndian.Uint64(image[clock:]) != vdsoMagic {
		return nil, 0, fmt.Errorf("%s: no weft_clock in the image", path)
	}
	return image, clock, nil
}

// vdsoMapping is the [vdso] mapping of process pid: its start and size.
func vdsoMapping(pid int) (uintptr, int, error) {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(maps), "\n") {
		if !strings.HasSuffix(line, "[vdso]") {
			continue
		}
		var lo, hi uint64
		if _, err := fmt.Sscanf(line, "%x-%x", &lo, &hi); err != nil {
			return 0, 0, err
		}
		return uintptr(lo), int(hi - lo), nil
	}
	return 0, 0, nil
}

// forceWrite writes b at addr in process pid through /proc/PID/mem, which
// writes a read-only private mapping as a debugger does (a copy on write).
func forceWrite(pid int, addr uintptr, b []byte) error {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, int64(addr))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// installVDSO copies weft's vDSO, readings off, over the [vdso] of process
// pid, stopped at its exec, which starts at ehdr (its AT_SYSINFO_EHDR). It
// returns the address of the readings, or 0 if this kernel's [vdso] is too
// small for the image (the auxiliary vector then hides the vDSO, and
// every clock read is a syscall).
func installVDSO(pid int, ehdr uintptr, tc Toolchain) (uintptr, error) {
	v, err := vdsoImage(tc)
	if err != nil {
		return 0, err
	}
	image, clock := v.image, v.clock
	lo, size, err := vdsoMapping(pid)
	if err != nil {
		return 0, err
	}
	if lo != ehdr || size < len(image) {
		return 0, nil
	}
	page := make([]byte, size)
	copy(page, image)
	if err := forceWrite(pid, lo, page); err != nil {
		return 0, fmt.Errorf("writing weft's vDSO: %v", err)
	}
	return lo + uintptr(clock), nil
}

// useVDSO reports whether nodes get weft's vDSO: not with NoVDSO, nor
// with NotifyAll, whose survey counts every call a node makes.
func (w *World) useVDSO() bool {
	return !w.cfg.NoVDSO && !w.cfg.NotifyAll
}

// vclock is what a process's image holds, as far as weft knows: whether
// its readings are on and from which world time; with a descriptor of
// the process's /proc/TID/mem kept open (mem is the descriptor plus one;
// 0: none), which reaches the address space it was opened on whichever
// thread of the process runs. The zero value knows nothing: the next sync
// writes.
type vclock struct {
	known bool
	on    bool
	now   int64
	mem   int
}

// vclockOf is what task t's process image holds.
func (n *node) vclockOf(t *task) *vclock {
	if t.p != nil {
		return &t.p.vclock
	}
	return &n.vclock
}

// vdsoOf is the address of the readings in task t's process image, 0 if
// it has none.
func (n *node) vdsoOf(t *task) uintptr {
	if t.p != nil {
		return t.p.vdso
	}
	return n.vdso
}

// forget closes the descriptor and forgets what the image holds; with
// off, the image is known to hold its readings off (a new image).
func (v *vclock) forget(off bool) {
	if v.mem != 0 {
		unix.Close(v.mem - 1)
	}
	*v = vclock{known: off}
}

// write writes b at addr in task t's process, through the descriptor
// kept (opened on first use).
func (v *vclock) write(t *task, addr uintptr, b []byte) error {
	if v.mem == 0 {
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/mem", t.tid), unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		v.mem = fd + 1
	}
	if _, err := unix.Pwrite(v.mem-1, b, int64(addr)); err != nil {
		v.forget(false)
		return err
	}
	return nil
}

// vdsoSync makes task t's image hold what t may read without a stop,
// before t runs: the node's clock readings, on, if no other task of the
// node is ready, so that none of t's clock reads would be a scheduling
// point (runNode preempts at a call only while another task is ready, and
// that set changes only in weft's handlers, which sync again before they
// answer); otherwise readings off, so that every clock read is the
// syscall, and the preemption point, it was. It writes only when the
// image holds something else.
func (w *World) vdsoSync(t *task) {
	n := t.n
	addr := n.vdsoOf(t)
	if addr == 0 || w.failure != nil {
		return
	}
	on := !n.anyReady()
	v := n.vclockOf(t)
	if v.known && v.on == on && (!on || v.now == w.now) {
		return
	}
	var b []byte
	if on {
		b = make([]byte, 8+8*vdsoClocks)
		binary.LittleEndian.PutUint32(b, 1)
		var valid uint32
		for id := range vdsoClocks {
			if ns, ok := w.nodeNow(n, uint64(id)); ok {
				valid |= 1 << id
				binary.LittleEndian.PutUint64(b[8+8*id:], uint64(ns))
			}
		}
		binary.LittleEndian.PutUint32(b[4:], valid)
	} else {
		b = make([]byte, 4)
	}
	if err := v.write(t, addr+vdsoOnOffset, b); err != nil {
		if st := taskState(t.tid, t.tid); st == 0 || st == 'Z' || st == 'X' {
			return // it died meanwhile (a fatal signal): its end is collected as the node runs
		}
		w.fail(n, "", fmt.Sprintf("%s: writing its vDSO's clock readings: %v", t.name(), err))
		return
	}
	v.known, v.on, v.now = true, on, w.now
}

// vdsoOff switches task t's image to syscalls before t makes a second
// task (a thread or a process), which shares or inherits the image.
func (w *World) vdsoOff(t *task) error {
	n := t.n
	addr := n.vdsoOf(t)
	if addr == 0 {
		return nil
	}
	v := n.vclockOf(t)
	if v.known && !v.on {
		return nil
	}
	if err := v.write(t, addr+vdsoOnOffset, make([]byte, 4)); err != nil {
		return fmt.Errorf("switching its vDSO to syscalls: %v", err)
	}
	v.known, v.on = true, false
	return nil
}

// releaseVclocks closes the node's descriptors of its processes' memory.
func (n *node) releaseVclocks() {
	n.vclock.forget(false)
	for _, p := range n.procs {
		p.vclock.forget(false)
	}
}
