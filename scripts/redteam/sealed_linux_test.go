//go:build linux && amd64

package redteam

import (
	"slices"
	"testing"
)

func TestSealedOn(t *testing.T) {
	text := "# comment\na\n\nb when cpuid_fault # note\nc when other\n"
	for _, tc := range []struct {
		flags          map[string]bool
		names, skipped []string
	}{
		{map[string]bool{"cpuid_fault": true}, []string{"a", "b"}, []string{"c (no other)"}},
		{map[string]bool{}, []string{"a"}, []string{"b (no cpuid_fault)", "c (no other)"}},
	} {
		names, skipped, err := sealedOn(text, tc.flags)
		if err != nil || !slices.Equal(names, tc.names) || !slices.Equal(skipped, tc.skipped) {
			t.Errorf("flags %v: got %q %q %v, want %q %q", tc.flags, names, skipped, err, tc.names, tc.skipped)
		}
	}
	if _, _, err := sealedOn("a b\n", nil); err == nil {
		t.Error("a malformed line is accepted")
	}
	if f := cpuFlags("processor\t: 0\nflags\t\t: fpu cpuid_fault sse\n"); !f["cpuid_fault"] || f["x"] {
		t.Errorf("cpuFlags: %v", f)
	}
}
