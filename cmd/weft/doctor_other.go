//go:build !(linux && amd64)

package main

import "runtime"

// doctorChecks reports that weft runs on Linux on x86-64 only.
func doctorChecks() []finding {
	return []finding{{Check: "operating system", Found: runtime.GOOS + "/" + runtime.GOARCH, Status: statusMissing,
		Disables: "every run and check: weft needs Linux on x86-64 (seccomp user notification, ptrace)"}}
}
