//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestVirtualLimits runs testdata/rlimits.c under real seccomp with a
// bound of 64 tasks: the node reads the virtual defaults (RLIMIT_NPROC the
// bound, RLIMIT_NOFILE 65536, not the host's); a soft limit is lowered and
// raised again, raising a hard limit is EPERM and a soft limit above the
// hard one EINVAL; a lowered descriptor limit is met (EMFILE at
// descriptor 16); /proc/self/limits agrees; prlimit on a host pid or on
// pid 1 is ESRCH while the node's own child is served. From the host, the
// sacrificial process's limits are unchanged.
func TestVirtualLimits(t *testing.T) {
	bin := buildProbe(t, "rlimits", "-O1", "-Wall")
	victim := exec.Command("sleep", "1000")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	vp := victim.Process.Pid
	var limit0 unix.Rlimit
	unix.Prlimit(vp, unix.RLIMIT_NOFILE, nil, &limit0)

	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{fmt.Sprint(vp)}}}, DataDirs: true, MaxTasks: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	out := runToEnd(t, w)
	want := `nproc: 64 64
nofile: 65536 65536
stack: 8388608 -1
core: 0 -1
lower soft nofile: 0 
raise soft nofile: 0 
raise hard nofile: -1 EPERM
soft above hard: -1 EINVAL
unknown resource: -1 EINVAL
lower nofile: 0 
nofile: 16 16
highest fd: 15 EMFILE
prlimit host: -1 ESRCH
prlimit 1: -1 ESRCH
prlimit child: 0 
child old core: 0 -1
Max processes             64                   64                   processes 
Max open files            16                   16                   files     
done
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	var limit unix.Rlimit
	unix.Prlimit(vp, unix.RLIMIT_NOFILE, nil, &limit)
	if limit != limit0 {
		t.Errorf("the host process's RLIMIT_NOFILE changed: %+v, was %+v", limit, limit0)
	}
}
