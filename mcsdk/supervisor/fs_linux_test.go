//go:build linux && amd64

package supervisor

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenWrites checks which open flags count as writes.
func TestOpenWrites(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags uint64
		want  bool
	}{
		{"O_RDONLY", unix.O_RDONLY, false},
		{"O_RDONLY|O_DIRECTORY", unix.O_RDONLY | unix.O_DIRECTORY, false},
		{"O_RDONLY|O_CLOEXEC|O_NOFOLLOW", unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW, false},
		{"O_PATH", unix.O_PATH, false},
		{"O_WRONLY", unix.O_WRONLY, true},
		{"O_RDWR", unix.O_RDWR, true},
		{"O_RDONLY|O_CREAT", unix.O_RDONLY | unix.O_CREAT, true},
		{"O_RDONLY|O_TRUNC", unix.O_RDONLY | unix.O_TRUNC, true},
		{"O_TMPFILE|O_WRONLY", unix.O_TMPFILE | unix.O_WRONLY, true},
	} {
		if got := openWrites(tc.flags); got != tc.want {
			t.Errorf("openWrites(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestProcSelf checks the rewriting of /proc/self for a node's pid.
func TestProcSelf(t *testing.T) {
	for in, want := range map[string]string{
		"/proc/self":             "/proc/42",
		"/proc/self/fd/3":        "/proc/42/fd/3",
		"/proc/thread-self/stat": "/proc/42/task/42/stat",
		"/proc/selfish":          "/proc/selfish",
		"/etc/passwd":            "/etc/passwd",
	} {
		if got := procSelf(in, 42); got != want {
			t.Errorf("procSelf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCanonicalTarget resolves paths as the kernel does: a followed
// symlink leads to its target, an unfollowed one stays itself, a missing
// last name joins its resolved parent.
func TestCanonicalTarget(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "real"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "real", "f"), nil, 0o644))
	must(os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "dl")))
	must(os.Symlink("real/f", filepath.Join(dir, "fl")))
	for _, tc := range []struct {
		path   string
		follow bool
		want   string
	}{
		{"fl", true, "real/f"},
		{"fl", false, "fl"},
		{"dl/f", false, "real/f"},
		{"dl/new", true, "real/new"},
		{"real/../fl", true, "real/f"},
		{"dl/../x", false, "x"}, // ".." after a symlink goes up from its target, as the kernel does
		{"real/.", false, "real"},
	} {
		got, err := canonicalTarget(filepath.Join(dir, tc.path), tc.follow)
		if want := filepath.Join(dir, tc.want); err != nil || got != want {
			t.Errorf("canonicalTarget(%s, follow=%v) = %q, %v; want %q", tc.path, tc.follow, got, err, want)
		}
	}
}
