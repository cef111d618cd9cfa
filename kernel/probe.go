package kernel

import (
	"fmt"
	"os"
	osexec "os/exec"

	"github.com/weft-mc/weft/kernel/engine"
)

// probeEnv, set to 1 in a process of a binary that links this package,
// makes it a compiler probe of the engine (engine.Options.Probe): it
// serves requests on its file descriptors 3 and 4 and exits, before main
// runs. The kernel starts its probes this way from its own executable, so
// a probe binds exactly the kernel's packages.
const probeEnv = "WEFT_KERNEL_PROBE"

func init() {
	if os.Getenv(probeEnv) != "1" {
		return
	}
	// The probe's environment is its executor's: the settings decoded
	// there, where a bad value stopped the kernel's start.
	o, err := OptionsFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "weft kernel probe:", err)
		os.Exit(1)
	}
	if err := engine.ServeProbe(o.Engine, os.NewFile(3, "requests"), os.NewFile(4, "replies")); err != nil {
		fmt.Fprintln(os.Stderr, "weft kernel probe:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// probeCommand makes the command of a compiler probe: this executable
// with probeEnv set.
func probeCommand() *osexec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		// The engine reports the start's failure: its cells then run
		// compiled, never unprobed in the kernel's process.
		exe = "/nonexistent/weft-kernel-executable"
	}
	cmd := osexec.Command(exe)
	cmd.Env = append(os.Environ(), probeEnv+"=1")
	return cmd
}
