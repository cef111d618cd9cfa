//go:build linux && amd64

package main

import (
	"encoding/json"
	"os"
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

// TestDoctorSaysWhatEachMissingPieceDisables: each check, given what a
// machine lacking its piece answers, is not ok and says what that
// disables; given what this kind of machine answers when the piece is
// there, it is ok. (TestDoctor sees only this machine's answers.)
func TestDoctorSaysWhatEachMissingPieceDisables(t *testing.T) {
	enoent := &os.PathError{Op: "open", Path: "/proc/sys/x", Err: os.ErrNotExist}
	tests := []struct {
		name     string
		f        finding
		status   string
		disables string // a part of what it says it disables ("" when ok)
	}{
		{"kernel 4.19", kernelFinding("4.19.0-25-amd64"), statusMissing, "every run: weft needs seccomp's WAIT_KILLABLE_RECV"},
		{"kernel 5.19", kernelFinding("5.19.0"), statusDegraded, "fast notifications"},
		{"kernel 6.6", kernelFinding("6.6.0"), statusOK, ""},
		{"no notification action", seccompFinding(unix.EINVAL, 0, [3]uint16{}), statusMissing, "every run and check"},
		{"no notification sizes", seccompFinding(0, unix.EINVAL, [3]uint16{}), statusMissing, "every run and check"},
		{"seccomp there", seccompFinding(0, 0, [3]uint16{80, 24, 64}), statusOK, ""},
		{"ptrace scope 3", ptraceFinding([]byte("3\n"), nil, true), statusMissing, "every run: weft traces each node"},
		{"ptrace scope 2, not root", ptraceFinding([]byte("2\n"), nil, false), statusMissing, "every run: weft traces each node"},
		{"ptrace scope unreadable", ptraceFinding(nil, os.ErrPermission, true), statusMissing, "every run: weft traces each node"},
		{"ptrace scope 2, root", ptraceFinding([]byte("2\n"), nil, true), statusOK, ""},
		{"no Yama", ptraceFinding(nil, enoent, false), statusOK, ""},
		{"no CPUID faulting", cpuidFinding(false, unix.ENODEV, "virtual CPU", nil), statusInfo, "a virtual cpuid in code weft cannot patch"},
		{"CPUID faulting, not used", cpuidFinding(true, nil, "virtual CPU", nil), statusInfo, "a virtual cpuid in code weft cannot patch"},
		{"host lacks the baseline", cpuidFinding(true, nil, "virtual CPU", []string{"avx2"}), statusDegraded, "this one lacks avx2"},
		{"TSC not trapped", tscFinding(false, nil), statusDegraded, "a deterministic TSC in code weft cannot patch"},
		{"TSC probe failed", tscFinding(false, unix.EINVAL), statusDegraded, "a deterministic TSC in code weft cannot patch"},
		{"TSC trapped", tscFinding(true, nil), statusOK, ""},
		{"user namespaces off", usernsFinding([]byte("0\n"), nil, nil, enoent), statusInfo, "running weft without root"},
		{"Debian's clone switch off", usernsFinding([]byte("100\n"), nil, []byte("0\n"), nil), statusInfo, "running weft without root"},
		{"user namespaces unreadable", usernsFinding(nil, enoent, nil, enoent), statusInfo, "running weft without root"},
		{"user namespaces", usernsFinding([]byte("100\n"), nil, []byte("1\n"), nil), statusOK, ""},
		{"one core", coresFinding(1, 1), statusDegraded, "parallel campaigns and check -j"},
		{"two cores", coresFinding(2, 3), statusOK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.Status != tc.status {
				t.Errorf("%s: status %s (found %q), want %s", tc.f.Check, tc.f.Status, tc.f.Found, tc.status)
			}
			if tc.f.Found == "" {
				t.Errorf("%s: says nothing about what it found", tc.f.Check)
			}
			if tc.disables != "" && !strings.Contains(tc.f.Disables, tc.disables) {
				t.Errorf("%s: disables %q, want it to say %q", tc.f.Check, tc.f.Disables, tc.disables)
			}
			var text strings.Builder
			printFindings(&text, []finding{tc.f})
			if shown := strings.Contains(text.String(), "→ "+tc.f.Disables); shown != (tc.status != statusOK) {
				t.Errorf("%s: the text shows what it disables: %v, want %v:\n%s", tc.f.Check, shown, tc.status != statusOK, text.String())
			}
		})
	}
}
