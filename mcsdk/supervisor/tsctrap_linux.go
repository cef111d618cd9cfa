//go:build linux && amd64

package supervisor

import (
	_ "embed"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
)

//go:embed native/tscprobe.c
var tscProbeSource []byte

// tscTrap is what this machine's kernel and CPU do with PR_SET_TSC, found
// once per process by TSCTraps.
var tscTrap struct {
	once  sync.Once
	traps bool
	err   error
}

// TSCTraps reports whether prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes rdtsc
// fault on this machine. It can fail to without an error: a hypervisor
// that does not let the guest set CR4.TSD leaves rdtsc running natively
// (seen on this project's AMD EPYC guests, 2026-12-04), and a node whose
// TSC weft meant to trap would read the host's counter. weft asks a probe
// process: killed by SIGSEGV means it traps.
func TSCTraps() (bool, error) {
	tscTrap.once.Do(func() {
		bin, err := ccCached("the TSC probe", "weft-tscprobe-", "", [][]byte{tscProbeSource}, []string{".c"},
			func(srcs []string, out string) []string { return []string{"-O1", "-static", "-o", out, srcs[0]} })
		if err != nil {
			tscTrap.err = err
			return
		}
		err = exec.Command(bin).Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			tscTrap.traps = false
		case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGSEGV:
			tscTrap.traps = true
		default:
			tscTrap.err = fmt.Errorf("the TSC probe: %v", err)
		}
	})
	return tscTrap.traps, tscTrap.err
}

// errNoTSCTrap is why a node that must trap the TSC cannot run here.
var errNoTSCTrap = errors.New("this machine cannot trap rdtsc (prctl(PR_SET_TSC) is accepted but rdtsc still runs natively, as under a hypervisor that does not honour CR4.TSD): the node would read the host's counter")

// needTSCTrap returns an error unless this machine traps the TSC.
func needTSCTrap() error {
	traps, err := TSCTraps()
	if err != nil {
		return err
	}
	if !traps {
		return errNoTSCTrap
	}
	return nil
}
