//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNodeUser runs testdata/user.c as the user nobody (NodeSpec.User):
// the node holds nobody's uid, gid and groups, its run directory and a
// file it makes there are nobody's, and it can neither become root
// again nor write outside its run directory. Twice, byte-identical.
func TestNodeUser(t *testing.T) {
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("no user nobody: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	bin := exposed(t, buildProbe(t, "user", "-O1", "-Wall"))
	spec := NodeSpec{Path: bin, User: &User{Name: "nobody", UID: uint32(uid), GID: uint32(gid), Groups: []uint32{uint32(gid)}}}
	out := runTwice(t, "user", Config{Nodes: []NodeSpec{spec}, DataDirs: true}, first)
	for _, s := range []string{
		fmt.Sprintf("uid %d euid %d gid %d groups %d\n", uid, uid, gid, gid),
		fmt.Sprintf("run directory file owner %d %d\n", uid, gid),
		fmt.Sprintf("run directory owner %d\n", uid),
		"setuid(0): EPERM\n",
		"write /etc: EACCES\n",
		"read /etc/shadow: EACCES\n",
		fmt.Sprintf("made directory owner %d\n", uid),
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

// exposed copies bin into a directory every user may enter, and returns
// the copy's path (the probes are built in a directory only root enters).
func exposed(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(bin)
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err == nil { // the test's own temporary root
		err = os.Chmod(filepath.Dir(dir), 0o711)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, filepath.Base(bin)), b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(dir); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Fatalf("%s is not open to other users (%v)", d, err)
		}
	}
	return filepath.Join(dir, filepath.Base(bin))
}

// TestNodeUserCannotExec: a user that may not reach the binary gets a
// clear error at start, not a launcher that dies after its filter.
func TestNodeUserCannotExec(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "true")
	if err := os.WriteFile(bin, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(Config{Nodes: []NodeSpec{{Path: bin, User: &User{Name: "nobody", UID: 65534, GID: 65534}}}, DataDirs: true})
	if err == nil || !strings.Contains(err.Error(), "user nobody may not enter "+dir) {
		t.Errorf("Start = %v, want the user may not enter %s", err, dir)
	}
}
