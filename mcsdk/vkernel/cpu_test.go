package vkernel

import (
	"bytes"
	"slices"
	"testing"
)

// fullHost is a host with every bit set; bareHost one with none but SSE2.
func fullHost(leaf, sub uint32) CPUIDRegs {
	if leaf == 0xd {
		return CPUIDRegs{A: 0x2e7, B: 0x988, C: 0x988, D: 0}
	}
	return CPUIDRegs{A: ^uint32(0), B: ^uint32(0), C: ^uint32(0), D: ^uint32(0)}
}

func bareHost(leaf, sub uint32) CPUIDRegs {
	if leaf == 1 {
		return CPUIDRegs{D: 1 << 26}
	}
	return CPUIDRegs{}
}

func text(rs ...uint32) string {
	var b []byte
	for _, r := range rs {
		b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return string(bytes.TrimRight(b, "\x00"))
}

func TestCPUID(t *testing.T) {
	for _, tc := range []struct {
		name      string
		leaf, sub uint32
		host      HostCPUID
		want      CPUIDRegs
	}{
		{"leaf 0: max leaf and vendor", 0, 0, fullHost, CPUIDRegs{A: 0xd, B: 0x756e6547, D: 0x49656e69, C: 0x6c65746e}},
		{"leaf 2: leaf 4 has the caches", 2, 0, fullHost, CPUIDRegs{A: 0xff01}},
		{"leaf 4.0: L1d 8 ways 64 sets", 4, 0, fullHost, CPUIDRegs{A: 0x121, B: 7<<22 | 63, C: 63}},
		{"leaf 4.3: L3 16 ways 8192 sets", 4, 3, fullHost, CPUIDRegs{A: 0x163, B: 15<<22 | 63, C: 8191}},
		{"leaf 4.4: none", 4, 4, fullHost, CPUIDRegs{}},
		{"leaf 1 on a full host: the baseline, no HTT, no hypervisor", 1, 0, fullHost, CPUIDRegs{A: 0x600, B: 0x10800, C: 0x7ed83203, D: 0x78bfbff}},
		{"leaf 1 on a bare host: only what it has", 1, 0, bareHost, CPUIDRegs{A: 0x600, B: 0x10800, D: 1 << 26}},
		{"leaf 7.0 on a full host: no rdseed, no rdpid", 7, 0, fullHost, CPUIDRegs{B: 0x20880328}},
		{"leaf 7.1: nothing", 7, 1, fullHost, CPUIDRegs{}},
		{"leaf 0xb.0: one thread", 0xb, 0, fullHost, CPUIDRegs{B: 1, C: 0x100}},
		{"leaf 0xb.1: one core", 0xb, 1, fullHost, CPUIDRegs{B: 1, C: 0x201}},
		{"leaf 0xb.2: no level", 0xb, 2, fullHost, CPUIDRegs{C: 2}},
		{"leaf 0xd is the host's", 0xd, 0, fullHost, CPUIDRegs{A: 0x2e7, B: 0x988, C: 0x988}},
		{"leaf 0x1f beyond the max: zero", 0x1f, 0, fullHost, CPUIDRegs{}},
		{"extended max", 0x80000000, 0, fullHost, CPUIDRegs{A: 0x80000008}},
		{"extended features: no rdtscp", 0x80000001, 0, fullHost, CPUIDRegs{C: 0x121, D: 0x20100800}},
		{"topology extension: zero", 0x8000001e, 0, fullHost, CPUIDRegs{}},
		{"address sizes", 0x80000008, 0, fullHost, CPUIDRegs{A: 0x3028}},
	} {
		if got := CPUID(tc.leaf, tc.sub, tc.host); got != tc.want {
			t.Errorf("%s: CPUID(%#x, %d) = %#x, want %#x", tc.name, tc.leaf, tc.sub, got, tc.want)
		}
	}
}

func TestCPUIDBrand(t *testing.T) {
	var rs []uint32
	for l := uint32(0x80000002); l <= 0x80000004; l++ {
		r := CPUID(l, 0, fullHost)
		rs = append(rs, r.A, r.B, r.C, r.D)
	}
	if got := text(rs...); got != CPUBrand {
		t.Errorf("brand %q, want %q", got, CPUBrand)
	}
	r := CPUID(0, 0, fullHost)
	if got := text(r.B, r.D, r.C); got != CPUVendor {
		t.Errorf("vendor %q, want %q", got, CPUVendor)
	}
}

func TestHostLacks(t *testing.T) {
	noAVX2 := func(leaf, sub uint32) CPUIDRegs {
		r := fullHost(leaf, sub)
		if leaf == 7 {
			r.B &^= 1 << 5
		}
		return r
	}
	cascadeLake := func(leaf, sub uint32) CPUIDRegs { // x86-64-v3, no SHA
		r := fullHost(leaf, sub)
		if leaf == 7 {
			r.B &^= 1 << 29
		}
		return r
	}
	var all []string // bareHost has SSE2 alone
	for _, f := range VirtualFeatures {
		if f.name != "sse2" {
			all = append(all, f.name)
		}
	}
	for _, tc := range []struct {
		name string
		host HostCPUID
		want []string
	}{
		{"full", fullHost, nil},
		{"no avx2", noAVX2, []string{"avx2"}},
		{"x86-64-v3 without sha", cascadeLake, []string{"sha"}},
		{"bare", bareHost, all},
	} {
		if got := HostLacks(tc.host); !slices.Equal(got, tc.want) {
			t.Errorf("%s: HostLacks = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDecodeCPUInsn(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want CPUInsn
		ok   bool
	}{
		{"cpuid", []byte{0x0f, 0xa2}, CPUInsn{Op: OpCPUID, Len: 2}, true},
		{"cpuid with a segment prefix", []byte{0x2e, 0x0f, 0xa2}, CPUInsn{Op: OpCPUID, Len: 3}, true},
		{"rdrand eax", []byte{0x0f, 0xc7, 0xf0}, CPUInsn{Op: OpRDRAND, Len: 3, ModRM: 0xf0}, true},
		{"rdrand r9", []byte{0x49, 0x0f, 0xc7, 0xf1}, CPUInsn{Op: OpRDRAND, Len: 4, ModRM: 0xf1, REX: 9}, true},
		{"rdrand ax", []byte{0x66, 0x0f, 0xc7, 0xf0}, CPUInsn{Op: OpRDRAND, Len: 4, ModRM: 0xf0, Opsize16: true}, true},
		{"rdseed rdx", []byte{0x48, 0x0f, 0xc7, 0xfa}, CPUInsn{Op: OpRDSEED, Len: 4, ModRM: 0xfa, REX: 8}, true},
		{"rdpid rax", []byte{0xf3, 0x0f, 0xc7, 0xf8}, CPUInsn{Op: OpRDPID, Len: 4, ModRM: 0xf8}, true},
		{"rdpid r12", []byte{0xf3, 0x41, 0x0f, 0xc7, 0xfc}, CPUInsn{Op: OpRDPID, Len: 5, ModRM: 0xfc, REX: 1}, true},
		{"lsl eax, ecx", []byte{0x0f, 0x03, 0xc1}, CPUInsn{Op: OpLSL, Len: 3, ModRM: 0xc1}, true},
		{"lsl r8, rdi", []byte{0x4c, 0x0f, 0x03, 0xc7}, CPUInsn{Op: OpLSL, Len: 4, ModRM: 0xc7, REX: 0xc}, true},
		{"lsl from memory", []byte{0x0f, 0x03, 0x07}, CPUInsn{Op: OpLSLMem, Len: 3, ModRM: 0x07}, true},
		{"a REX voided by a later prefix", []byte{0x48, 0x66, 0x0f, 0xc7, 0xf0}, CPUInsn{Op: OpRDRAND, Len: 5, ModRM: 0xf0, Opsize16: true}, true},
		{"cmpxchg8b (0F C7 /1 memory)", []byte{0x0f, 0xc7, 0x0f}, CPUInsn{}, false},
		{"vmptrst (0F C7 /7 memory)", []byte{0x0f, 0xc7, 0x38}, CPUInsn{}, false},
		{"senduipi (F3 0F C7 /6)", []byte{0xf3, 0x0f, 0xc7, 0xf0}, CPUInsn{}, false},
		{"rdtsc", []byte{0x0f, 0x31}, CPUInsn{}, false},
		{"nop", []byte{0x90}, CPUInsn{}, false},
		{"prefixes only", []byte{0x66, 0x48}, CPUInsn{}, false},
	} {
		got, ok := DecodeCPUInsn(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: DecodeCPUInsn(% x) = %+v, %v; want %+v, %v", tc.name, tc.in, got, ok, tc.want, tc.ok)
		}
		if !ok || got.Op == OpLSLMem {
			continue
		}
		p := got.Patch()
		if len(p) != len(tc.in) || p[0] != 0xcd {
			t.Errorf("%s: patch % x", tc.name, p)
		}
		if back, ok := DecodeCPUPatch(p); !ok || back != got {
			t.Errorf("%s: DecodeCPUPatch(% x) = %+v, %v; want %+v", tc.name, p, back, ok, got)
		}
	}
}

func TestDecodeCPUPatchRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"a TSC patch", []byte{0xcd, 0xe2}},
		{"rdtscp's", []byte{0xcd, 0xf3, 0x90}},
		{"int 0x80", []byte{0xcd, 0x80}},
		{"rdrand too short", []byte{0xcd, 0xb2, 0xf0}},
		{"rdpid of 3 bytes", []byte{0xcd, 0x93, 0xf8}},
		{"rdrand with a memory ModRM", []byte{0xcd, 0xb3, 0x30}},
		{"cut short", []byte{0xcd, 0xb4, 0xf0}},
		{"not int", []byte{0x0f, 0xa2}},
	} {
		if ci, ok := DecodeCPUPatch(tc.in); ok {
			t.Errorf("%s: DecodeCPUPatch(% x) = %+v, want none", tc.name, tc.in, ci)
		}
	}
}

func TestCPUOpcodeAt(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want bool
	}{
		{[]byte{0x0f, 0xa2}, true}, {[]byte{0x0f, 0x03, 0x00}, true}, {[]byte{0x0f, 0xc7, 0xf3}, true},
		{[]byte{0x0f, 0xc7}, true}, {[]byte{0x0f, 0xc7, 0x08}, false}, {[]byte{0x0f, 0x31}, false}, {[]byte{0xa2}, false},
	} {
		if got := CPUOpcodeAt(tc.in); got != tc.want {
			t.Errorf("CPUOpcodeAt(% x) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestExecCPU(t *testing.T) {
	counting := func(p []byte) {
		for k := range p {
			p[k] = byte(0x11 * (k + 1))
		}
	}
	dec := func(b ...byte) CPUInsn {
		ci, ok := DecodeCPUInsn(b)
		if !ok {
			t.Fatalf("% x does not decode", b)
		}
		return ci
	}
	const ones = ^uint64(0)
	for _, tc := range []struct {
		name     string
		ci       CPUInsn
		in       CPURegs
		reg      int
		want     uint64
		flags    uint64
		wantFlag uint64
	}{
		{"rdrand eax: 4 bytes, zero-extended, CF=1", dec(0x0f, 0xc7, 0xf0), CPURegs{R: [16]uint64{ones}, Flags: flagZF | flagOF}, 0, 0x44332211, 0, flagCF},
		{"rdrand r9: 8 bytes", dec(0x49, 0x0f, 0xc7, 0xf1), CPURegs{}, 9, 0x8877665544332211, 0, flagCF},
		{"rdseed ax: 2 bytes, upper kept", dec(0x66, 0x0f, 0xc7, 0xf8), CPURegs{R: [16]uint64{ones}}, 0, 0xffffffffffff2211, 0, flagCF},
		{"rdpid rbx: CPU 0", dec(0xf3, 0x0f, 0xc7, 0xfb), CPURegs{R: [16]uint64{3: ones}}, 3, 0, 0, 0},
		{"lsl eax, ecx with the CPU segment: 0, ZF", dec(0x0f, 0x03, 0xc1), CPURegs{R: [16]uint64{ones, 15*8 + 3}}, 0, 0, flagZF, flagZF},
		{"lsl with __USER_DS: 4 GiB", dec(0x0f, 0x03, 0xc1), CPURegs{R: [16]uint64{0, 0x2b}}, 0, 0xffffffff, flagZF, flagZF},
		{"lsl with a null selector: ZF=0, unchanged", dec(0x0f, 0x03, 0xc1), CPURegs{R: [16]uint64{7, 0}, Flags: flagZF}, 0, 7, flagZF, 0},
		{"lsl with an LDT selector: ZF=0", dec(0x0f, 0x03, 0xc1), CPURegs{R: [16]uint64{7, 15*8 + 7}, Flags: flagZF}, 0, 7, flagZF, 0},
	} {
		r := tc.in
		ExecCPU(tc.ci, &r, fullHost, counting)
		if r.R[tc.reg] != tc.want {
			t.Errorf("%s: register %d = %#x, want %#x", tc.name, tc.reg, r.R[tc.reg], tc.want)
		}
		mask := tc.flags
		if tc.ci.Op == OpRDRAND || tc.ci.Op == OpRDSEED {
			mask = flagCF | flagPF | flagAF | flagZF | flagSF | flagOF
		}
		if r.Flags&mask != tc.wantFlag {
			t.Errorf("%s: flags %#x, want %#x under %#x", tc.name, r.Flags, tc.wantFlag, mask)
		}
	}
}

func TestExecCPUID(t *testing.T) {
	r := CPURegs{R: [16]uint64{0, ones64, ones64, ones64}}
	ExecCPU(CPUInsn{Op: OpCPUID, Len: 2}, &r, fullHost, nil)
	if got := text(uint32(r.R[3]), uint32(r.R[2]), uint32(r.R[1])); got != CPUVendor || r.R[0] != 0xd {
		t.Errorf("cpuid 0: eax %#x vendor %q", r.R[0], got)
	}
	r = CPURegs{R: [16]uint64{0xb, 1 | 0xffffffff00000000}}
	ExecCPU(CPUInsn{Op: OpCPUID, Len: 2}, &r, fullHost, nil)
	if r.R[1] != 0x201 || r.R[3] != 1 {
		t.Errorf("cpuid 0xb.1 (upper ecx ignored): %#x", r.R)
	}
}

const ones64 = ^uint64(0)
