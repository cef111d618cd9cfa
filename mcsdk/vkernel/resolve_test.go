package vkernel

import (
	"fmt"
	"strings"
	"testing"
)

// testView is node 0's view of a small host: system directories (with
// /lib and /bin merged into /usr), node 0's run directory /run/d0 and, on
// the host beside it, node 1's /run/d1 and a /tmp outside every view.
func testView(t *testing.T) (*View, fakeFS) {
	files := map[string]string{
		"/usr": "/", "/usr/lib": "/", "/usr/lib/libc.so": "elf", "/usr/bin": "/", "/usr/bin/sh": "elf",
		"/lib": "->usr/lib", "/bin": "->usr/bin", "/etc": "/", "/etc/passwd": "root", "/etc/hostname": "hostbox",
		"/tmp": "/", "/tmp/outside": "secret", "/run": "/", "/run/d1": "/", "/run/d1/x": "other node",
		"/run/d0": "/", "/run/d0/f": "data", "/run/d0/sub": "/",
		"/run/d0/dangling":   "->/tmp/evil",
		"/run/d0/toother":    "->/run/d1/x",
		"/run/d0/toothernew": "->../d1/new",
		"/run/d0/rel":        "->../d0/f",
		"/run/d0/toetc":      "->/etc/passwd",
		"/run/d0/loop":       "->loop",
		"/run/d0/toproc":     "->/proc/1/mem",
		"/run/d0/toroot":     "->/proc/self/root/etc/passwd",
		"/run/d0/dirlink":    "->sub/",
		"/run/d0/fileslash":  "->f/",
		"/run/d0/empty":      "->",
		"/run/d0/up":         "->../../../../../../",
	}
	for i := 0; i < 40; i++ { // a0 … a39 → f: 40 links; b0 … b40 → f: 41
		files[fmt.Sprintf("/run/d0/a%d", i)] = fmt.Sprintf("->a%d", i+1)
		files[fmt.Sprintf("/run/d0/b%d", i)] = fmt.Sprintf("->b%d", i+1)
	}
	files["/run/d0/a39"], files["/run/d0/b40"] = "->f", "->f"
	mounts := []Mount{{Path: "/run/d0", Writable: true}}
	for _, d := range SystemDirs {
		mounts = append(mounts, Mount{Path: d})
	}
	return NewView(mounts, Identity(0, NodeNames(2))), fakeFS{t: t, files: files}
}

func TestResolve(t *testing.T) {
	host := func(p string, typ FileType, w bool) Result {
		return Result{Kind: Host, Path: p, HostPath: p, Type: typ, Writable: w, Native: true}
	}
	missing := func(p string, w bool) Result {
		return Result{Kind: Missing, Path: p, HostPath: p, Writable: w, Native: true}
	}
	absent := func(p string) Result { return Result{Kind: Missing, Path: p} } // in a virtual directory
	proc := func(p string) Result { return Result{Kind: Proc, Path: p} }
	tests := []struct {
		name   string
		follow bool
		want   Result
		err    error
	}{
		{"f", true, host("/run/d0/f", TypeRegular, true), nil},
		{"/run/d0/./sub/../f", true, host("/run/d0/f", TypeRegular, true), nil},
		{"new", true, missing("/run/d0/new", true), nil},
		{"sub/new", true, missing("/run/d0/sub/new", true), nil},
		{"nope/new", true, Result{}, ENOENT},
		{"f/x", true, Result{}, ENOTDIR},
		{"f/", true, Result{}, ENOTDIR},
		{"", true, Result{}, ENOENT},
		{"rel", true, host("/run/d0/f", TypeRegular, true), nil},
		// A dangling symlink to outside the view: O_CREAT cannot follow it.
		{"dangling", true, Result{}, ENOENT},
		{"dangling", false, host("/run/d0/dangling", TypeSymlink, true), nil},
		// Another node's directory is not in this node's view.
		{"toother", true, Result{}, ENOENT},
		{"toothernew", true, Result{}, ENOENT},
		{"../d1/x", true, Result{}, ENOENT},
		{"/run/d1", true, absent("/run/d1"), nil}, // absent: open ENOENT, create EACCES
		{"/run/new", true, absent("/run/new"), nil},
		{"/tmp/outside", true, Result{}, ENOENT},
		{"/tmp", true, absent("/tmp"), nil},
		// ".." stops at the view's root.
		{"../../../../../etc/passwd", true, host("/etc/passwd", TypeRegular, false), nil},
		{"up", true, Result{Kind: Dir, Path: "/"}, nil},
		{"/..", true, Result{Kind: Dir, Path: "/"}, nil},
		{"toetc", true, host("/etc/passwd", TypeRegular, false), nil},
		{"/lib/libc.so", true, host("/usr/lib/libc.so", TypeRegular, false), nil},
		{"/bin/sh", true, host("/usr/bin/sh", TypeRegular, false), nil},
		{"/usr/../etc/passwd", true, host("/etc/passwd", TypeRegular, false), nil},
		{"/etc/new", true, missing("/etc/new", false), nil},
		// Symlink chains: Linux follows 40.
		{"a0", true, host("/run/d0/f", TypeRegular, true), nil},
		{"b0", true, Result{}, ELOOP},
		{"loop", true, Result{}, ELOOP},
		{"loop", false, host("/run/d0/loop", TypeSymlink, true), nil},
		{"empty", true, Result{}, ENOENT},
		{"dirlink", true, host("/run/d0/sub", TypeDir, true), nil},
		{"dirlink/", false, Result{Kind: Host, Path: "/run/d0/sub", HostPath: "/run/d0/sub", Type: TypeDir, Writable: true, DirOnly: true, Native: true}, nil},
		{"fileslash", true, Result{}, ENOTDIR},
		{"sub/", true, Result{Kind: Host, Path: "/run/d0/sub", HostPath: "/run/d0/sub", Type: TypeDir, Writable: true, DirOnly: true, Native: true}, nil},
		{"newdir/", true, Result{Kind: Missing, Path: "/run/d0/newdir", HostPath: "/run/d0/newdir", Writable: true, DirOnly: true, Native: true}, nil},
		// Lengths.
		{strings.Repeat("./", 2040) + "f", true, host("/run/d0/f", TypeRegular, true), nil},
		{strings.Repeat("./", 2048) + "f", true, Result{}, ENAMETOOLONG},
		{strings.Repeat("x", 256), true, Result{}, ENAMETOOLONG},
		{strings.Repeat("x", 255), true, missing("/run/d0/"+strings.Repeat("x", 255), true), nil},
		// /proc: the table decides; magic links are not walked through.
		{"toproc", true, proc("/proc/1/mem"), nil},
		{"/proc/self/root/etc/passwd", true, Result{}, ELOOP},
		{"toroot", true, Result{}, ELOOP},
		{"/proc/1/task/1/root/etc", true, Result{}, ELOOP},
		{"/proc/self/cwd/f", true, Result{}, ELOOP},
		{"/proc/self/fd/3/x", true, Result{}, ELOOP},
		{"/proc/self/fd/3", true, proc("/proc/self/fd/3"), nil},
		{"/proc/self/exe", true, proc("/proc/self/exe"), nil},
		{"/proc/self/status", true, proc("/proc/self/status"), nil},
		{"/proc/self/cgroup", true, proc("/proc/self/cgroup"), nil},
		{"/proc/self/../1/mem", true, proc("/proc/1/mem"), nil},
		{"/proc/..", true, Result{Kind: Dir, Path: "/"}, nil},
		{"/sys/devices/system/cpu/online", true, proc("/sys/devices/system/cpu/online"), nil},
		// /dev: an allow-list.
		{"/dev/null", true, Result{Kind: Device, Path: "/dev/null"}, nil},
		{"/dev/urandom", true, Result{Kind: Device, Path: "/dev/urandom"}, nil},
		{"/dev/null/x", true, Result{}, ENOTDIR},
		{"/dev/kmsg", true, absent("/dev/kmsg"), nil},
		{"/dev/userfaultfd", true, absent("/dev/userfaultfd"), nil},
		{"/dev/tty", true, absent("/dev/tty"), nil},
		{"/dev/sda1", true, absent("/dev/sda1"), nil},
		{"/dev/pts/0", true, Result{}, ENOENT},
		{"/dev/stdout", true, proc("/proc/self/fd/1"), nil},
		{"/dev/stdout", false, proc("/dev/stdout"), nil},
		{"/dev/fd/5", true, proc("/proc/self/fd/5"), nil},
		{"/dev", true, Result{Kind: Dir, Path: "/dev"}, nil},
		// Host identity is virtual.
		{"/etc/hostname", true, Result{Kind: File, Path: "/etc/hostname", Content: []byte("node0\n")}, nil},
		{"/etc/hostname/", true, Result{}, ENOTDIR},
		{"/etc/hostname/x", true, Result{}, ENOTDIR},
	}
	v, fs := testView(t)
	for _, tc := range tests {
		got, err := v.Resolve(fs, "/run/d0", tc.name, tc.follow)
		name := tc.name
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		if err != tc.err {
			t.Errorf("Resolve(%q, follow=%v): error %v, want %v", name, tc.follow, err, tc.err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Resolve(%q, follow=%v) = %+v, want %+v", name, tc.follow, got, tc.want)
		}
	}
}

func TestResolveFromRoot(t *testing.T) {
	v, fs := testView(t)
	for _, tc := range []struct {
		start, name string
		want        string
		err         error
	}{
		{"/", "..", "/", nil},
		{"/", "run/d0/f", "/run/d0/f", nil},
		{"/run", "d0", "/run/d0", nil},
		{"/etc", "../run/d0/sub/..", "/run/d0", nil},
		{"/tmp", "x", "", ENOENT}, // a start outside the view
	} {
		got, err := v.Resolve(fs, tc.start, tc.name, true)
		if err != tc.err || got.Path != tc.want {
			t.Errorf("Resolve from %s of %q = %q, %v; want %q, %v", tc.start, tc.name, got.Path, err, tc.want, tc.err)
		}
	}
}

func TestLocate(t *testing.T) {
	v, _ := testView(t)
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"/run/d0", true}, {"/run/d0/sub", true}, {"/run", true}, {"/", true}, {"/usr/lib", true},
		{"/run/d1", false}, {"/tmp", false}, {"/proc/5", false}, {"socket:[12]", false}, {"/dev", true}, {"/dev/null", false},
	} {
		got, ok := v.Locate(tc.host)
		if ok != tc.ok || ok && got != tc.host {
			t.Errorf("Locate(%q) = %q, %v; want ok=%v", tc.host, got, ok, tc.ok)
		}
	}
}

func TestIdentity(t *testing.T) {
	files := Identity(1, NodeNames(3))
	for path, want := range map[string]string{
		"/etc/hostname": "node1\n",
		"/etc/hosts":    "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.0.1\tnode0\n127.0.0.1\tnode1\n127.0.0.1\tnode2\n",
	} {
		if got := string(files[path]); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if id := strings.TrimSpace(string(files["/etc/machine-id"])); len(id) != 32 || id == strings.TrimSpace(string(Identity(0, NodeNames(3))["/etc/machine-id"])) {
		t.Errorf("machine-id %q: want 32 hex digits, one per node", id)
	}
}

// TestRemappedMount resolves in a view that shows node 0's run directory,
// /tmp/weft-data-7/node0 on the host, at its virtual path /run/weft/n0:
// the node names only view paths, weft's calls get host paths, a host
// path is not a view path, and Native says where the host kernel's own
// walk of the same name would go elsewhere.
func TestRemappedMount(t *testing.T) {
	const hostRun = "/tmp/weft-data-7/node0"
	files := map[string]string{
		"/usr": "/", "/usr/bin": "/", "/usr/bin/sh": "elf", "/tmp": "/", "/tmp/weft-data-7": "/",
		"/tmp/weft-data-7/node1": "/", "/tmp/weft-data-7/node1/x": "other node",
		hostRun: "/", hostRun + "/f": "data", hostRun + "/sub": "/",
		hostRun + "/abs":     "->/run/weft/n0/f",
		hostRun + "/hostabs": "->" + hostRun + "/f",
		hostRun + "/rel":     "->sub/../f",
	}
	v := NewView([]Mount{{Path: "/usr"}, {Path: RunDir(0), Host: hostRun, Writable: true}}, nil)
	v.DirsAt("/tmp/weft-data-7/.dirs")
	fs := fakeFS{t: t, files: files}
	in := func(p string, typ FileType, native bool) Result {
		return Result{Kind: Host, Path: "/run/weft/n0" + p, HostPath: hostRun + p, Type: typ, Writable: true, Native: native}
	}
	for _, tc := range []struct {
		start, name string
		want        Result
		err         error
	}{
		{"/run/weft/n0", "f", in("/f", TypeRegular, true), nil},
		{"/run/weft/n0", "sub/../f", in("/f", TypeRegular, true), nil},
		{"/run/weft/n0/sub", "../f", in("/f", TypeRegular, true), nil},
		{"/run/weft/n0", "rel", in("/f", TypeRegular, true), nil},
		{"/run/weft/n0", "/run/weft/n0/f", in("/f", TypeRegular, false), nil},
		{"/run/weft/n0", "../n0/f", in("/f", TypeRegular, false), nil},
		{"/run/weft/n0", "abs", in("/f", TypeRegular, false), nil},
		{"/run/weft", "n0/f", in("/f", TypeRegular, false), nil},
		{"/run/weft/n0", "new", Result{Kind: Missing, Path: "/run/weft/n0/new", HostPath: hostRun + "/new", Writable: true, Native: true}, nil},
		{"/run/weft/n0", "..", Result{Kind: Dir, Path: "/run/weft"}, nil},
		{"/run/weft/n0", "/usr/bin/sh", Result{Kind: Host, Path: "/usr/bin/sh", HostPath: "/usr/bin/sh", Type: TypeRegular, Native: true}, nil},
		// Host paths of the run are no paths of the view.
		{"/run/weft/n0", "hostabs", Result{}, ENOENT},
		{"/run/weft/n0", hostRun + "/f", Result{}, ENOENT},
		{"/run/weft/n0", "../../../tmp/weft-data-7/node1/x", Result{}, ENOENT},
		{"/run/weft/n0", "../n1", Result{Kind: Missing, Path: "/run/weft/n1"}, nil},
	} {
		got, err := v.Resolve(fs, tc.start, tc.name, true)
		if err != tc.err || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Resolve from %s of %q = %+v, %v; want %+v, %v", tc.start, tc.name, got, err, tc.want, tc.err)
		}
	}
	for _, tc := range []struct{ host, want string }{
		{hostRun, "/run/weft/n0"}, {hostRun + "/sub", "/run/weft/n0/sub"}, {"/usr/bin", "/usr/bin"},
		{"/tmp/weft-data-7", ""}, {"/tmp/weft-data-7/node1", ""}, {"/tmp", ""},
		{"/tmp/weft-data-7/.dirs", "/"}, {"/tmp/weft-data-7/.dirs/run/weft", "/run/weft"},
		{"/tmp/weft-data-7/.dirs/tmp", ""}, {"/tmp/weft-data-7/.dirs/run/weft/n0", ""},
	} {
		if got, ok := v.Locate(tc.host); got != tc.want || ok != (tc.want != "") {
			t.Errorf("Locate(%q) = %q, %v; want %q", tc.host, got, ok, tc.want)
		}
	}
	for _, tc := range []struct{ view, want string }{
		{"/", "/tmp/weft-data-7/.dirs"}, {"/run/weft", "/tmp/weft-data-7/.dirs/run/weft"},
		{"/run/weft/n0", ""}, {"/usr", ""}, {"/tmp", ""},
	} {
		if got, ok := v.HostDir(tc.view); got != tc.want || ok != (tc.want != "") {
			t.Errorf("HostDir(%q) = %q, %v; want %q", tc.view, got, ok, tc.want)
		}
	}
}
