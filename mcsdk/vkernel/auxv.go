package vkernel

import "encoding/binary"

// Auxiliary-vector entries that describe the host's processor (elf.h,
// asm/auxvec.h).
const (
	AtHwcap       = 16
	AtHwcap2      = 26
	AtMinSigStkSz = 51
)

// minSigStkSz is the least AT_MINSIGSTKSZ weft gives a process: more than
// any x86-64 processor's signal frame needs today (11952 bytes with AMX's
// tile data), so that the value does not tell the host's XSAVE size, and
// a stack sized by it is never too small.
const minSigStkSz = 12288

// VirtualAuxv is the value weft gives auxiliary-vector entry typ whose
// value from the host's kernel is v, and whether it replaces it:
// AT_HWCAP is the virtual CPU's leaf 1 EDX (as the kernel takes it from
// cpuid), AT_HWCAP2 is 0 (the virtual CPU has no FSGSBASE or ring-3
// MWAIT), AT_MINSIGSTKSZ is at least minSigStkSz (the host's, should it
// need more). Every other entry is kept.
func VirtualAuxv(typ, v uint64, host HostCPUID) (uint64, bool) {
	switch typ {
	case AtHwcap:
		return uint64(CPUID(1, 0, host).D), true
	case AtHwcap2:
		return 0, true
	case AtMinSigStkSz:
		return max(v, minSigStkSz), true
	}
	return v, false
}

// VirtualAuxvFile is /proc/self/auxv for the kernel's: its (type, value)
// pairs with VirtualAuxv's values.
func VirtualAuxvFile(kernel []byte, host HostCPUID) []byte {
	out := append([]byte(nil), kernel...)
	for i := 0; i+16 <= len(out); i += 16 {
		typ := binary.LittleEndian.Uint64(out[i:])
		if v, ok := VirtualAuxv(typ, binary.LittleEndian.Uint64(out[i+8:]), host); ok {
			binary.LittleEndian.PutUint64(out[i+8:], v)
		}
	}
	return out
}
