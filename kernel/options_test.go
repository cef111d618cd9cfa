package kernel

import (
	"strings"
	"testing"
)

// TestOptionsFromEnv: the kernel's settings are decoded once, at its
// start, into engine options; a value that cannot be used is an error
// naming the variable and the value (the engine reads no environment).
func TestOptionsFromEnv(t *testing.T) {
	for _, c := range []struct {
		memory, gopath string
		want           uint64
		wantPath       string
		inErr          string
	}{
		{memory: "", want: 0},
		{memory: "2G", want: 2 << 30},
		{memory: "512m", want: 512 << 20},
		{memory: "64K", want: 64 << 10},
		{memory: "1048576", want: 1 << 20},
		{memory: " 3G ", want: 3 << 30},
		{memory: "1GiB", want: 1 << 30},
		{memory: "2GB", want: 2 << 30},
		{memory: "1T", want: 1 << 40},
		{gopath: "/tmp/weft-gp", wantPath: "/tmp/weft-gp"},
		{memory: "lots", inErr: `WEFT_CELL_MEMORY="lots": want a positive size`},
		{memory: "0", inErr: `WEFT_CELL_MEMORY="0"`},
		{memory: "-1G", inErr: `WEFT_CELL_MEMORY="-1G"`},
		{memory: "2X", inErr: `WEFT_CELL_MEMORY="2X"`},
		{memory: "G", inErr: `WEFT_CELL_MEMORY="G"`},
		{memory: "99999999999G", inErr: `WEFT_CELL_MEMORY="99999999999G"`},
	} {
		env := map[string]string{CellMemoryEnv: c.memory, GoPathEnv: c.gopath}
		o, err := OptionsFromEnv(func(k string) string { return env[k] })
		if c.inErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.inErr) {
				t.Errorf("%q: error %v, want one containing %q", c.memory, err, c.inErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.memory, err)
		}
		if o.Engine.CellMemory != c.want || o.Engine.CellMemorySetting != CellMemoryEnv {
			t.Errorf("%q: CellMemory %d (%q), want %d (%q)", c.memory, o.Engine.CellMemory, o.Engine.CellMemorySetting, c.want, CellMemoryEnv)
		}
		if want := c.wantPath; want == "" && o.Engine.GoPath != DefaultGoPath() || want != "" && o.Engine.GoPath != want {
			t.Errorf("%q: GoPath %q, want %q (default %q)", c.gopath, o.Engine.GoPath, want, DefaultGoPath())
		}
	}
}
