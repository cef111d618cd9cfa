package vkernel

import (
	"fmt"
	"testing"
)

func TestReadMounts(t *testing.T) {
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{"/w/m"}, "[{/run/weft/model /w/m false}]"},
		// The binary beside the model, below it, in a system directory.
		{[]string{"/w/m", "/w/m", "/w/m/bin", "/usr/bin", "/usr"}, "[{/run/weft/model /w/m false}]"},
		// A binary elsewhere and the installation it belongs to; an
		// argument's directory that holds the model's.
		{[]string{"/w/m", "/opt2/py/bin", "/opt2/py", "/w"}, "[{/run/weft/model /w/m false} {/run/weft/read1 /opt2/py/bin false} {/run/weft/read2 /opt2/py false} {/run/weft/read3 /w false}]"},
		// A model in a system directory: the others are numbered alike.
		{[]string{"/usr/share/m", "/t/bin"}, "[{/run/weft/read1 /t/bin false}]"},
		{[]string{"", ".", "/"}, "[]"},
		// The view's own trees: an argument /proc/self/comm is the node's.
		{[]string{"/w/m", "/proc/4242", "/sys/x", "/dev", "/run/weft/n0"}, "[{/run/weft/model /w/m false}]"},
	} {
		if got := fmt.Sprint(ReadMounts(tc.dirs)); got != tc.want {
			t.Errorf("ReadMounts(%q) = %s, want %s", tc.dirs, got, tc.want)
		}
	}
}

func TestRewritePaths(t *testing.T) {
	ms := []Mount{{Path: "/usr"}, {Path: ModelDir, Host: "/real/w/m"}, {Path: ReadDir(1), Host: "/real/w/m2"}}
	as := Aliases(ms, map[string][]string{"/real/w/m": {"/link/m", "/real/w/m"}})
	for _, tc := range []struct{ in, want string }{
		{"/real/w/m", "/run/weft/model"},
		{"/real/w/m/www", "/run/weft/model/www"},
		{"/link/m/www", "/run/weft/model/www"},
		{"/real/w/m2/x", "/run/weft/read1/x"},
		{"-h /real/w/m/www -p 1", "-h /run/weft/model/www -p 1"},
		{"cd '/real/w/m'; exec ./a --c=/real/w/m/c.conf", "cd '/run/weft/model'; exec ./a --c=/run/weft/model/c.conf"},
		{"PATH=/usr/bin:/real/w/m:/bin", "PATH=/usr/bin:/run/weft/model:/bin"},
		// Not a path of a mount: a longer name, a name inside another.
		{"/real/w/mx", "/real/w/mx"},
		{"/x/real/w/m", "/x/real/w/m"},
		{"a/real/w/m", "a/real/w/m"},
		{"/usr/bin/sh", "/usr/bin/sh"},
		{"", ""},
	} {
		if got := RewritePaths(tc.in, as); got != tc.want {
			t.Errorf("RewritePaths(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReadHost(t *testing.T) {
	v := NewView([]Mount{{Path: "/usr"}, {Path: ModelDir, Host: "/w/m"}, {Path: RunDir(0), Host: "/d/n0", Writable: true}}, nil)
	for _, tc := range []struct{ in, want string }{
		{"/run/weft/model/x", "/w/m/x"}, {"/run/weft/model", "/w/m"},
		{"/run/weft/n0/x", ""}, {"/usr/bin/sh", ""}, {"/tmp/x", ""},
	} {
		if got, ok := v.ReadHost(tc.in); got != tc.want || ok != (tc.want != "") {
			t.Errorf("ReadHost(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
