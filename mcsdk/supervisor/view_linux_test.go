//go:build linux && amd64

package supervisor

import (
	"testing"
)

// TestViewServesCommonCalls runs a shell and coreutils in a node's view:
// the virtual hostname is read and stat'ed, /dev/stdout and /dev/stderr
// lead to the node's own descriptors, the system's directories are
// readable but not writable, what is outside the view is absent, and
// getcwd (coreutils' pwd) answers the view's path before and after cd.
func TestViewServesCommonCalls(t *testing.T) {
	script := `cat /etc/hostname; echo err >/dev/stderr; echo out >/dev/stdout
test -r /etc/hostname && echo readable
test -w /etc/passwd || echo etc-read-only
test -e /tmp/weft-no-such || echo tmp-absent
test -e /dev/kmsg || echo kmsg-absent
readlink /dev/stdout
stat -c %s /etc/hostname
mkdir d && cd d && /bin/pwd
cd / && /bin/pwd
`
	cfg := Config{Nodes: []NodeSpec{{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}}},
		BasePort: 7000, DataDirs: true}
	w, _ := runThreads(t, cfg, first)
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	want := "node0\nerr\nout\nreadable\netc-read-only\ntmp-absent\nkmsg-absent\n/proc/self/fd/1\n6\n" + w.RunDir(0) + "/d\n/\n"
	if got := string(w.Output(0)); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}
