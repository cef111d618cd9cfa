//go:build linux && amd64

package main

import "github.com/weft-mc/weft/mcsdk/supervisor"

// tscCheck asks whether prctl(PR_SET_TSC) makes rdtsc fault here
// (supervisor.TSCTraps): weft traps the TSC where it cannot patch a read.
func tscCheck() finding { return tscFinding(supervisor.TSCTraps()) }

// tscFinding judges supervisor.TSCTraps's answer.
func tscFinding(traps bool, err error) finding {
	f := finding{Check: "TSC trapping", Disables: "a deterministic TSC in code weft cannot patch (JIT or writable code, libcrypto's undecodable bytes, WEFT_TSC=trap): reads there are the host's counter, and each run says so in its refusals"}
	switch {
	case err != nil:
		f.Found, f.Status = err.Error(), statusDegraded
	case traps:
		f.Found, f.Status = "rdtsc faults under PR_SET_TSC", statusOK
	default:
		f.Found, f.Status = "PR_SET_TSC is accepted but rdtsc runs natively (the hypervisor does not honour CR4.TSD)", statusDegraded
	}
	return f
}
