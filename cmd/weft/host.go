package main

import (
	"os"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// hostFromEnv decodes the environment variables that choose how nodes
// run on this host, for benchmarks and comparisons: WEFT_TSC=trap (trap
// the TSC from each node's start instead of patching its reads),
// WEFT_NO_VDSO=1 (every clock read an intercepted call), WEFT_TEMPLATES=0
// (every node started afresh), WEFT_GO_LAUNCHER=1 (the Go launcher) and
// WEFT_CHECKS=interp|native (how a model's Go checks run), and how weft
// builds: WEFT_CACHE (where built targets, weft's helpers and compiled
// checks are kept; default $XDG_CACHE_HOME/weft, else ~/.cache/weft) and
// CC (the C compiler; default cc).
// weft reads them here only; mcsdk and the supervisor take the result as
// configuration (mcsdk.Host).
func hostFromEnv(getenv func(string) string) mcsdk.Host {
	return mcsdk.Host{
		TrapTSC:     getenv("WEFT_TSC") == "trap",
		NoVDSO:      getenv("WEFT_NO_VDSO") == "1",
		NoTemplates: getenv("WEFT_TEMPLATES") == "0",
		GoLauncher:  getenv("WEFT_GO_LAUNCHER") == "1",
		Checks:      getenv("WEFT_CHECKS"),
		Toolchain:   supervisor.Toolchain{CacheDir: getenv("WEFT_CACHE"), CC: getenv("CC")},
	}
}

// host is hostFromEnv of weft's environment.
func host() mcsdk.Host { return hostFromEnv(os.Getenv) }
