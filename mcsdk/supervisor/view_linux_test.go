//go:build linux && amd64

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestViewServesCommonCalls runs a shell and coreutils in a node's view:
// the virtual hostname is read and stat'ed, /dev/stdout and /dev/stderr
// lead to the node's own descriptors, the system's directories are
// readable but not writable, what is outside the view is absent, and
// getcwd (coreutils' pwd) answers the view's path before and after cd.
//
// The run directory is shown at its virtual path (/run/weft/n0), never
// at its host path: getcwd, /proc/self/cwd and chdir by absolute and
// relative paths, through the run directory and the virtual directories
// above it, all name it so. A program in the run directory runs by a
// relative path, and by its absolute path, which the host kernel would
// look for on the host: weft has it issue that exec by a name the host
// resolves (execForeign; before, the name had no room and the exec was
// refused EACCES).
func TestViewServesCommonCalls(t *testing.T) {
	script := `cat /etc/hostname; echo err >/dev/stderr; echo out >/dev/stdout
test -r /etc/hostname && echo readable
test -w /etc/passwd || echo etc-read-only
test -e /tmp/weft-no-such || echo tmp-absent
test -e /dev/kmsg || echo kmsg-absent
readlink /dev/stdout
stat -c %s /etc/hostname
mkdir d && cd d && /bin/pwd
readlink /proc/self/cwd
cd /run/weft/n0/d && /bin/pwd
cd .. && cp /bin/true t && ./t && echo exec-relative
/run/weft/n0/t && echo exec-absolute
cd / && /bin/pwd
cd run/weft && /bin/pwd && readlink /proc/self/cwd
cd n0/d && /bin/pwd
cd /nowhere || echo cd-absent
cd /etc/hostname || echo cd-file
`
	cfg := Config{Nodes: []NodeSpec{{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}}},
		BasePort: 7000, DataDirs: true}
	w, _ := runThreads(t, cfg, first)
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	want := "node0\nerr\nout\nreadable\netc-read-only\ntmp-absent\nkmsg-absent\n/proc/self/fd/1\n6\n" +
		"/run/weft/n0/d\n/run/weft/n0/d\n/run/weft/n0/d\nexec-relative\n" +
		"exec-absolute\n" +
		"/\n/run/weft\n/run/weft\n/run/weft/n0/d\n" +
		"/bin/sh: 16: cd: can't cd to /nowhere\ncd-absent\n/bin/sh: 17: cd: can't cd to /etc/hostname\ncd-file\n"
	if got := string(w.Output(0)); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	for _, r := range w.Refusals() {
		if r.Rule == ruleNative {
			t.Errorf("refused: %+v", r)
		}
	}
	if host := w.RunDir(0); strings.Contains(string(w.Output(0)), host) {
		t.Errorf("the host path of the run directory, %s, reached the node", host)
	}
}

// TestVirtualDirWithoutSkeleton: in a view without run directories there
// is no skeleton to stand for a virtual directory, so a node may neither
// open "/" nor make it its working directory (a descriptor of the host's
// "/" would list the host), while the system's directories still serve.
func TestVirtualDirWithoutSkeleton(t *testing.T) {
	script := "cd / || echo cd-root-refused\ncd /usr && /bin/pwd\nls / >/dev/null || echo ls-root-refused\n"
	cfg := Config{Nodes: []NodeSpec{{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}}},
		BasePort: 7000}
	w, _ := runThreads(t, cfg, first)
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	out := string(w.Output(0))
	for _, want := range []string{"cd-root-refused\n", "/usr\n", "ls-root-refused\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestModelDirIsVirtual (issue 36 §5): a model's own programs, its
// directory and the paths its arguments and environment name are shown at
// /run/weft/model, wherever the model lies on the host: argv[0],
// /proc/self/exe, the process's name, a "#!" script's path as its
// interpreter is given it, the working directory of a node without a run
// directory, and an argument or variable naming a file there (which the
// node then reads through its view); a program there executed by its
// view path (execForeign) sees that path too.
func TestModelDirIsVirtual(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "some", "model")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, from := range map[string]string{"myreadlink": "/usr/bin/readlink", "mycat": "/usr/bin/cat"} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh -e\necho \"script $0 $1 $DATA\"\ncat \"$1\"\n/bin/pwd\nreadlink /proc/self/cwd\n" +
		"\"$(dirname \"$0\")/myreadlink\" /proc/self/exe\n"
	if err := os.WriteFile(filepath.Join(dir, "script.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "DATA=" + dir + "/data.txt"}
	cfg := Config{Nodes: []NodeSpec{
		{Path: filepath.Join(dir, "myreadlink"), Args: []string{"/proc/self/exe"}, Env: env, Dir: dir},
		{Path: filepath.Join(dir, "mycat"), Args: []string{"/proc/self/comm", dir + "/data.txt"}, Env: env, Dir: dir},
		{Path: filepath.Join(dir, "script.sh"), Args: []string{dir + "/data.txt"}, Env: env, Dir: dir},
	}, BasePort: 7000, ReadOnlyWorkDir: true}
	w, _ := runThreads(t, cfg, first)
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	for i, want := range []string{
		"/run/weft/model/myreadlink\n",
		"mycat\ndata\n",
		"script /run/weft/model/script.sh /run/weft/model/data.txt /run/weft/model/data.txt\ndata\n/run/weft/model\n/run/weft/model\n/run/weft/model/myreadlink\n",
	} {
		got := string(w.Output(i))
		if got != want {
			t.Errorf("node %d output:\n%s\nwant:\n%s", i, got, want)
		}
		if strings.Contains(got, dir) {
			t.Errorf("node %d: the model's host path %s reached the node", i, dir)
		}
	}
}
