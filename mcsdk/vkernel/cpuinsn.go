package vkernel

// The CPU-identity instructions: which one a decoded instruction is, the
// patch the supervisor writes over it (a fault that says what it stood
// for), and what performing it on the virtual CPU does to the registers.

// A CPUOp is one of the instructions the virtual CPU answers.
type CPUOp uint8

// The instructions.
const (
	OpCPUID  CPUOp = iota + 1 // 0F A2
	OpRDRAND                  // 0F C7 /6, register form
	OpRDSEED                  // 0F C7 /7, register form
	OpRDPID                   // F3 0F C7 /7, register form
	OpLSL                     // 0F 03 /r, register source
	OpLSLMem                  // 0F 03 /r, memory source: found, never patched
)

var opNames = [...]string{OpCPUID: "cpuid", OpRDRAND: "rdrand", OpRDSEED: "rdseed", OpRDPID: "rdpid", OpLSL: "lsl", OpLSLMem: "lsl"}

func (o CPUOp) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "?"
}

// A CPUInsn is one decoded instruction: its op, its length with its
// prefixes, its ModRM byte, its REX bits (W R X B) and whether it has the
// operand-size prefix 66.
type CPUInsn struct {
	Op       CPUOp
	Len      uint8
	ModRM    uint8
	REX      uint8
	Opsize16 bool
}

// DecodeCPUInsn says which CPU-identity instruction in is, in being
// exactly one instruction (the supervisor's length decoder delimits it).
func DecodeCPUInsn(in []byte) (CPUInsn, bool) {
	if len(in) < 2 || len(in) > 15 {
		return CPUInsn{}, false
	}
	ci := CPUInsn{Len: uint8(len(in))}
	rep := byte(0)
	i := 0
	for ; i < len(in); i++ {
		c := in[i]
		switch {
		case c == 0x66:
			ci.Opsize16 = true
		case c == 0xf2 || c == 0xf3:
			rep = c
		case c == 0x67 || c == 0xf0 || c == 0x2e || c == 0x36 || c == 0x3e || c == 0x26 || c == 0x64 || c == 0x65:
		case c >= 0x40 && c <= 0x4f:
			ci.REX = c & 0xf
			continue // a REX counts only right before the opcode
		default:
			goto opcode
		}
		ci.REX = 0
	}
	return CPUInsn{}, false
opcode:
	op := in[i:]
	switch {
	case len(op) == 2 && op[0] == 0x0f && op[1] == 0xa2:
		ci.Op = OpCPUID
	case len(op) == 3 && op[0] == 0x0f && op[1] == 0xc7 && op[2]>>6 == 3:
		ci.ModRM = op[2]
		switch reg := op[2] >> 3 & 7; {
		case reg == 6 && rep == 0:
			ci.Op = OpRDRAND
		case reg == 7 && rep == 0:
			ci.Op = OpRDSEED
		case reg == 7 && rep == 0xf3:
			ci.Op = OpRDPID
		default:
			return CPUInsn{}, false
		}
	case len(op) >= 3 && op[0] == 0x0f && op[1] == 0x03:
		ci.ModRM = op[2]
		ci.Op = OpLSL
		if op[2]>>6 != 3 {
			ci.Op = OpLSLMem
		}
	default:
		return CPUInsn{}, false
	}
	return ci, true
}

// CPUOpcodeAt reports whether b starts with the opcode bytes of a
// CPU-identity instruction (without its prefixes): what the supervisor's
// sweep looks for in code it could not decode. It errs on the side of
// yes.
func CPUOpcodeAt(b []byte) bool {
	if len(b) < 2 || b[0] != 0x0f {
		return false
	}
	switch b[1] {
	case 0xa2, 0x03:
		return true
	case 0xc7:
		return len(b) < 3 || b[2] >= 0xf0
	}
	return false
}

// The patch's vectors: int $(base|len), a vector no user process may
// raise, so the CPU faults (SIGSEGV, SI_KERNEL) and the supervisor, which
// holds the node under ptrace, answers. The TSC's patches use 0xE0 and
// 0xF0 (mcsdk/supervisor/tscpatch_linux.go); 0x80 is the 32-bit system
// call gate and is never used.
var patchBase = map[CPUOp]byte{OpCPUID: 0xc0, OpRDRAND: 0xb0, OpRDSEED: 0xa0, OpRDPID: 0x90, OpLSL: 0x70}

// minLen is each op's shortest encoding.
var minLen = map[CPUOp]uint8{OpCPUID: 2, OpRDRAND: 3, OpRDSEED: 3, OpRDPID: 4, OpLSL: 3}

// Patch is the bytes written over the instruction: int $(base|len), then
// (never executed: the supervisor steps over the whole length) the
// ModRM byte and a byte of REX bits and the 66 prefix (0x10), then NOPs.
func (ci CPUInsn) Patch() []byte {
	p := make([]byte, ci.Len)
	for k := range p {
		p[k] = 0x90
	}
	p[0], p[1] = 0xcd, patchBase[ci.Op]|ci.Len
	if ci.Len >= 3 && ci.Op != OpCPUID {
		p[2] = ci.ModRM
	}
	if ci.Len >= 4 && ci.Op != OpCPUID {
		p[3] = ci.REX
		if ci.Opsize16 {
			p[3] |= 0x10
		}
	}
	return p
}

// DecodeCPUPatch reads a patch Patch wrote at the start of b (at least
// four bytes, or the whole patch if shorter).
func DecodeCPUPatch(b []byte) (CPUInsn, bool) {
	if len(b) < 2 || b[0] != 0xcd {
		return CPUInsn{}, false
	}
	ci := CPUInsn{Len: b[1] & 0xf}
	for op, base := range patchBase {
		if b[1]&0xf0 == base {
			ci.Op = op
		}
	}
	if ci.Op == 0 || ci.Len < minLen[ci.Op] {
		return CPUInsn{}, false
	}
	if ci.Op == OpCPUID {
		return ci, true
	}
	if len(b) < 3 || len(b) < 4 && ci.Len >= 4 {
		return CPUInsn{}, false
	}
	ci.ModRM = b[2]
	if ci.Len >= 4 {
		ci.REX, ci.Opsize16 = b[3]&0xf, b[3]&0x10 != 0
	}
	if want, ok := DecodeCPUInsn(ci.encode()); !ok || want.Op != ci.Op {
		return CPUInsn{}, false // a ModRM no such instruction has
	}
	return ci, true
}

// encode is a shortest encoding of ci (for checking a patch's fields).
func (ci CPUInsn) encode() []byte {
	var b []byte
	if ci.Opsize16 {
		b = append(b, 0x66)
	}
	if ci.Op == OpRDPID {
		b = append(b, 0xf3)
	}
	if ci.REX != 0 {
		b = append(b, 0x40|ci.REX)
	}
	switch ci.Op {
	case OpLSL:
		return append(b, 0x0f, 0x03, ci.ModRM)
	default:
		return append(b, 0x0f, 0xc7, ci.ModRM)
	}
}

// CPURegs is what an instruction reads and writes: the sixteen general
// registers in encoding order (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi,
// r8 … r15) and rflags.
type CPURegs struct {
	R     [16]uint64
	Flags uint64
}

// rflags bits.
const (
	flagCF = 1 << 0
	flagPF = 1 << 2
	flagAF = 1 << 4
	flagZF = 1 << 6
	flagSF = 1 << 7
	flagOF = 1 << 11
)

// size is the operand size in bytes.
func (ci CPUInsn) size() int {
	switch {
	case ci.Op == OpRDPID || ci.REX&8 != 0:
		return 8
	case ci.Opsize16:
		return 2
	}
	return 4
}

// rm and reg are the registers the ModRM byte names (REX.B and REX.R
// extending them).
func (ci CPUInsn) rm() int  { return int(ci.ModRM&7) | int(ci.REX&1)<<3 }
func (ci CPUInsn) reg() int { return int(ci.ModRM>>3&7) | int(ci.REX>>2&1)<<3 }

// ExecCPU performs ci on the virtual CPU: host answers the host's cpuid
// (for the feature bits), random fills bytes from the run's seeded
// stream. The caller steps the instruction pointer over ci.Len.
func ExecCPU(ci CPUInsn, r *CPURegs, host HostCPUID, random func([]byte)) {
	switch ci.Op {
	case OpCPUID:
		a := CPUID(uint32(r.R[0]), uint32(r.R[1]), host)
		r.R[0], r.R[3], r.R[1], r.R[2] = uint64(a.A), uint64(a.B), uint64(a.C), uint64(a.D)
	case OpRDRAND, OpRDSEED:
		var b [8]byte
		n := ci.size()
		random(b[:n])
		var v uint64
		for k := n - 1; k >= 0; k-- {
			v = v<<8 | uint64(b[k])
		}
		setReg(&r.R[ci.rm()], v, n)
		r.Flags = r.Flags&^(flagCF|flagPF|flagAF|flagZF|flagSF|flagOF) | flagCF
	case OpRDPID:
		r.R[ci.rm()] = 0 // IA32_TSC_AUX: CPU 0, node 0
	case OpLSL:
		limit, ok := segmentLimit(uint16(r.R[ci.rm()]))
		if !ok {
			r.Flags &^= flagZF
			return
		}
		setReg(&r.R[ci.reg()], uint64(limit), ci.size())
		r.Flags |= flagZF
	}
}

// segmentLimit is what lsl finds for a selector in the virtual machine's
// descriptor tables (Linux's x86-64 GDT): the user code and data
// segments span 4 GiB; the per-CPU segment (GDT entry 15, whose limit
// getcpu's fallback reads) says CPU 0 of node 0; anything else is not a
// descriptor lsl may read.
func segmentLimit(sel uint16) (uint32, bool) {
	if sel&4 != 0 {
		return 0, false // the LDT: a node has none
	}
	switch sel >> 3 {
	case 4, 5, 6: // __USER32_CS, __USER_DS, __USER_CS
		return 0xffffffff, true
	case 15: // GDT_ENTRY_CPUNODE: (node << 12) | cpu
		return 0, true
	}
	return 0, false
}

// setReg writes v to a register as an n-byte operand does: 4 bytes
// zero-extend, 2 leave the upper bits.
func setReg(r *uint64, v uint64, n int) {
	switch n {
	case 8:
		*r = v
	case 4:
		*r = uint64(uint32(v))
	default:
		*r = *r&^0xffff | v&0xffff
	}
}
