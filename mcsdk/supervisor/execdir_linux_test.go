//go:build linux && amd64

package supervisor

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFailedForeignExecLeavesNoFD: a node that executes a program of the
// model's directory by its view path (/run/weft/model/..., served by
// execForeign with a descriptor of the program's directory) and whose
// exec fails in the kernel (an ELF whose interpreter does not exist) has
// the same descriptors after the exec as before it: the directory's
// descriptor, which it never opened, is gone. Twice, byte-identical.
func TestFailedForeignExecLeavesNoFD(t *testing.T) {
	targets := execFailTargets(t)
	dir := filepath.Join(t.TempDir(), "model")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(targets["elf-interp"])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "badinterp"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Nodes: []NodeSpec{{Path: buildBounds(t), Args: []string{"execfail", dir + "/badinterp"}, Dir: dir}}, ReadOnlyWorkDir: true}
	const want = "fds before: 0 1 2 3\nfds after: 0 1 2 3\nexec /run/weft/model/badinterp: ENOENT\n"
	var outs []string
	for range 2 {
		w, _ := runThreads(t, cfg, first)
		if f := w.Failure(); f != nil {
			t.Fatalf("failure: %v", f)
		}
		outs = append(outs, string(w.Output(0)))
	}
	if outs[0] != want {
		t.Errorf("output:\n%s\nwant:\n%s", outs[0], want)
	}
	if outs[1] != outs[0] {
		t.Errorf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
}

// TestForeignExecAnyPath: a program of the model's directory executed
// by its view path (execForeign) runs whatever descriptor number weft's
// directory descriptor gets (with 30 descriptors open, /proc/self/fd/33/
// is longer than /run/weft/model/: that exec failed EACCES), in the
// process itself and in a vfork child; argv[0], which execv callers pass
// as the path's very string, and AT_EXECFN are the view's path in the
// new image, and the vfork parent's string, in the memory it shares with
// the child, is unchanged (weft wrote over both before).
func TestForeignExecAnyPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(buildBounds(t))
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "bounds")
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	const ran = "argv0 /run/weft/model/bounds execfn /run/weft/model/bounds\n"
	for _, tc := range []struct {
		mode, fds, want string
	}{
		{"execfds", "0", ran},
		{"execfds", "30", ran},
		{"vexecfds", "0", ran + "child exit 0; parent's path /run/weft/model/bounds\n"},
		{"vexecfds", "30", ran + "child exit 0; parent's path /run/weft/model/bounds\n"},
	} {
		t.Run(tc.mode+"-"+tc.fds, func(t *testing.T) {
			cfg := Config{Nodes: []NodeSpec{{Path: prog, Args: []string{tc.mode, tc.fds, prog}, Dir: dir}}, ReadOnlyWorkDir: true}
			w, _ := runThreads(t, cfg, first)
			if f := w.Failure(); f != nil {
				t.Fatalf("failure: %v", f)
			}
			if got := string(w.Output(0)); got != tc.want {
				t.Errorf("output:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
