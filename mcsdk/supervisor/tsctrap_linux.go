//go:build linux && amd64

package supervisor

import (
	_ "embed"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

//go:embed native/tscprobe.c
var tscProbeSource []byte

// tscTraps is what this machine's kernel and CPU do with PR_SET_TSC,
// found once per process (and Toolchain the probe is built with) by
// TSCTraps.
var tscTraps byToolchain[bool]

// TSCTraps reports whether prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes rdtsc
// fault on this machine. It can fail to without an error: a hypervisor
// that does not let the guest set CR4.TSD leaves rdtsc running natively
// (seen on this project's AMD EPYC guests, 2026-12-04), and a node whose
// TSC weft meant to trap would read the host's counter. weft asks a probe
// process, built with tc: killed by SIGSEGV means it traps.
func TSCTraps(tc Toolchain) (bool, error) {
	return tscTraps.get(tc, probeTSC)
}

// probeTSC builds the TSC probe with tc and runs it.
func probeTSC(tc Toolchain) (bool, error) {
	bin, err := ccCached(tc, "the TSC probe", "weft-tscprobe-", "", [][]byte{tscProbeSource}, []string{".c"},
		func(srcs []string, out string) []string { return []string{"-O1", "-static", "-o", out, srcs[0]} })
	if err != nil {
		return false, err
	}
	err = exec.Command(bin).Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGSEGV:
		return true, nil
	}
	return false, fmt.Errorf("the TSC probe: %v", err)
}

// ruleTSCTrap is the rule a warnTSCTrap refusal names.
const ruleTSCTrap = "weft traps the TSC where it cannot patch it; this machine cannot trap rdtsc (prctl(PR_SET_TSC) is accepted but rdtsc runs natively, as under a hypervisor that does not honour CR4.TSD): a TSC read there reads the host's counter"

// warnTSCTrap records in the run's refusals (World.Refusals, weft's run
// summary) that node relies on trapping the TSC for why, when this machine
// cannot trap it. The run goes on, as it did before weft could tell: the
// unpatchable bytes are often never executed as rdtsc (OpenSSL's libcrypto
// holds some in code the sweep cannot decode), and ending every run of a
// program that links it would leave nothing checkable on such machines.
// The summary says where determinism then rests on that.
func (w *World) warnTSCTrap(node int, why string) {
	traps, err := TSCTraps(w.cfg.Toolchain)
	switch {
	case err != nil:
		w.refuse(node, "rdtsc", why, "unknown", "the TSC probe failed: "+err.Error())
	case !traps:
		w.refuse(node, "rdtsc", why, "native", ruleTSCTrap)
	}
}

// ruleTSCNative is the rule a warnTSCNative refusal names.
const ruleTSCNative = "weft patches a node's TSC reads into faults it answers from a virtual counter and traps the TSC where it cannot patch it; this machine cannot trap rdtsc (prctl(PR_SET_TSC) is accepted but rdtsc runs natively, as under a hypervisor that does not honour CR4.TSD), so weft goes on patching the process's other code and a TSC read in the code named reads the host's counter"

// cannotTrapTSC reports whether this machine accepts PR_SET_TSC but runs
// rdtsc natively all the same (TSCTraps false, without error). There a
// process whose code cannot all be patched keeps having the rest patched
// (warnTSCNative) instead of switching to a trap that would not fault and
// no longer following the code it maps. A failed probe answers false: weft
// traps as it always did (warnTSCTrap says the probe failed).
func (w *World) cannotTrapTSC() bool {
	traps, err := TSCTraps(w.cfg.Toolchain)
	return err == nil && !traps
}

// warnTSCNative records in the run's refusals that node's code named by
// why cannot be patched and runs its TSC reads natively, on a machine
// that cannot trap the TSC (cannotTrapTSC); the rest of its code stays
// patched.
func (w *World) warnTSCNative(node int, why string) {
	w.refuse(node, "rdtsc", why, "native", ruleTSCNative)
}
