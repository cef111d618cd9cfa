//go:build !linux

package main

import "runtime"

// doctorChecks reports that weft runs on Linux only.
func doctorChecks() []finding {
	return []finding{{Check: "operating system", Found: runtime.GOOS, Status: statusMissing,
		Disables: "every run and check: weft needs Linux (seccomp user notification, ptrace)"}}
}
