//go:build linux && amd64

package supervisor

import (
	"fmt"
	"io"
	"os"
	"unsafe"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// buildFilter builds, with libseccomp, the filter every node runs under:
// notify weft by default, and allow only the syscalls the table passes
// through. A call of another architecture (a 32-bit int 0x80, x32) kills
// the process. The program is exported rather than loaded, so it can be
// loaded on one thread without TSYNC.
func buildFilter() ([]unix.SockFilter, error) { return buildFilterAllowing(passedNumbers(), false) }

// tracedMappings are the passthrough calls that can make code executable:
// with TSC patching (tscpatch_linux.go) the filter hands them to weft as
// ptrace stops (SECCOMP_RET_TRACE) so that weft patches the new code —
// mmap, mprotect and pkey_mprotect only when their prot has PROT_EXEC,
// personality only when it sets READ_IMPLIES_EXEC (which would make later
// PROT_READ mappings executable; addPersonalityRules), mremap and
// remap_file_pages always.
var tracedMappings = map[int]struct {
	arg uint   // the argument tested
	bit uint64 // the bit that must be set; 0: always traced
}{
	unix.SYS_MMAP: {2, unix.PROT_EXEC}, unix.SYS_MPROTECT: {2, unix.PROT_EXEC}, unix.SYS_PKEY_MPROTECT: {2, unix.PROT_EXEC},
	unix.SYS_PERSONALITY: {0, readImpliesExec}, unix.SYS_MREMAP: {}, unix.SYS_REMAP_FILE_PAGES: {},
}

// injectedChdir marks a chdir weft injects (injectChdir: a node copied
// from a template or a checkpoint moving to its run directory) in the
// call's second argument, which chdir does not read: the filter passes
// that chdir and notifies weft of every other (sysChdir serves the
// node's own). A node that forges the mark changes only its own host
// working directory, which weft reads back through its view (Locate): a
// directory outside the view resolves no relative path.
const injectedChdir = 0x7765_6674_6364_6972 // "weftcdir"

// readImpliesExec is personality(2)'s READ_IMPLIES_EXEC.
const readImpliesExec = 0x0400000

// addPersonalityRules allows personality(2) when it keeps
// ADDR_NO_RANDOMIZE set, and traces it otherwise: weft keeps address
// randomisation off (traceMapping sets the bit again), since a process
// that cleared it and exec'd would lay out its memory from the host's
// randomness (redteam aslr-personality). With traceExec it traces
// READ_IMPLIES_EXEC too (tracedMappings).
func addPersonalityRules(f *seccomp.ScmpFilter, trace seccomp.ScmpAction, traceExec bool) error {
	mask := uint64(addrNoRandomize)
	if traceExec {
		mask |= readImpliesExec
	}
	rule := func(act seccomp.ScmpAction, v uint64) error {
		c, err := seccomp.MakeCondition(0, seccomp.CompareMaskedEqual, mask, v)
		if err == nil {
			err = f.AddRuleConditional(seccomp.ScmpSyscall(unix.SYS_PERSONALITY), act, []seccomp.ScmpCondition{c})
		}
		if err != nil {
			return fmt.Errorf("rule for personality: %w", err)
		}
		return nil
	}
	if err := rule(seccomp.ActAllow, addrNoRandomize); err != nil {
		return err
	}
	for _, v := range []uint64{0, readImpliesExec, readImpliesExec | addrNoRandomize} {
		if v&^mask == 0 && v != addrNoRandomize {
			if err := rule(trace, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// addArchPrctlRules allows arch_prctl(2) but ARCH_GET_CPUID and
// ARCH_SET_CPUID (adjacent codes), and the latter only as weft injects
// it (cpuidMark: turning cpuid faulting on); the node's own are notified
// (sysArchPrctl), so it can neither see nor turn off weft's faulting.
func addArchPrctlRules(f *seccomp.ScmpFilter) error {
	below, _ := seccomp.MakeCondition(0, seccomp.CompareLess, archGetCPUID)
	above, _ := seccomp.MakeCondition(0, seccomp.CompareGreater, archSetCPUID)
	set, _ := seccomp.MakeCondition(0, seccomp.CompareEqual, archSetCPUID)
	on, _ := seccomp.MakeCondition(1, seccomp.CompareEqual, 0)
	mark, _ := seccomp.MakeCondition(2, seccomp.CompareEqual, cpuidMark)
	nr := seccomp.ScmpSyscall(unix.SYS_ARCH_PRCTL)
	for _, conds := range [][]seccomp.ScmpCondition{{below}, {above}, {set, on, mark}} {
		if err := f.AddRuleConditional(nr, seccomp.ActAllow, conds); err != nil {
			return fmt.Errorf("rule for arch_prctl: %w", err)
		}
	}
	return nil
}

// buildFilterAllowing builds the filter that allows the syscalls allowed
// and notifies weft of every other; with traceExec, the calls of
// tracedMappings among them are traced instead where they can make code
// executable.
func buildFilterAllowing(allowed []int, traceExec bool) ([]unix.SockFilter, error) {
	f, err := seccomp.NewFilter(seccomp.ActNotify)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	if err := f.SetNoNewPrivsBit(false); err != nil {
		return nil, err
	}
	if err := f.SetBadArchAction(seccomp.ActKillProcess); err != nil {
		return nil, err
	}
	// A binary tree of comparisons rather than a linear list: the
	// passthrough rows are most of what a node calls.
	if err := f.SetOptimize(2); err != nil {
		return nil, err
	}
	trace := seccomp.ActTrace.SetReturnCode(0)
	for _, nr := range allowed {
		if nr == unix.SYS_PERSONALITY {
			if err := addPersonalityRules(f, trace, traceExec); err != nil {
				return nil, err
			}
			continue
		}
		if tr, ok := tracedMappings[nr]; ok && traceExec {
			var err error
			if tr.bit != 0 {
				execBit := func(v uint64) seccomp.ScmpCondition {
					c, _ := seccomp.MakeCondition(tr.arg, seccomp.CompareMaskedEqual, tr.bit, v)
					return c
				}
				err = f.AddRuleConditional(seccomp.ScmpSyscall(nr), seccomp.ActAllow, []seccomp.ScmpCondition{execBit(0)})
				if err == nil {
					err = f.AddRuleConditional(seccomp.ScmpSyscall(nr), trace, []seccomp.ScmpCondition{execBit(tr.bit)})
				}
			} else {
				err = f.AddRule(seccomp.ScmpSyscall(nr), trace)
			}
			if err != nil {
				return nil, fmt.Errorf("rule for %s: %w", sysName(nr), err)
			}
			continue
		}
		if err := f.AddRule(seccomp.ScmpSyscall(nr), seccomp.ActAllow); err != nil {
			return nil, fmt.Errorf("rule for %s: %w", sysName(nr), err)
		}
	}
	if len(allowed) > 0 {
		if err := addArchPrctlRules(f); err != nil {
			return nil, err
		}
	}
	marked, _ := seccomp.MakeCondition(1, seccomp.CompareEqual, injectedChdir)
	if err := f.AddRuleConditional(seccomp.ScmpSyscall(unix.SYS_CHDIR), seccomp.ActAllow, []seccomp.ScmpCondition{marked}); err != nil {
		return nil, fmt.Errorf("rule for chdir: %w", err)
	}
	mfd, err := unix.MemfdCreate("weft-filter", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	file := os.NewFile(uintptr(mfd), "weft-filter")
	defer file.Close()
	if err := f.ExportBPF(file); err != nil {
		return nil, err
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(file)
	if err != nil {
		return nil, err
	}
	const insn = int(unsafe.Sizeof(unix.SockFilter{}))
	if len(raw) == 0 || len(raw)%insn != 0 {
		return nil, fmt.Errorf("exported BPF has %d bytes", len(raw))
	}
	prog := make([]unix.SockFilter, len(raw)/insn)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(raw)), raw)
	return prog, nil
}
