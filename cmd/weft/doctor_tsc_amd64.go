//go:build linux && amd64

package main

import (
	"strings"

	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// tscCheck asks whether prctl(PR_SET_TSC) makes rdtsc fault here
// (supervisor.TSCTraps, its probe built with weft's toolchain): weft traps
// the TSC where it cannot patch a read.
func tscCheck() finding { return tscFinding(supervisor.TSCTraps(host().Toolchain)) }

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

// cpuidCheck describes the virtual CPU a node sees (weft patches cpuid,
// rdrand, rdseed, rdpid and lsl into faults it answers) and asks whether
// the processor can make cpuid fault (supervisor.CPUIDFaults), which weft
// does not use yet: code it cannot patch runs those instructions natively,
// and each run says so in its refusals. A host that lacks part of the
// virtual CPU's baseline (x86-64-v3 and companions) shows nodes less of it (never a feature
// the host lacks), so recordings made here may differ from a full host's.
func cpuidCheck() finding {
	ok, err := supervisor.CPUIDFaults()
	return cpuidFinding(ok, err, supervisor.CPUDescribe(), supervisor.HostLacksBaseline())
}

// cpuidFinding judges supervisor.CPUIDFaults's answer (faults, err), with
// the virtual CPU's description and what of its baseline the host lacks.
func cpuidFinding(faults bool, err error, describe string, lacks []string) finding {
	f := finding{Check: "CPUID faulting", Disables: "a virtual cpuid in code weft cannot patch (JIT or writable code, undecodable bytes): it runs natively there, and each run says so in its refusals"}
	if faults {
		f.Found = "available (not used yet)"
	} else {
		f.Found = "ARCH_SET_CPUID: " + err.Error() + " (the processor or hypervisor lacks it)"
	}
	f.Found += "; " + describe
	f.Status = statusInfo
	if len(lacks) > 0 {
		f.Status = statusDegraded
		f.Disables += "; recordings identical to those of a host with all of the virtual CPU's features (this one lacks " + strings.Join(lacks, " ") + ")"
	}
	return f
}
