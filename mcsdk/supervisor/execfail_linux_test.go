//go:build linux && amd64

package supervisor

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// execFailTargets writes files that pass for executables until the
// kernel's execve, after the launcher loaded its filter, refuses them:
// an ELF whose interpreter does not exist, a script whose interpreter
// does not exist, a file without execute permission, an ELF of another
// machine.
func execFailTargets(t *testing.T) map[string]string {
	dir := t.TempDir()
	elf, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	interp := []byte("/lib64/ld-linux-x86-64.so.2")
	i := bytes.Index(elf, interp)
	if i < 0 {
		t.Fatal("/bin/true names no /lib64/ld-linux-x86-64.so.2")
	}
	badInterp := bytes.Clone(elf)
	copy(badInterp[i:], "/lib64/ld-linux-x86-64.so.9")
	arm := bytes.Clone(elf)
	arm[18], arm[19] = 40, 0 // e_machine EM_ARM
	files := map[string]struct {
		data []byte
		mode os.FileMode
	}{
		"elf-interp":    {badInterp, 0o755},
		"script-interp": {[]byte("#!/nonexistent/interpreter\n"), 0o755},
		"no-exec":       {elf, 0o644},
		"other-machine": {arm, 0o755},
	}
	out := map[string]string{}
	for name, f := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	return out
}

// TestExecFailsAfterFilter starts nodes whose execve fails in the kernel
// after the launcher loaded its seccomp filter (both launchers): the
// launcher's next call would wait for weft while weft waited for its
// exec stop. Start must return, with a Failure (verdict error) naming the
// node, the file and execve's errno.
func TestExecFailsAfterFilter(t *testing.T) {
	want := map[string]string{
		"elf-interp":    "ENOENT",
		"script-interp": "ENOENT",
		"no-exec":       "EACCES",
		"other-machine": "ENOEXEC",
	}
	targets := execFailTargets(t)
	for _, goLauncher := range []bool{false, true} {
		for name, path := range targets {
			t.Run(name+map[bool]string{false: "", true: "-golauncher"}[goLauncher], func(t *testing.T) {
				done := make(chan error, 1)
				go func() {
					w, err := Start(Config{Nodes: []NodeSpec{{Path: path}}, GoLauncher: goLauncher})
					if w != nil {
						w.Close()
					}
					done <- err
				}()
				var err error
				select {
				case err = <-done:
				case <-time.After(5 * time.Minute): // a hang guard, not a timing assertion
					t.Fatal("Start did not return 5 minutes into a failed execve")
				}
				var f *Failure
				if !errors.As(err, &f) {
					t.Fatalf("Start: %v (%T), want a Failure", err, err)
				}
				if f.Node != 0 || !strings.Contains(f.Msg, "cannot execute "+path+": execve: ") || !strings.Contains(f.Msg, "("+want[name]+")") {
					t.Errorf("failure %q, want node 0, %s and %s", f, path, want[name])
				}
			})
		}
	}
}
