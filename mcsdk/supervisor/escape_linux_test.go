//go:build linux && amd64

package supervisor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestEscapesStayInView runs testdata/escape.c, a hostile node, beside a
// second node and a sacrificial host process, and judges every escape of
// issue 36 from the host side: no file appears outside the node's view
// (a dangling symlink with O_CREAT, a symlink into the other node's
// directory, a 40-symlink chain, a 4 kB relative path), the file outside
// keeps its content and mode, the host process's memory and command line
// are out of reach (through a symlink and through /proc/self/root), and
// the host's identity files and devices are not what the node reads.
func TestEscapesStayInView(t *testing.T) {
	bin := buildC(t, "testdata/escape.c")
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const secret = "31415926" // the host process's argument
	sleeper := exec.Command("sleep", secret)
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()

	cfg := Config{Nodes: []NodeSpec{
		{Path: bin, Args: []string{strconv.Itoa(sleeper.Process.Pid)}, Env: []string{"OUTSIDE=" + outside}},
		{Path: "/bin/true"},
	}, BasePort: 7000, Seed: 1, DataDirs: true}
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for steps := 0; len(w.Enabled()) > 0; steps++ {
		if steps > 1000 {
			t.Fatal("more than 1000 steps")
		}
		if err := w.Apply(w.Enabled()[0]); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	out := string(w.Output(0))
	t.Logf("probe output:\n%s", out)

	// From the host: nothing was made or changed outside the view.
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 || ents[0].Name() != "victim" {
		t.Errorf("the outside directory changed: %v", ents)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious\n" {
		t.Errorf("the victim changed: %q, %v", b, err)
	}
	if st, err := os.Stat(victim); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the victim's mode changed: %v", st.Mode())
	}
	for _, name := range []string{"stolen", "dir"} {
		if _, err := os.Lstat(filepath.Join(w.DataDir(1), name)); err == nil {
			t.Errorf("node 0 made %s in node 1's directory", name)
		}
	}
	if err := sleeper.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the host process did not survive: %v", err)
	}
	if strings.Contains(out, secret) {
		t.Errorf("the host process's command line reached the node")
	}
	if host, err := os.ReadFile("/etc/machine-id"); err == nil && len(host) > 8 && strings.Contains(out, strings.TrimSpace(string(host))) {
		t.Errorf("the host's machine-id reached the node")
	}
	if host, err := os.Hostname(); err == nil && strings.Contains(out, "= "+host+"\n") {
		t.Errorf("the host's name reached the node")
	}

	// What each call answered: the errno Linux gives where the view has
	// nothing, never a pass.
	for _, want := range []string{
		"open(dangle, O_CREAT) = ENOENT\n",
		"open(tonode1, O_CREAT) = ENOENT\n",
		"mkdir(../node1/dir) = ENOENT\n",
		"open(40-link chain, O_CREAT) = ENOENT\n",
		"open(41-link chain, O_CREAT) = ELOOP\n",
		"chmod(40-link chain) = ENOENT\n",
		"getcwd = /run/weft/n0\n", // its view's path, not the host's
		"open(4 kB path, O_CREAT) = ENOENT\n",
		"chmod(4 kB path to victim) = ENOENT\n",
		"unlink(4 kB path to victim) = ENOENT\n",
		"truncate(4 kB path to victim) = ENOENT\n",
		"open(mem, O_RDWR) = ENOENT\n",
		"open(/proc/self/root/proc/HOST/mem, O_RDWR) = ELOOP\n",
		"read cmdline = ENOENT\n",
		"root/proc/" + strconv.Itoa(sleeper.Process.Pid) + "/cmdline = ELOOP\n",
		"root" + outside + "/victim = ELOOP\n",
		"read " + victim + " = ENOENT\n",
		"read /etc/hostname = node0\n",
		"read /etc/machine-id = 0000000000000000" + "7765667400000000\n",
		"read /proc/self/cgroup = 0::/\n",
		"read /dev/kmsg = ENOENT\n",
		"read /dev/tty = ENOENT\n",
		"open(/dev/userfaultfd) = ENOENT\n",
		"read kmsg = ENOENT\n",
		"read /dev/null = \n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count(out, "long path: "); n != 1 || !strings.Contains(out, "long path: 39") {
		t.Errorf("the long path was not about 4 kB")
	}
}
