//go:build linux && amd64

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestKernelVersion(t *testing.T) {
	tests := []struct {
		rel          string
		major, minor int
	}{
		{"6.18.44-fc-v1272", 6, 18}, {"5.19.0", 5, 19}, {"6.6-rc1", 6, 6}, {"4.19.0-25-amd64", 4, 19}, {"junk", 0, 0},
	}
	for _, tc := range tests {
		if ma, mi := kernelVersion(tc.rel); ma != tc.major || mi != tc.minor {
			t.Errorf("kernelVersion(%q) = %d.%d, want %d.%d", tc.rel, ma, mi, tc.major, tc.minor)
		}
	}
}

// TestDoctor: weft doctor checks the six pieces, names the running
// kernel, finds seccomp user notification (every other test here needs
// it, so it must be there), says what a piece that is not ok disables,
// and exits 0 when nothing required is missing.
func TestDoctor(t *testing.T) {
	out, errOut, code := weft(t, "doctor", "--json")
	var fs []finding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	want := []string{"kernel version", "seccomp user notification", "ptrace scope", "CPUID faulting", "TSC trapping", "unprivileged user namespaces", "cores"}
	if len(fs) != len(want) {
		t.Fatalf("%d checks, want %d: %+v", len(fs), len(want), fs)
	}
	missing := false
	for i, f := range fs {
		if f.Check != want[i] {
			t.Errorf("check %d is %q, want %q", i, f.Check, want[i])
		}
		if f.Status != statusOK && f.Disables == "" {
			t.Errorf("%s is %s but does not say what that disables", f.Check, f.Status)
		}
		missing = missing || f.Status == statusMissing
	}
	if !strings.HasPrefix(fs[0].Found, unix.ByteSliceToString(u.Release[:])) {
		t.Errorf("kernel found %q, uname says %q", fs[0].Found, unix.ByteSliceToString(u.Release[:]))
	}
	if fs[1].Status != statusOK {
		t.Errorf("seccomp user notification: %+v", fs[1])
	}
	if (code == 0) == missing {
		t.Errorf("exit %d with a required piece missing: %v", code, missing)
	}
	text, _, _ := weft(t, "doctor")
	if !strings.Contains(text, "seccomp user notification") || !strings.HasPrefix(text, fs[0].Status+" ") {
		t.Errorf("text output:\n%s", text)
	}
}
