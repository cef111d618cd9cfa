package main

import (
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// TestHostFromEnv: each variable sets its field for the value the scripts
// use, and only for it.
func TestHostFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want mcsdk.Host
	}{
		{nil, mcsdk.Host{}},
		{map[string]string{"WEFT_TSC": "trap"}, mcsdk.Host{TrapTSC: true}},
		{map[string]string{"WEFT_TSC": "patch"}, mcsdk.Host{}},
		{map[string]string{"WEFT_NO_VDSO": "1"}, mcsdk.Host{NoVDSO: true}},
		{map[string]string{"WEFT_NO_VDSO": ""}, mcsdk.Host{}},
		{map[string]string{"WEFT_TEMPLATES": "0"}, mcsdk.Host{NoTemplates: true}},
		{map[string]string{"WEFT_TEMPLATES": "1"}, mcsdk.Host{}},
		{map[string]string{"WEFT_GO_LAUNCHER": "1"}, mcsdk.Host{GoLauncher: true}},
		{map[string]string{"WEFT_CHECKS": "interp"}, mcsdk.Host{Checks: "interp"}},
		{map[string]string{"WEFT_CHECKS": "native"}, mcsdk.Host{Checks: "native"}},
		{map[string]string{"WEFT_CACHE": "/tmp/c"}, mcsdk.Host{Toolchain: supervisor.Toolchain{CacheDir: "/tmp/c"}}},
		{map[string]string{"CC": "clang"}, mcsdk.Host{Toolchain: supervisor.Toolchain{CC: "clang"}}},
		{map[string]string{"WEFT_TSC": "trap", "WEFT_NO_VDSO": "1", "WEFT_TEMPLATES": "0", "WEFT_GO_LAUNCHER": "1"},
			mcsdk.Host{TrapTSC: true, NoVDSO: true, NoTemplates: true, GoLauncher: true}},
	} {
		if got := hostFromEnv(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %+v, want %+v", tc.env, got, tc.want)
		}
	}
}
