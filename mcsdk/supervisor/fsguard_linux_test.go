//go:build linux && amd64

package supervisor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWritesConfinedToRunDir runs testdata/fsguard.c: every write outside
// the node's run directory, in a directory its view shows read-only (its
// binary's) — by absolute path, through a symlink or "..", a directory
// descriptor, a changed working directory, or a descriptor opened
// read-only — is refused with EACCES and counted, the directory outside
// is left exactly as it was, and the same writes inside work. A path
// through /proc/self/cwd is refused (ELOOP): weft does not walk magic
// links.
func TestWritesConfinedToRunDir(t *testing.T) {
	bin := buildC(t, "testdata/fsguard.c")
	outside := filepath.Dir(bin) // in the node's view, read-only: its binary's directory
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(victim)

	out, w := runAlone(t, bin, 1, outside)
	refused := w.RefusedWrites(0)
	var inside []string
	filepath.WalkDir(w.DataDir(0), func(p string, d os.DirEntry, err error) error {
		if err == nil && p != w.DataDir(0) {
			rel, _ := filepath.Rel(w.DataDir(0), p)
			inside = append(inside, rel)
		}
		return nil
	})
	w.Close()

	want := `open(outside/new, O_CREAT) = EACCES
creat(outside/new) = EACCES
open(victim, O_WRONLY) = EACCES
open(victim, O_RDONLY|O_TRUNC) = EACCES
open(victim, O_RDONLY) = ok
fchmod(victim fd) = EACCES
fchown(victim fd) = EACCES
futimens(victim fd) = EACCES
chmod(victim) = EACCES
chown(victim) = EACCES
truncate(victim) = EACCES
utimensat(victim) = EACCES
setxattr(victim) = EACCES
mkdir(outside/sub) = EACCES
rmdir(outside) = EACCES
unlink(victim) = EACCES
rename(victim, stolen) = EACCES
link(victim, hard) = EACCES
symlink(x, outside/sym) = EACCES
symlink(victim, link) = ok
open(link, O_WRONLY) = EACCES
open(link, O_RDONLY) = ok
lchown(link) = ok
unlink(link) = ok
symlink(outside, dirlink) = ok
open(dirlink/new, O_CREAT) = EACCES
open(../escape, O_CREAT) = EACCES
openat(outside fd, new, O_CREAT) = EACCES
unlinkat(outside fd, victim) = EACCES
renameat(outside fd, victim, cwd, stolen) = EACCES
fchmodat(outside fd, victim) = EACCES
chdir(outside) = ok
open(new, O_CREAT) in outside cwd = EACCES
fchdir(run dir) = ok
open(ok, O_CREAT) = ok
write(ok) = ok
mkdir(dir) = ok
openat(dir fd, x, O_CREAT) = ok
rename(dir/x, dir/y) = ok
symlink(ok, okl) = ok
open(okl, O_WRONLY) = ok
open(/proc/self/cwd/viaproc, O_CREAT) = ELOOP
truncate(ok) = ok
chmod(ok) = ok
open(/dev/null, O_WRONLY) = ok
fchmod(stdout, /dev/null) = EACCES
futimens(stdout, /dev/null) = EACCES
rename(ok, outside/ok) = EACCES
open(outside, O_TMPFILE) = EACCES
open(., O_TMPFILE) = ok
open(outside/missing-dir/x, O_CREAT) = ENOENT
`
	if string(out) != want {
		t.Errorf("probe output:\n%s\nwant:\n%s", out, want)
	}
	if n := strings.Count(want, "= EACCES"); refused != n {
		t.Errorf("RefusedWrites = %d, want %d", refused, n)
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 2 || ents[0].Name() != filepath.Base(bin) || ents[1].Name() != "victim" {
		t.Errorf("the outside directory changed: %v", ents)
	}
	after, _ := os.Stat(victim)
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the victim changed: %q, mode %v → %v, mtime %v → %v", b, before.Mode(), after.Mode(), before.ModTime(), after.ModTime())
	}
	slices.Sort(inside)
	if got := strings.Join(inside, " "); got != "dir dir/y dirlink ok okl" {
		t.Errorf("run directory holds %q", got)
	}
}

// TestReadOnlyWorkDir: a node whose working directory is shared (the
// model's, Config.ReadOnlyWorkDir without data directories) cannot write
// there — a shell's redirection is refused with EACCES and counted, and
// the directory is left as it was — while it still reads its files; with
// ReadOnlyWorkDir off the same write lands.
func TestReadOnlyWorkDir(t *testing.T) {
	for _, tc := range []struct {
		readOnly bool
		out      string
	}{{true, "refused\n"}, {false, "wrote\n"}} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "in"), []byte("input\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := Config{Nodes: []NodeSpec{{Path: "/bin/sh", Args: []string{"-c", "cat in; if echo x >left; then echo wrote; else echo refused; fi"}, Dir: dir}},
			ReadOnlyWorkDir: tc.readOnly}
		w, _ := runThreads(t, cfg, first)
		if f := w.Failure(); f != nil {
			t.Fatal(f)
		}
		// The shell's own complaint about the redirection goes between.
		if got := string(w.Output(0)); !strings.HasPrefix(got, "input\n") || !strings.HasSuffix(got, tc.out) {
			t.Errorf("read-only %v: output %q, want input, then %q", tc.readOnly, got, tc.out)
		}
		_, err := os.Stat(filepath.Join(dir, "left"))
		if left := err == nil; left == tc.readOnly {
			t.Errorf("read-only %v: file left in the working directory: %v", tc.readOnly, left)
		}
		if n := w.RefusedWrites(0); (n > 0) != tc.readOnly {
			t.Errorf("read-only %v: %d refused writes", tc.readOnly, n)
		}
	}
}
