//go:build linux && amd64

package supervisor

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Patching the TSC reads. Trapping every rdtsc with PR_SET_TSC makes the
// kernel flip CR4.TSD on every context switch into and out of the node,
// and on a virtual machine that can cost several microseconds a switch:
// on the machine weft is developed on, a node's intercepted syscall took
// about three times as long with the TSC trapped. So by default weft
// does not trap the TSC; instead it finds every rdtsc and rdtscp in the
// node's executable mappings (tscscan.go) and writes over each, before any
// of that code can run, an instruction that faults the same way a
// trapped rdtsc does: `int $v` with a vector no user process may raise,
// so the CPU raises a general-protection fault, the kernel sends SIGSEGV
// with SI_KERNEL, and weft, which keeps the node seized, sees the stop.
// The vector says what the instruction was: 0xE0|len for an rdtsc, 0xF0|len
// for an rdtscp, len the original instruction's length with its
// prefixes (the rest of it becomes NOPs). emulateTSC then answers it from
// the virtual counter exactly as it answers a trapped rdtsc, so the values
// a program reads, and every recording, are the same either way.
//
// When code is patched:
//   - at an exec stop, the new image's executable mappings (the program,
//     its dynamic loader and the vDSO), before its first instruction;
//   - when the process maps or remaps memory executable: the filter
//     hands mmap, mprotect and pkey_mprotect with PROT_EXEC, mremap and
//     remap_file_pages to weft as a ptrace stop (SECCOMP_RET_TRACE), weft
//     follows the call to its exit and patches the new code before the
//     thread goes on; personality(READ_IMPLIES_EXEC), after which every
//     readable mapping is executable unseen, traps the TSC instead.
//
// When a process's code cannot be patched (bytes of an rdtsc where the
// sweep could not decode, as OpenSSL's tables inside its code; a mapping
// both writable and executable, whose code can change without a syscall;
// anonymous executable memory holding those bytes), weft traps the TSC in
// that process from then on: it makes the thread call prctl(PR_SET_TSC,
// PR_TSC_SIGSEGV) at the stop (the setting is inherited by its threads and
// children and survives exec). A process with more than one thread at that
// point cannot be switched (the setting is per thread): the run ends with
// verdict error, and Config.TrapTSC (WEFT_TSC=trap) traps from the start.
//
// On a machine that cannot trap the TSC (TSCTraps: PR_SET_TSC accepted,
// rdtsc native all the same) that switch would leave every later TSC read
// of the process native and stop weft following the code it maps. There
// weft keeps the process patched instead: it patches every mapping it can
// (at launch, at exec and at every traced mapping, the dynamic loader's
// and each library's included), and only the code it cannot patch runs
// its TSC reads natively, named in the run's refusals (warnTSCNative).

// tscPatching reports whether nodes run with their TSC reads patched
// rather than trapped from the start.
func (w *World) tscPatching() bool {
	return !w.cfg.NativeTSC && !w.cfg.TrapTSC && !w.cfg.NotifyAll
}

// tscPatch is the patch for one site.
func tscPatch(s tscSite) []byte {
	p := bytes.Repeat([]byte{0x90}, int(s.length))
	p[0] = 0xcd
	if s.rdtscp {
		p[1] = 0xf0 | s.length
	} else {
		p[1] = 0xe0 | s.length
	}
	return p
}

// patchedTSC decodes the instruction at rip if it is one of weft's
// patches: its length and whether it stands for rdtscp.
func patchedTSC(insn []byte) (length int, rdtscp, ok bool) {
	if len(insn) < 2 || insn[0] != 0xcd || insn[1] < 0xe2 {
		return 0, false, false
	}
	length = int(insn[1] & 0x0f)
	rdtscp = insn[1]&0xf0 == 0xf0
	if rdtscp && length < 3 {
		return 0, false, false
	}
	return length, rdtscp, true
}

// scannedFile is a cached sweep of one file.
type scannedFile struct {
	scan *tscScan
	err  error
}

// tscFiles caches sweeps by path, device, inode, size and modification
// time: a campaign's runs map the same few files thousands of times.
var tscFiles sync.Map // string -> *scannedFile

// versionKey names the version of the file at path: its path, device,
// inode, size and modification time.
func versionKey(path string) (string, unix.Stat_t, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", st, err
	}
	return fmt.Sprintf("%s\x00%d:%d:%d:%d.%d", path, st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec), st, nil
}

func scanFileCached(path string, ino uint64) (*tscScan, error) {
	key, st, err := versionKey(path)
	if err != nil {
		return nil, err
	}
	if st.Ino != ino {
		return nil, fmt.Errorf("%s was replaced since it was mapped", path)
	}
	if v, ok := tscFiles.Load(key); ok {
		sf := v.(*scannedFile)
		return sf.scan, sf.err
	}
	f, err := os.Open(path)
	sf := &scannedFile{err: err}
	if err == nil {
		sf.scan, sf.err = scanELF(f, st.Size)
		f.Close()
	}
	tscFiles.Store(key, sf)
	return sf.scan, sf.err
}

// patchWhy is why code could not be patched: its TSC reads (the process
// then traps the TSC), its CPU-identity instructions (the run's refusals
// say so); "" where it could.
type patchWhy struct{ tsc, cpu string }

// patchCode patches every CPU-identity instruction in pid's executable
// mappings that overlap [lo, hi), and with tsc every TSC read too (until
// one mapping's cannot be: the process then traps the TSC). It returns why
// it could not.
//
// With every (a machine that cannot trap the TSC, cannotTrapTSC), it goes
// on patching the TSC reads of every mapping it can, and why names every
// mapping it could not, not only the first.
//
// With written, a file's mapping may hold bytes the process wrote (it was
// writable before an mprotect made it executable): it is compared with
// the file, and if it differs beyond weft's own patches it is checked as
// anonymous memory is.
func patchCode(pid int, lo, hi uint64, written, tsc, every bool) (patchWhy, error) {
	var why patchWhy
	maps, err := readMaps(pid)
	if err != nil {
		return why, err
	}
	var mem *os.File // /proc/PID/mem, which writes read-only code as a debugger does (a copy on write)
	defer func() {
		if mem != nil {
			mem.Close()
		}
	}()
	for _, m := range maps {
		if len(m.perms) < 3 || m.perms[2] != 'x' || m.end <= lo || m.start >= hi {
			continue
		}
		if m.name == "[vsyscall]" {
			continue // the kernel emulates its three calls; no user code runs there
		}
		if m.perms[1] == 'w' {
			r := fmt.Sprintf("a writable and executable mapping at %#x (%s)", m.start, nameOr(m.name))
			why.add(patchWhy{tsc: r, cpu: r}, every)
			continue
		}
		if mem == nil {
			if mem, err = os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_WRONLY, 0); err != nil {
				return why, err
			}
		}
		w, err := patchMapping(pid, mem, m, written, tsc && (every || why.tsc == ""))
		if err != nil {
			return why, err
		}
		why.add(w, every)
	}
	return why, nil
}

// add keeps the first reason of each kind, or with every all of them.
func (p *patchWhy) add(o patchWhy, every bool) {
	join := func(a, b string) string {
		switch {
		case a == "":
			return b
		case b == "" || !every:
			return a
		}
		return a + "; " + b
	}
	p.tsc, p.cpu = join(p.tsc, o.tsc), join(p.cpu, o.cpu)
}

func nameOr(name string) string {
	if name == "" {
		return "anonymous"
	}
	return name
}

// patchMapping patches one executable mapping: its CPU-identity
// instructions, and with tsc its TSC reads.
func patchMapping(pid int, mem *os.File, m mapping, written, tsc bool) (patchWhy, error) {
	var scan *tscScan
	switch {
	case strings.HasPrefix(m.name, "/") && m.ino != 0:
		path := strings.TrimSuffix(m.name, " (deleted)")
		s, err := scanFileCached(path, m.ino)
		if err != nil {
			r := fmt.Sprintf("%s: %v", path, err)
			return patchWhy{tsc: r, cpu: r}, nil
		}
		if written {
			if why, changed := writtenCode(pid, m, path, s); changed {
				return why, nil
			}
		}
		scan = s
	case m.name == "[vdso]":
		code, err := readCode(pid, m)
		if err != nil {
			return patchWhy{}, err
		}
		s, err := scanELF(bytes.NewReader(code), int64(len(code)))
		if err != nil {
			r := fmt.Sprintf("the vDSO: %v", err)
			return patchWhy{tsc: r, cpu: r}, nil
		}
		scan, m.off = s, 0
	default: // anonymous, or a name weft cannot open
		code := make([]byte, m.end-m.start)
		k, _ := readMem(pid, uintptr(m.start), code)
		code = code[:max(k, 0)]
		var why patchWhy
		if r := scanBytes(code); r != "" {
			why.tsc = fmt.Sprintf("%s at %#x: %s", nameOr(m.name), m.start, r)
		}
		if r := scanCPUBytes(code); r != "" {
			why.cpu = fmt.Sprintf("%s at %#x: %s", nameOr(m.name), m.start, r)
		}
		return why, nil
	}
	why := patchWhy{cpu: cpuPatchable(scan, m)}
	if why.cpu == "" {
		for _, s := range scan.cpuSites {
			if err := patchAt(mem, m, s.off, s.insn.Patch()); err != nil {
				return why, err
			}
		}
	}
	if !tsc {
		return why, nil
	}
	if why.tsc = tscPatchable(scan, m); why.tsc != "" {
		return why, nil
	}
	for _, s := range scan.sites {
		if err := patchAt(mem, m, s.off, tscPatch(s)); err != nil {
			return why, err
		}
	}
	return why, nil
}

// tscPatchable says why mapping m of an image scanned as scan cannot have
// its TSC reads patched ("" if it can).
func tscPatchable(scan *tscScan, m mapping) string {
	if scan.ambiguous != "" {
		return fmt.Sprintf("%s: %s", m.name, scan.ambiguous)
	}
	// A mapping may show more of a file than its executable segments.
	lo, hi := m.off, m.off+int64(m.end-m.start)
	for _, off := range scan.loose {
		if off >= lo && off < hi {
			return fmt.Sprintf("%s: a TSC read's bytes at file offset %#x, outside its executable segments, are mapped executable", m.name, off)
		}
	}
	return ""
}

// cpuPatchable is tscPatchable for the CPU-identity instructions.
func cpuPatchable(scan *tscScan, m mapping) string {
	if scan.cpuAmbiguous != "" {
		return fmt.Sprintf("%s: %s", m.name, scan.cpuAmbiguous)
	}
	lo, hi := m.off, m.off+int64(m.end-m.start)
	for _, off := range scan.cpuLoose {
		if off >= lo && off < hi {
			return fmt.Sprintf("%s: a CPU-identity instruction's opcode at file offset %#x, outside its executable segments, is mapped executable", m.name, off)
		}
	}
	return ""
}

// patchAt writes patch p over the instruction at file offset off of
// mapping m, if the mapping shows all of it.
func patchAt(mem *os.File, m mapping, off int64, p []byte) error {
	lo, hi := m.off, m.off+int64(m.end-m.start)
	if off < lo || off+int64(len(p)) > hi {
		return nil
	}
	addr := uintptr(m.start + uint64(off-lo))
	if _, err := mem.WriteAt(p, int64(addr)); err != nil {
		return fmt.Errorf("patching the instruction at %#x in %s: %v", addr, m.name, err)
	}
	return nil
}

// writtenCode compares file mapping m, made executable by mprotect, with
// the file at path: if the process wrote into its copy (beyond weft's
// patches), changed is true and its memory is checked as anonymous memory
// is (no reason if it holds no TSC read's or CPU instruction's bytes).
func writtenCode(pid int, m mapping, path string, scan *tscScan) (why patchWhy, changed bool) {
	code := make([]byte, m.end-m.start)
	k, _ := readMem(pid, uintptr(m.start), code)
	code = code[:max(k, 0)]
	orig := make([]byte, len(code))
	if f, err := os.Open(path); err == nil {
		k, _ := f.ReadAt(orig, m.off)
		orig = orig[:k]
		f.Close()
	}
	if sameButPatches(code, orig, scan, m.off) {
		return why, false
	}
	if r := scanBytes(code); r != "" {
		why.tsc = fmt.Sprintf("%s at %#x, written since it was mapped: %s", m.name, m.start, r)
	}
	if r := scanCPUBytes(code); r != "" {
		why.cpu = fmt.Sprintf("%s at %#x, written since it was mapped: %s", m.name, m.start, r)
	}
	return why, true
}

// sameButPatches reports whether code (a mapping's memory, from file
// offset base) equals orig (the file's bytes there) but for weft's
// patches of scan's sites.
func sameButPatches(code, orig []byte, scan *tscScan, base int64) bool {
	if len(code) != len(orig) {
		return false
	}
	type patch struct {
		off int64
		p   []byte
	}
	var patches []patch
	for _, s := range scan.sites {
		patches = append(patches, patch{s.off, tscPatch(s)})
	}
	for _, s := range scan.cpuSites {
		patches = append(patches, patch{s.off, s.insn.Patch()})
	}
	for i := 0; i < len(code); i++ {
		if code[i] == orig[i] {
			continue
		}
		ok := false
		for _, s := range patches {
			j := int(s.off - base)
			if i >= j && i < j+len(s.p) {
				ok = j >= 0 && j+len(s.p) <= len(code) && bytes.Equal(code[j:j+len(s.p)], s.p)
				if ok {
					i = j + len(s.p) - 1
				}
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// traceMapping follows thread t, stopped by the filter at a call that may
// make code executable (PTRACE_EVENT_SECCOMP), to the call's exit, and
// patches the code it made before the thread goes on. On the tracer.
func (w *World) traceMapping(t *task) error {
	var regs unix.PtraceRegs
	var err error
	t.n.onTracer(func() { err = unix.PtraceGetRegs(t.tid, &regs) })
	if err != nil {
		return err
	}
	nr := int(regs.Orig_rax)
	trapped := *t.n.trapTSCOf(t) // it traps the TSC already: only its CPU-identity instructions to patch
	a0, a1, a2 := regs.Rdi, regs.Rsi, regs.Rdx
	var lo, hi uint64 // what may have become executable; mmap and mremap say at their exit
	switch nr {
	case unix.SYS_MMAP, unix.SYS_MREMAP:
	case unix.SYS_MPROTECT, unix.SYS_PKEY_MPROTECT, unix.SYS_REMAP_FILE_PAGES:
		lo, hi = a0, a0+a1
	case unix.SYS_PERSONALITY:
		if uint32(a0) == 0xffffffff {
			return t.ptraceCont(0) // a query: nothing changes
		}
		if a0&addrNoRandomize == 0 {
			// Address randomisation stays off (addPersonalityRules): the
			// call sets the persona asked for with ADDR_NO_RANDOMIZE.
			regs.Rdi |= addrNoRandomize
			t.n.onTracer(func() { err = unix.PtraceSetRegs(t.tid, &regs) })
			if err != nil {
				return err
			}
		}
		if a0&readImpliesExec == 0 {
			return t.ptraceCont(0)
		}
	default:
		return fmt.Errorf("%s: unexpected traced syscall %d", t.name(), nr)
	}
	if ended, err := t.toSyscallExit(); err != nil || ended {
		return err // an end: pollThreads collects it
	}
	t.n.onTracer(func() { err = unix.PtraceGetRegs(t.tid, &regs) })
	if err != nil {
		return err
	}
	res := regs.Rax
	if int64(res) < 0 && int64(res) > -4096 {
		return t.ptraceCont(0) // failed: nothing new is executable
	}
	switch nr {
	case unix.SYS_MMAP:
		lo, hi = res, res+a1
	case unix.SYS_MREMAP:
		lo, hi = res, res+a2
	}
	var why patchWhy
	if nr == unix.SYS_PERSONALITY {
		// Every readable mapping from now on is executable without a
		// traced call: weft can no longer see new code being mapped.
		why = patchWhy{tsc: "personality(READ_IMPLIES_EXEC)", cpu: "personality(READ_IMPLIES_EXEC)"}
	} else if why, err = patchCode(t.tid, lo, hi, nr != unix.SYS_MMAP && nr != unix.SYS_MREMAP, !trapped, w.cannotTrapTSC()); err != nil {
		return err
	}
	if why.cpu != "" {
		faulted, err := w.faultCPUIDNow(t, regs)
		if err != nil {
			return err
		}
		if !faulted {
			w.warnCPU(t.n.id, fmt.Sprintf("%s: its code cannot be patched for a virtual CPU (%s)", t.name(), why.cpu))
		}
	}
	if why.tsc != "" && !trapped {
		if err := w.unpatchedTSC(t, &regs, regs.Rip-2, why.tsc); err != nil {
			return err
		}
	}
	return t.ptraceCont(0)
}

// unpatchedTSC handles code of t's process whose TSC reads could not be
// patched (why): it traps the TSC from here (trapTSCNow), or on a machine
// that cannot trap it (cannotTrapTSC) leaves the process patched, the
// code named by why reading the host's counter, and says so in the run's
// refusals. sysIP is as for trapTSCNow.
func (w *World) unpatchedTSC(t *task, regs *unix.PtraceRegs, sysIP uint64, why string) error {
	if w.cannotTrapTSC() {
		w.warnTSCNative(t.n.id, fmt.Sprintf("%s: its code cannot be patched for a deterministic TSC (%s)", t.name(), why))
		return nil
	}
	return w.trapTSCNow(t, regs, sysIP, why)
}

// patchExec patches the new image of t's process at its exec stop, or
// traps the TSC from here if the image cannot be patched. It also hides
// the raw [vvar] pages (hideVvar).
func (w *World) patchExec(t *task) error {
	if w.cfg.NativeTSC {
		return nil
	}
	trapped := *t.n.trapTSCOf(t)
	why, err := patchCode(t.tid, 0, ^uint64(0), false, !trapped, w.cannotTrapTSC())
	if err != nil {
		return err
	}
	fault := why.cpu != "" && faultsCPUID(false) && !w.cfg.NotifyAll
	t.n.onTracer(func() { err = hideVvarUnlessNotifyAll(t.tid, true, fault, w.cfg.NotifyAll) })
	if err != nil {
		return fmt.Errorf("%s: %v", t.name(), err)
	}
	if why.cpu != "" && !fault {
		w.warnCPU(t.n.id, fmt.Sprintf("%s: its code cannot be patched for a virtual CPU (%s)", t.name(), why.cpu))
	}
	if why.tsc == "" || trapped {
		return nil
	}
	if w.cannotTrapTSC() {
		return w.unpatchedTSC(t, nil, 0, why.tsc)
	}
	var regs unix.PtraceRegs
	t.n.onTracer(func() { err = unix.PtraceGetRegs(t.tid, &regs) })
	if err != nil {
		return err
	}
	sys, err := vdsoSyscall(t.tid)
	if err != nil {
		return fmt.Errorf("%s: trapping the TSC: %v", t.name(), err)
	}
	return w.unpatchedTSC(t, &regs, sys, why.tsc)
}

// readCode reads the whole of mapping m of process pid.
func readCode(pid int, m mapping) ([]byte, error) {
	code := make([]byte, m.end-m.start)
	if k, err := readMem(pid, uintptr(m.start), code); k != len(code) {
		return nil, fmt.Errorf("reading %s at %#x: %v", nameOr(m.name), m.start, err)
	}
	return code, nil
}

// vdsoSyscall finds a syscall instruction in pid's memory, for a call
// weft makes the process issue where its own code has none at hand: in
// the vDSO (the kernel's has one; weft's, vdso_linux.go, has none), or
// else in an executable mapping of a file (the program or its loader),
// checked in memory.
func vdsoSyscall(pid int) (uint64, error) {
	maps, err := readMaps(pid)
	if err != nil {
		return 0, err
	}
	for _, m := range maps {
		if m.name != "[vdso]" {
			continue
		}
		code, err := readCode(pid, m)
		if err != nil {
			return 0, err
		}
		s, err := scanELF(bytes.NewReader(code), int64(len(code)))
		if err != nil {
			return 0, err
		}
		if s.syscallAt >= 0 {
			return m.start + uint64(s.syscallAt), nil
		}
	}
	for _, m := range maps {
		if !strings.Contains(m.perms, "x") || !strings.HasPrefix(m.name, "/") {
			continue
		}
		s, err := scanFileCached(m.name, m.ino)
		if err != nil || s.syscallAt < m.off || s.syscallAt+2 > m.off+int64(m.end-m.start) {
			continue
		}
		at := m.start + uint64(s.syscallAt-m.off)
		var insn [2]byte
		if k, _ := readMem(pid, uintptr(at), insn[:]); k == 2 && insn == [2]byte{0x0f, 0x05} {
			return at, nil
		}
	}
	return 0, fmt.Errorf("no syscall instruction in the vDSO or a mapped image")
}

// trapTSCNow switches t's process to trapping the TSC: t, in a ptrace stop
// with regs, issues prctl(PR_SET_TSC, PR_TSC_SIGSEGV) at the syscall
// instruction sysIP, and then goes on from regs.
func (w *World) trapTSCNow(t *task, regs *unix.PtraceRegs, sysIP uint64, reason string) error {
	n := t.n
	threads := 0
	for _, o := range n.tasks {
		if !o.exited && o.p == t.p {
			threads++
		}
	}
	if threads > 1 {
		return fmt.Errorf("%s: its code cannot be patched for a deterministic TSC (%s), and the process has %d threads (PR_SET_TSC is per thread): run with WEFT_TSC=trap", t.name(), reason, threads)
	}
	w.warnTSCTrap(n.id, fmt.Sprintf("%s: its code cannot be patched for a deterministic TSC (%s)", t.name(), reason))
	saved := *regs
	var err error
	n.onTracer(func() {
		in := saved
		in.Rip, in.Rax, in.Orig_rax = sysIP, unix.SYS_PRCTL, ^uint64(0)
		in.Rdi, in.Rsi, in.Rdx, in.R10, in.R8 = prSetTSC, prTSCSigsegv, 0, 0, 0
		if err = unix.PtraceSetRegs(t.tid, &in); err != nil {
			return
		}
		if err = unix.PtraceSyscall(t.tid, 0); err != nil { // to the prctl's entry stop
			return
		}
		if _, err = awaitSyscallStop(t.tid, syscallStop); err != nil {
			return
		}
		if err = unix.PtraceSyscall(t.tid, 0); err != nil { // the filter notifies weft
			return
		}
		var nf notif
		if nf, err = awaitNotif(t.tid, n.listener); err != nil {
			return
		}
		if nf.Data.Nr != unix.SYS_PRCTL || nf.Data.Args[0] != prSetTSC {
			err = fmt.Errorf("expected the injected prctl, got syscall %d", nf.Data.Nr)
			return
		}
		if err = sendResp(n.listener, &notifResp{ID: nf.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}); err != nil {
			return
		}
		if _, err = awaitSyscallStop(t.tid, syscallStop); err != nil { // its exit stop
			return
		}
		var out unix.PtraceRegs
		if err = unix.PtraceGetRegs(t.tid, &out); err != nil {
			return
		}
		if out.Rax != 0 {
			err = fmt.Errorf("prctl(PR_SET_TSC) failed: %v", syscall.Errno(-int64(out.Rax)))
			return
		}
		err = unix.PtraceSetRegs(t.tid, &saved)
	})
	if err != nil {
		return fmt.Errorf("%s: trapping the TSC: %v", t.name(), err)
	}
	*n.trapTSCOf(t) = true
	return nil
}

// trapTSCOf is whether task t's process traps the TSC.
func (n *node) trapTSCOf(t *task) *bool {
	if t.p != nil {
		return &t.p.trapTSC
	}
	return &n.trapTSC
}

// imagePatchable reports whether the program at path, its dynamic loader
// and the libraries it needs (DT_NEEDED, found in the system's library
// directories) can have their TSC reads patched. A program that would map
// code weft cannot patch traps the TSC from its start instead: switching
// at the mapping would cost a stop for every library mapped. This is only
// the likely answer; every mapping is still checked as it is made.
func imagePatchable(path string) bool {
	key, _, err := versionKey(path)
	if err != nil {
		return false
	}
	if v, ok := patchableImages.Load(key); ok {
		return v.(bool)
	}
	ok := closurePatchable(path)
	patchableImages.Store(key, ok)
	return ok
}

// patchableImages caches imagePatchable by the program's versionKey: every
// run of a campaign launches the same programs.
var patchableImages sync.Map // string -> bool

// closurePatchable walks the program, its loader and its needed libraries.
func closurePatchable(path string) bool {
	seen := map[string]bool{}
	var ok func(path string, depth int) bool
	ok = func(path string, depth int) bool {
		if seen[path] {
			return true
		}
		seen[path] = true
		var st unix.Stat_t
		if unix.Stat(path, &st) != nil {
			return false
		}
		scan, err := scanFileCached(path, st.Ino)
		if err != nil || scan.ambiguous != "" {
			return false
		}
		if scan.interp != "" && !ok(scan.interp, depth) {
			return false
		}
		if depth < 8 {
			for _, lib := range scan.needed {
				if p := findLibrary(lib); p != "" && !ok(p, depth+1) {
					return false
				}
			}
		}
		return true
	}
	return ok(path, 0)
}

// libraryDirs are where findLibrary looks, as the dynamic loader's
// defaults on Debian's x86-64 (ld.so.conf.d's multiarch directories).
var libraryDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// findLibrary is the path of the library named name (a DT_NEEDED entry),
// or "" if none of libraryDirs has it.
func findLibrary(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	for _, d := range libraryDirs {
		p := d + "/" + name
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
