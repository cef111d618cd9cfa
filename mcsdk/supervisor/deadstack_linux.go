//go:build linux && amd64

package supervisor

// Dead stack. When the kernel delivers a signal it writes a frame below
// the thread's stack pointer: saved registers and the XSAVE image of the
// floating-point state. The processor's init optimisation decides whether
// the SSE and AVX parts are written (XSTATE_BV), and it depends on context
// switches, not on the program: two runs leave different bytes there.
// Once the handler returns, that memory is dead (below the stack pointer,
// beyond the 128-byte red zone a leaf function may use); a program that
// reads it reads uninitialised stack. Memory hashing therefore skips, in
// each thread's stack mapping, the bytes below sp-128.

// redZone is the x86-64 ABI's red zone below the stack pointer.
const redZone = 128

// stackPointers returns the stack pointer of every live thread of n.
func (n *node) stackPointers() ([]uint64, error) {
	var sps []uint64
	for _, t := range n.tasks {
		if t.exited {
			continue
		}
		regs, err := t.taskRegs()
		if err != nil {
			return nil, err
		}
		switch {
		case t.held && len(regs) > 18:
			sps = append(sps, regs[18]) // PtraceRegs order: Rsp is 19th
		case !t.held && len(regs) > 0:
			sps = append(sps, regs[0])
		}
	}
	return sps, nil
}

// liveFrom is where live memory begins in the mapping [lo, hi): above the
// dead stack of the lowest thread whose stack pointer lies in it, else lo.
func liveFrom(lo, hi uint64, sps []uint64) uint64 {
	from := hi
	for _, sp := range sps {
		if sp >= lo && sp < hi {
			from = min(from, max(sp-redZone, lo))
		}
	}
	if from == hi {
		return lo
	}
	return from &^ 7
}
