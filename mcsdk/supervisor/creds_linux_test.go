//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestUnixCredentials runs testdata/creds.c under real seccomp: a unix
// socket with SO_PASSCRED receives SCM_CREDENTIALS with the sender's
// virtual pid (the node's, or its child's) and the user's ids, stated
// credentials are checked as Linux checks them, a short control buffer
// is truncated, and a reader of credentials never gets two writers'
// bytes in one read. The same probe natively prints the same lines but
// the child's host pid.
func TestUnixCredentials(t *testing.T) {
	bin := buildProbe(t, "creds", "-O1", "-Wall")
	ids := fmt.Sprintf("uid %d gid %d", os.Getuid(), os.Getgid())
	want := []string{
		"SO_PASSCRED reads 1\n",
		`write: 5 bytes "plain" controllen 32 creds pid self ` + ids + "\n",
		"stated: sendmsg 6 ok\n",
		`stated: 6 bytes "stated" controllen 32 creds pid self ` + ids + "\n",
		`stated+rights: 4 bytes "both" controllen 56 creds pid self ` + ids + " rights 1\n",
		"bad pid: sendmsg -1 ESRCH\n",
		`small buffer: 5 bytes "small" controllen 16 CTRUNC` + "\n",
		"child stated: sendmsg 1 ok\n", "child stating parent: sendmsg 1 ok\n", "child is 1001\n",
		`first writer: 1 bytes "P" controllen 32 creds pid self ` + ids + "\n",
		`second writer: 2 bytes "Cc" controllen 32 creds pid other ` + ids + " (1001)\n",
		`child stating parent: 1 bytes "p" controllen 32 creds pid self ` + ids + "\n",
		`no passcred: 4 bytes "abcd" controllen 0` + "\n",
		`dgram: 5 bytes "dgram" controllen 32 creds pid self ` + ids + "\n",
	}
	for _, pick := range []func([]sched.Action, int) sched.Action{first, last} {
		out := runTwice(t, "creds", Config{Nodes: []NodeSpec{{Path: bin}}}, pick)
		for _, s := range want {
			if !strings.Contains(out, s) {
				t.Errorf("output lacks %q:\n%s", s, out)
			}
		}
	}
}
