package vkernel

import (
	"encoding/binary"
	"testing"
)

// TestVirtualAuxvFile checks /proc/self/auxv's rewrite: the entries
// that describe the host's processor get the virtual CPU's values, and
// every other entry keeps the kernel's.
func TestVirtualAuxvFile(t *testing.T) {
	host := func(leaf, sub uint32) CPUIDRegs {
		return CPUIDRegs{A: ^uint32(0), B: ^uint32(0), C: ^uint32(0), D: ^uint32(0)}
	}
	hwcap := uint64(CPUID(1, 0, host).D)
	for _, tc := range []struct {
		name   string
		typ, v uint64
		want   uint64
	}{
		{"hwcap", AtHwcap, 0x178bfbff, hwcap},
		{"hwcap2", AtHwcap2, 2, 0},
		{"minsigstksz raised", AtMinSigStkSz, 0x2eb0, minSigStkSz},
		{"minsigstksz above", AtMinSigStkSz, 0x4000, 0x4000},
		{"random kept", 25, 0x7fffffffe3a9, 0x7fffffffe3a9},
		{"pagesz kept", 6, 4096, 4096},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kernel := binary.LittleEndian.AppendUint64(nil, tc.typ)
			kernel = binary.LittleEndian.AppendUint64(kernel, tc.v)
			kernel = append(kernel, make([]byte, 16)...) // AT_NULL
			got := VirtualAuxvFile(kernel, host)
			if v := binary.LittleEndian.Uint64(got[8:]); v != tc.want {
				t.Errorf("entry %d: %#x, want %#x", tc.typ, v, tc.want)
			}
			if binary.LittleEndian.Uint64(got[:8]) != tc.typ || len(got) != len(kernel) {
				t.Errorf("the vector's shape changed: % x", got)
			}
		})
	}
	if hwcap == 0xffffffff {
		t.Errorf("AT_HWCAP is the host's leaf 1 EDX, not the virtual CPU's")
	}
}
