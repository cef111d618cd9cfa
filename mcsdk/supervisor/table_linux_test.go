//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"
	"testing"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestTableDecidesEverySyscall checks that every x86-64 syscall number up
// to maxSyscall has a row with a complete decision, that the unassigned
// numbers have none, and that each row's name is libseccomp's for its
// number (where libseccomp knows it), so no row is filed under the wrong
// number.
func TestTableDecidesEverySyscall(t *testing.T) {
	counts := map[decision]int{}
	for nr := 0; nr <= maxSyscall; nr++ {
		e, ok := syscallTable[nr]
		if unassigned(nr) {
			if ok {
				t.Errorf("syscall %d is unassigned on x86-64 but has row %q", nr, e.name)
			}
			continue
		}
		if !ok {
			name, _ := seccomp.ScmpSyscall(nr).GetNameByArch(seccomp.ArchAMD64)
			t.Errorf("syscall %d (%s) has no decision", nr, name)
			continue
		}
		counts[e.decision]++
		if name, err := seccomp.ScmpSyscall(nr).GetNameByArch(seccomp.ArchAMD64); err == nil && name != e.name {
			t.Errorf("syscall %d is %s, but its row says %q", nr, name, e.name)
		}
		switch {
		case e.decision == serve && e.handler == nil:
			t.Errorf("%s is served without a handler", e.name)
		case e.decision != serve && e.handler != nil:
			t.Errorf("%s is %v but has a handler", e.name, e.decision)
		case e.decision == refuse && e.errno == 0:
			t.Errorf("%s is refused without an errno", e.name)
		case e.decision != serve && e.note == "":
			t.Errorf("%s is %v without a reason", e.name, e.decision)
		}
	}
	for nr, e := range syscallTable {
		if nr < 0 || nr > maxSyscall {
			t.Errorf("row %q has number %d, outside 0..%d", e.name, nr, maxSyscall)
		}
	}
	t.Logf("decisions: %d served, %d passthrough, %d refused, %d unsupported",
		counts[serve], counts[passthrough], counts[refuse], counts[unsupported])
}

// Actions of a seccomp program (linux/seccomp.h).
const (
	retKillProcess = 0x80000000
	retUserNotif   = 0x7fc00000
	retTrace       = 0x7ff00000
	retAllow       = 0x7fff0000
	auditArchI386  = 0x40000003
	x32SyscallBit  = 0x40000000
)

// TestFilterFollowsTable runs the exported filter in x/net/bpf's
// interpreter for every syscall number: the table's passthrough rows are
// allowed, every other number notifies weft, and calls from another
// architecture or the x32 ABI kill the process. The variant for TSC
// patching (traceExec) traces instead the passthrough calls that can make
// code executable, with the argument bit that does (tracedMappings), and
// allows them without it.
func TestFilterFollowsTable(t *testing.T) {
	for _, traceExec := range []bool{false, true} {
		t.Run(fmt.Sprintf("traceExec=%v", traceExec), func(t *testing.T) { testFilter(t, traceExec) })
	}
}

func testFilter(t *testing.T, traceExec bool) {
	prog, err := buildFilterAllowing(passedNumbers(), traceExec)
	if err != nil {
		t.Fatal(err)
	}
	// BPF_MAXINSNS, and the size of the native launcher's buffer.
	if len(prog) > 4096 {
		t.Fatalf("the filter has %d instructions, more than the kernel's 4096", len(prog))
	}
	t.Logf("filter: %d instructions", len(prog))
	raw := make([]bpf.RawInstruction, len(prog))
	for i, p := range prog {
		raw[i] = bpf.RawInstruction{Op: p.Code, Jt: p.Jt, Jf: p.Jf, K: p.K}
	}
	insns, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatal("the exported program has instructions x/net/bpf cannot decode")
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	run := func(nr, arch uint32, args ...uint64) uint32 {
		t.Helper()
		got, err := vm.Run(seccompInput(nr, arch, args...))
		if err != nil {
			t.Fatalf("syscall %d: %v", nr, err)
		}
		return uint32(got)
	}
	traceIf := func(yes bool) uint32 {
		if yes {
			return retTrace
		}
		return retAllow
	}
	// Rows the filter decides by argument beyond the table's decision
	// (addPersonalityRules, addArchPrctlRules): each case's answer.
	byArgs := map[int][]struct {
		args []uint64
		want uint32
	}{
		unix.SYS_PERSONALITY: {
			{[]uint64{addrNoRandomize}, retAllow},
			{[]uint64{addrNoRandomize | 8}, retAllow},
			{[]uint64{0}, retTrace}, // would turn address randomisation back on
			{[]uint64{8}, retTrace},
			{[]uint64{addrNoRandomize | readImpliesExec}, traceIf(traceExec)},
			{[]uint64{0xffffffff}, traceIf(traceExec)}, // a query
		},
		unix.SYS_ARCH_PRCTL: {
			{[]uint64{0x1002, 0x7000}, retAllow}, // ARCH_SET_FS
			{[]uint64{0x1021}, retAllow},         // ARCH_GET_XCOMP_SUPP
			{[]uint64{archGetCPUID}, retUserNotif},
			{[]uint64{archSetCPUID, 1}, retUserNotif},
			{[]uint64{archSetCPUID, 0}, retUserNotif},
			{[]uint64{archSetCPUID, 1, cpuidMark}, retUserNotif},
			{[]uint64{archSetCPUID, 0, cpuidMark}, retAllow}, // weft's own (faultCPUID)
		},
	}
	for nr, cases := range byArgs {
		for _, c := range cases {
			if got := run(uint32(nr), unix.AUDIT_ARCH_X86_64, c.args...); got != c.want {
				t.Errorf("%s with %#x: filter answers %#x, want %#x", sysName(nr), c.args, got, c.want)
			}
		}
	}
	traced := 0
	for nr := 0; nr <= maxSyscall+64; nr++ {
		if _, ok := byArgs[nr]; ok && !(traceExec && nr == unix.SYS_PERSONALITY) {
			continue
		}
		want := uint32(retUserNotif)
		if lookup(nr).decision == passthrough {
			want = retAllow
		}
		tr, isTraced := tracedMappings[nr]
		if isTraced && traceExec {
			if want != retAllow {
				t.Fatalf("%s is traced for TSC patching but is no passthrough row", sysName(nr))
			}
			traced++
			var args [6]uint64
			if tr.bit == 0 {
				want = retTrace
			} else {
				args[tr.arg] = tr.bit | 1 // the bit, and another
				if got := run(uint32(nr), unix.AUDIT_ARCH_X86_64, args[:]...); got != retTrace {
					t.Errorf("%s with %#x in argument %d: filter answers %#x, want TRACE", sysName(nr), args[tr.arg], tr.arg, got)
				}
				args[tr.arg] = ^tr.bit // every other bit
			}
			if got := run(uint32(nr), unix.AUDIT_ARCH_X86_64, args[:]...); got != want {
				t.Errorf("%s (%d) with arguments %#x: filter answers %#x, want %#x", sysName(nr), nr, args, got, want)
			}
			continue
		}
		if got := run(uint32(nr), unix.AUDIT_ARCH_X86_64); got != want {
			t.Errorf("%s (%d): filter answers %#x, table wants %#x", sysName(nr), nr, got, want)
		}
	}
	if traceExec && traced != len(tracedMappings) {
		t.Errorf("%d of the %d traced calls are in the table", traced, len(tracedMappings))
	}
	for _, nr := range []uint32{unix.SYS_READ, unix.SYS_MMAP, unix.SYS_EXIT_GROUP} {
		if got := run(nr, auditArchI386); got != retKillProcess {
			t.Errorf("i386 syscall %d: filter answers %#x, want KILL_PROCESS", nr, got)
		}
		if got := run(nr|x32SyscallBit, unix.AUDIT_ARCH_X86_64); got != retKillProcess {
			t.Errorf("x32 syscall %d: filter answers %#x, want KILL_PROCESS", nr, got)
		}
	}
}

// seccompInput lays out struct seccomp_data for x/net/bpf, whose loads
// are big-endian: each 32-bit word is stored in network order at the
// offset where the kernel's little-endian struct has it.
func seccompInput(nr, arch uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args { // args[i] at 16 + 8i: its low word, then its high word
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[20+8*i:], uint32(a>>32))
	}
	return b
}
