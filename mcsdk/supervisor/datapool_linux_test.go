//go:build linux && amd64

package supervisor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDataRootsSiblingWrites checks that a restore never sees what an
// earlier restore of the same checkpoint (a sibling branch) did to its
// data directories, now that a checkpoint lends a closed restore's root
// to its next one (datapool_linux.go): after each change below, made to
// a restore's tree on the host as a node's own calls would make it, the
// next restore's tree (listing order, modes, link counts, sizes,
// contents) and hash are the checkpoint's, and none of its files is
// locked, by flock or a record lock (a frozen process of a checkpoint taken in the sibling shares
// its node's descriptions, flock locks included). A restore that changed
// nothing does hand its root on, so the reuse is exercised. On paxos,
// whose nodes keep their acceptor file open (reopened in each copy).
func TestDataRootsSiblingWrites(t *testing.T) {
	tc := checkpointTargets[3]
	if tc.name != "paxos" {
		t.Fatalf("checkpointTargets[3] is %s, not paxos", tc.name)
	}
	cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Run until an acceptor file holds something, so that a rewrite of
	// the same size is a change of content only.
	acceptor := func(w *World) string { return filepath.Join(w.DataDir(0), "acceptor") }
	for step := 0; step < 40; step++ {
		if st, err := os.Stat(acceptor(w)); err == nil && st.Size() > 0 {
			break
		}
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(acceptor(w))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() == 0 {
		t.Fatal("node 0's acceptor file stayed empty")
	}
	cp, err := w.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	want := mustHash(t, w)
	pristine := treeListing(t, cp.w.dataRoot)

	restore := func(t *testing.T) *World {
		t.Helper()
		r, err := cp.Restore()
		if err != nil {
			t.Fatal(err)
		}
		if got := mustHash(t, r); got != want {
			t.Errorf("a restore hashes %x, the checkpoint's world %x", got[:6], want[:6])
		}
		if got := treeListing(t, r.dataRoot); got != pristine {
			t.Errorf("a restore's data directories differ from the checkpoint's:\n%s\nwant\n%s", got, pristine)
		}
		return r
	}
	r := restore(t)
	root := r.dataRoot
	r.Close()
	r = restore(t)
	if r.dataRoot != root {
		t.Errorf("a restore that changed nothing did not hand its data root on (%s, then %s)", root, r.dataRoot)
	}
	r.Close()

	outside := filepath.Join(t.TempDir(), "link")
	held := -1 // a description kept open past the restore, as a frozen process keeps its node's
	changes := []struct {
		name   string
		change func(dir string) error
	}{
		{"append", func(dir string) error { return appendFile(filepath.Join(dir, "acceptor"), []byte("x")) }},
		{"rewrite of the same size", func(dir string) error {
			p := filepath.Join(dir, "acceptor")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i := range b {
				b[i] ^= 0x55
			}
			return os.WriteFile(p, b, 0o644)
		}},
		{"truncate", func(dir string) error { return os.Truncate(filepath.Join(dir, "acceptor"), 0) }},
		{"new file", func(dir string) error { return os.WriteFile(filepath.Join(dir, "new"), []byte("sibling"), 0o644) }},
		{"new empty file", func(dir string) error { return os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644) }},
		{"remove", func(dir string) error { return os.Remove(filepath.Join(dir, "acceptor")) }},
		{"rename", func(dir string) error { return os.Rename(filepath.Join(dir, "acceptor"), filepath.Join(dir, "moved")) }},
		{"rename and back", func(dir string) error {
			a, b := filepath.Join(dir, "acceptor"), filepath.Join(dir, "moved")
			if err := os.Rename(a, b); err != nil {
				return err
			}
			return os.Rename(b, a)
		}},
		{"replace by a copy", func(dir string) error {
			p := filepath.Join(dir, "acceptor")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.WriteFile(p, b, 0o644)
		}},
		{"chmod", func(dir string) error { return os.Chmod(filepath.Join(dir, "acceptor"), 0o600) }},
		{"mkdir", func(dir string) error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) }},
		{"symlink", func(dir string) error { return os.Symlink("acceptor", filepath.Join(dir, "ln")) }},
		{"hard link from outside", func(dir string) error { return os.Link(filepath.Join(dir, "acceptor"), outside) }},
		{"xattr", func(dir string) error {
			err := unix.Lsetxattr(filepath.Join(dir, "acceptor"), "user.weft", []byte("1"), 0)
			if err == unix.ENOTSUP {
				return nil // the file system keeps none
			}
			return err
		}},
		{"flock held past the restore", func(dir string) error {
			fd, err := unix.Open(filepath.Join(dir, "acceptor"), unix.O_RDWR|unix.O_CLOEXEC, 0)
			if err != nil {
				return err
			}
			held = fd
			return unix.Flock(fd, unix.LOCK_EX)
		}},
		{"record lock held past the restore", func(dir string) error {
			fd, err := unix.Open(filepath.Join(dir, "acceptor"), unix.O_RDWR|unix.O_CLOEXEC, 0)
			if err != nil {
				return err
			}
			held = fd
			// An OFD lock: a POSIX lock of this process would go with the
			// first descriptor of the file weft closes (markTree reads it).
			lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: 0, Start: 1, Len: 1}
			return unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLK, &lk)
		}},
		{"another node's directory", func(dir string) error {
			return os.WriteFile(filepath.Join(filepath.Dir(dir), "node1", "new"), []byte("sibling"), 0o644)
		}},
		{"the root", func(dir string) error {
			return os.WriteFile(filepath.Join(filepath.Dir(dir), "new"), []byte("sibling"), 0o644)
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(outside)
			r := restore(t)
			if err := c.change(r.DataDir(0)); err != nil {
				r.Close()
				t.Fatal(err)
			}
			r.Close()
			r = restore(t)
			defer r.Close()
			if held >= 0 {
				defer func() { unix.Close(held); held = -1 }()
			}
			for i := range cfg.Nodes {
				ents, err := os.ReadDir(r.DataDir(i))
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range ents {
					if !e.Type().IsRegular() {
						continue
					}
					fd, err := unix.Open(filepath.Join(r.DataDir(i), e.Name()), unix.O_RDONLY|unix.O_CLOEXEC, 0)
					if err != nil {
						t.Fatal(err)
					}
					if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
						t.Errorf("node %d's %s in a restore: flock: %v (a sibling's lock)", i, e.Name(), err)
					}
					lk := unix.Flock_t{Type: unix.F_WRLCK}
					if err := unix.FcntlFlock(uintptr(fd), unix.F_OFD_GETLK, &lk); err != nil || lk.Type != unix.F_UNLCK {
						t.Errorf("node %d's %s in a restore: a record lock (type %d, %v): a sibling's", i, e.Name(), lk.Type, err)
					}
					unix.Close(fd)
				}
			}
		})
	}
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// treeListing describes the tree at root as a node could see it, for
// comparing two trees: each entry in the order its directory lists it,
// with its type and permissions, link count, size, content or link
// target, and extended attributes' size; not the lock file's status.
func treeListing(t *testing.T, root string) string {
	t.Helper()
	var out bytes.Buffer
	var walk func(rel string)
	walk = func(rel string) {
		p := filepath.Join(root, rel)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		xattrs, _ := unix.Llistxattr(p, nil)
		fmt.Fprintf(&out, "%s %o %d:%d nlink=%d size=%d xattrs=%d", rel, st.Mode, st.Uid, st.Gid, st.Nlink, st.Size, xattrs)
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			if rel != dataLockName {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&out, " %q", b)
			}
			out.WriteByte('\n')
		case unix.S_IFLNK:
			l, _ := os.Readlink(p)
			fmt.Fprintf(&out, " -> %s\n", l)
		case unix.S_IFDIR:
			out.WriteByte('\n')
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			names, err := f.Readdirnames(-1) // the host's order
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				walk(filepath.Join(rel, n))
			}
		default:
			fmt.Fprintln(&out)
		}
	}
	walk(".")
	return out.String()
}

// TestCheckpointCopiesTreeAsSeen checks that a checkpoint's copy of the
// data directories, and a restore's, are what a node could observe of
// the original (copyTree): each directory lists its entries in the
// original's order (made here out of name order), modes survive the
// umask (a 0777 directory, a setgid file, a 0666 file), owners survive,
// and two names of one file stay one file.
func TestCheckpointCopiesTreeAsSeen(t *testing.T) {
	tc := checkpointTargets[3]
	cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dir := filepath.Join(w.DataDir(0), "tree")
	steps := []func() error{
		func() error { return os.Mkdir(dir, 0o700) },
		func() error { return os.WriteFile(filepath.Join(dir, "zz"), []byte("z"), 0o600) },
		func() error { return os.WriteFile(filepath.Join(dir, "aa"), []byte("a"), 0o600) },
		func() error { return os.Mkdir(filepath.Join(dir, "mm"), 0o700) },
		func() error { return os.Chmod(filepath.Join(dir, "mm"), 0o777) },
		func() error { return os.Chmod(filepath.Join(dir, "zz"), 0o2755) },
		func() error { return os.Chmod(filepath.Join(dir, "aa"), 0o666) },
		func() error { return os.Link(filepath.Join(dir, "aa"), filepath.Join(dir, "bb")) },
		func() error { return os.Symlink("aa", filepath.Join(dir, "cc")) },
	}
	if os.Geteuid() == 0 {
		steps = append(steps, func() error { return os.Lchown(filepath.Join(dir, "zz"), 65534, 65534) })
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := treeListing(t, dir)
	cp, err := w.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if got := treeListing(t, filepath.Join(cp.w.DataDir(0), "tree")); got != want {
		t.Errorf("the checkpoint's copy differs from the original:\n%s\nwant\n%s", got, want)
	}
	r, err := cp.Restore()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := treeListing(t, filepath.Join(r.DataDir(0), "tree")); got != want {
		t.Errorf("a restore's copy differs from the original:\n%s\nwant\n%s", got, want)
	}
}
