package vkernel

// The virtual CPU. cpuid, rdrand, rdseed, rdpid and lsl are instructions,
// not syscalls: the supervisor patches each in a node's code into a fault
// (mcsdk/supervisor/tscpatch_linux.go) and answers it from here. A node
// sees one processor of weft's own:
//
//   - its brand is "weft virtual CPU", family 6, model 0, stepping 0; one
//     core, one thread, APIC id 0; caches of fixed sizes (leaf 4: 32 KiB
//     L1d and L1i, 1 MiB L2, 8 MiB L3); CPU number 0 for rdpid, rdtscp and
//     lsl (getcpu's segment). Its vendor is "GenuineIntel", not a string
//     of weft's own: glibc (2.36) reads leaf 1 only for the vendors it
//     knows, so under an unknown vendor it sees no SSE2 and the dynamic
//     loader refuses libc ("CPU ISA level is lower than required"), and it
//     reads cache sizes only from Intel's, AMD's or Zhaoxin's leaves;
//   - its features are a fixed baseline, x86-64-v3 and the usual companions
//     (VirtualFeatures), ANDed with the host's: a node is never told of a
//     feature the host lacks (glibc's ifuncs would pick code that faults
//     with SIGILL), so on a host that lacks part of the baseline a node sees
//     less, and code that dispatches on features (glibc's string functions,
//     OpenSSL, Go's runtime) may take other paths than on a full host.
//     HostLacks names what is missing; weft says so in `weft doctor`.
//     Recordings are the same on two hosts that both have the baseline
//     (whatever else either has: AVX-512, for one, is never shown, and Go
//     1.26's garbage collector scans differently with it, which moved the
//     schedules of Go targets between hosts before the virtual CPU); they
//     may differ between a host that has it and one that does not;
//   - leaf 0xD (the XSAVE layout) is the host's: it describes XCR0, which
//     the processor enforces and no fault can virtualise (glibc sizes the
//     dynamic linker's register save area from it; a smaller answer would
//     let xsave write past that area). It is the one host value a node can
//     read through cpuid; it does not vary between runs on one host;
//   - rdrand and rdseed return bytes of the run's seeded stream (the one
//     getrandom reads), with CF=1.

// CPUIDRegs is one cpuid answer: eax, ebx, ecx, edx.
type CPUIDRegs struct{ A, B, C, D uint32 }

// HostCPUID answers cpuid on the host: the supervisor's own instruction.
type HostCPUID func(leaf, sub uint32) CPUIDRegs

// The virtual CPU's identity.
const (
	CPUVendor    = "GenuineIntel"
	CPUBrand     = "weft virtual CPU"
	cpuSignature = 0x600 // family 6, model 0, stepping 0
	maxBasicLeaf = 0xd
	maxExtLeaf   = 0x80000008
)

// A cpuFeature is one feature bit of the baseline: its leaf, subleaf,
// register (0 eax … 3 edx) and bit.
type cpuFeature struct {
	name      string
	leaf, sub uint32
	reg, bit  uint8
}

// VirtualFeatures is the baseline a node is offered (then ANDed with the
// host's bits): x86-64-v3, the basic features every x86-64 has, and AES,
// PCLMULQDQ, RDRAND, SHA, ADX, ERMS and CLFLUSHOPT. No hypervisor bit, no
// HTT, no x2APIC, no AVX-512. Not RDSEED, RDPID or RDTSCP either, though
// weft answers all three: hypervisors often hide them (this project's
// machines do), and a program takes other paths where they are offered
// (Go's runtime reads the TSC with rdtscp where offered, else with lfence
// and rdtsc), so offering them would make its code depend on the host.
var VirtualFeatures = []cpuFeature{
	{"fpu", 1, 0, 3, 0}, {"vme", 1, 0, 3, 1}, {"de", 1, 0, 3, 2}, {"pse", 1, 0, 3, 3},
	{"tsc", 1, 0, 3, 4}, {"msr", 1, 0, 3, 5}, {"pae", 1, 0, 3, 6}, {"mce", 1, 0, 3, 7},
	{"cx8", 1, 0, 3, 8}, {"apic", 1, 0, 3, 9}, {"sep", 1, 0, 3, 11}, {"mtrr", 1, 0, 3, 12},
	{"pge", 1, 0, 3, 13}, {"mca", 1, 0, 3, 14}, {"cmov", 1, 0, 3, 15}, {"pat", 1, 0, 3, 16},
	{"pse36", 1, 0, 3, 17}, {"clflush", 1, 0, 3, 19}, {"mmx", 1, 0, 3, 23}, {"fxsr", 1, 0, 3, 24},
	{"sse", 1, 0, 3, 25}, {"sse2", 1, 0, 3, 26},
	{"sse3", 1, 0, 2, 0}, {"pclmulqdq", 1, 0, 2, 1}, {"ssse3", 1, 0, 2, 9}, {"fma", 1, 0, 2, 12},
	{"cx16", 1, 0, 2, 13}, {"sse4_1", 1, 0, 2, 19}, {"sse4_2", 1, 0, 2, 20}, {"movbe", 1, 0, 2, 22},
	{"popcnt", 1, 0, 2, 23}, {"aes", 1, 0, 2, 25}, {"xsave", 1, 0, 2, 26}, {"osxsave", 1, 0, 2, 27},
	{"avx", 1, 0, 2, 28}, {"f16c", 1, 0, 2, 29}, {"rdrand", 1, 0, 2, 30},
	{"bmi1", 7, 0, 1, 3}, {"avx2", 7, 0, 1, 5}, {"bmi2", 7, 0, 1, 8}, {"erms", 7, 0, 1, 9},
	{"adx", 7, 0, 1, 19}, {"clflushopt", 7, 0, 1, 23}, {"sha", 7, 0, 1, 29},
	{"lahf_lm", 0x80000001, 0, 2, 0}, {"abm", 0x80000001, 0, 2, 5}, {"prefetchw", 0x80000001, 0, 2, 8},
	{"syscall", 0x80000001, 0, 3, 11}, {"nx", 0x80000001, 0, 3, 20},
	{"lm", 0x80000001, 0, 3, 29},
}

// HostLacks names the features of VirtualFeatures the host lacks, in its
// order (none on a host a node sees the whole virtual CPU on). Every one
// counts, not only x86-64-v3's: a host without SHA (Intel's servers
// before Ice Lake) shows a node less than one with them, and code that
// dispatches on them may take other paths there.
func HostLacks(host HostCPUID) []string {
	var out []string
	for _, f := range VirtualFeatures {
		if host(f.leaf, f.sub).reg(f.reg)>>f.bit&1 == 0 {
			out = append(out, f.name)
		}
	}
	return out
}

func (r CPUIDRegs) reg(k uint8) uint32 {
	return [4]uint32{r.A, r.B, r.C, r.D}[k]
}

func (r *CPUIDRegs) set(k, bit uint8) {
	switch k {
	case 0:
		r.A |= 1 << bit
	case 1:
		r.B |= 1 << bit
	case 2:
		r.C |= 1 << bit
	default:
		r.D |= 1 << bit
	}
}

// features is the virtual feature bits of leaf, sub that the host has.
func features(leaf, sub uint32, host HostCPUID) CPUIDRegs {
	var out CPUIDRegs
	var h *CPUIDRegs
	for _, f := range VirtualFeatures {
		if f.leaf != leaf || f.sub != sub {
			continue
		}
		if h == nil {
			r := host(leaf, sub)
			h = &r
		}
		if h.reg(f.reg)>>f.bit&1 != 0 {
			out.set(f.reg, f.bit)
		}
	}
	return out
}

// CPUID answers cpuid for leaf (eax) and sub (ecx) from the virtual CPU;
// host is consulted for the feature bits it may offer and leaf 0xD.
func CPUID(leaf, sub uint32, host HostCPUID) CPUIDRegs {
	switch leaf {
	case 0:
		return CPUIDRegs{A: maxBasicLeaf, B: word(CPUVendor, 0), D: word(CPUVendor, 4), C: word(CPUVendor, 8)}
	case 1:
		r := features(1, 0, host)
		r.A = cpuSignature
		r.B = 8<<8 | 1<<16 // clflush line 8×8 bytes, one logical processor, APIC id 0
		return r
	case 7:
		if sub != 0 {
			return CPUIDRegs{}
		}
		return features(7, 0, host) // eax 0: no subleaf beyond 0
	case 2: // one round of descriptors: 0xFF, "leaf 4 has them all"
		return CPUIDRegs{A: 0xff01}
	case 4:
		return cache(sub)
	case 0xb:
		return topology(sub)
	case 0xd:
		return host(leaf, sub)
	case 0x80000000:
		return CPUIDRegs{A: maxExtLeaf}
	case 0x80000001:
		return features(leaf, 0, host)
	case 0x80000002, 0x80000003, 0x80000004:
		k := int(leaf-0x80000002) * 16
		return CPUIDRegs{A: word(CPUBrand, k), B: word(CPUBrand, k+4), C: word(CPUBrand, k+8), D: word(CPUBrand, k+12)}
	case 0x80000008:
		return CPUIDRegs{A: 48<<8 | 40} // 48 virtual, 40 physical address bits; one core
	}
	return CPUIDRegs{} // 6, 0x1f, 0x8000001e… : nothing, no topology beyond one thread
}

// caches are leaf 4's subleaves: type (1 data, 2 instruction, 3
// unified), level, ways, sets, 64-byte lines, one thread per cache.
var caches = []struct{ typ, level, ways, sets uint32 }{
	{1, 1, 8, 64},    // L1d 32 KiB
	{2, 1, 8, 64},    // L1i 32 KiB
	{3, 2, 16, 1024}, // L2 1 MiB
	{3, 3, 16, 8192}, // L3 8 MiB
}

// cache is leaf 4's subleaf sub (type 0, no cache, past the last).
func cache(sub uint32) CPUIDRegs {
	if int(sub) >= len(caches) {
		return CPUIDRegs{}
	}
	c := caches[sub]
	return CPUIDRegs{A: c.typ | c.level<<5 | 1<<8, B: (c.ways-1)<<22 | 63, C: c.sets - 1}
}

// topology is leaf 0xB's subleaf sub: one thread in one core, x2APIC id 0.
func topology(sub uint32) CPUIDRegs {
	switch sub {
	case 0: // SMT level: one logical processor
		return CPUIDRegs{B: 1, C: 1<<8 | sub}
	case 1: // core level: one
		return CPUIDRegs{B: 1, C: 2<<8 | sub}
	}
	return CPUIDRegs{C: sub} // invalid level
}

// word is the 4 bytes of s at k as cpuid returns text (little-endian),
// zero past its end.
func word(s string, k int) uint32 {
	var w uint32
	for i := 3; i >= 0; i-- {
		w <<= 8
		if k+i < len(s) {
			w |= uint32(s[k+i])
		}
	}
	return w
}
