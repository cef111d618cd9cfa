//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestShrinkRemovesOperationsOnRedis: weft shrink removes workload
// operations from a real run and says what remains. Seed 0 of
// targets/real/redis-sentinel/partition.model (Debian's redis-server and
// redis-sentinel; the primary partitioned away while the sentinels
// promote the replica) loses acknowledged writes: not linearizable with
// twelve operations. Its shrunk recording keeps at most six, still
// violates linearizable, and its trace invokes fewer operations than the
// original's.
func TestShrinkRemovesOperationsOnRedis(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	if out, errOut, code := weft(t, "campaign", "targets/real/redis-sentinel/partition.model", "--seeds", "1", "-o", ds); code != 0 || !strings.Contains(out, "linearizable=1") {
		t.Fatalf("campaign: exit %d, want seed 0 to violate linearizable:\n%s%s", code, out, errOut)
	}
	rec, shrunk := filepath.Join(ds, "recordings", "default-0.weftlog"), filepath.Join(dir, "shrunk.weftlog")
	out, errOut, code := weft(t, "shrink", rec, "-o", shrunk)
	if code != 0 {
		t.Fatalf("shrink: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"\n  kept 0 of client c0's 4 operations\n",
		"\n  remains: 0 crashes, 0 restarts, 1 of 1 partitions, at most 6 of 12 operations\n",
		"; still violates linearizable\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("shrink's output lacks %q:\n%s", want, out)
		}
	}
	invokes := func(rec string) int {
		out, errOut, code := weft(t, "trace", rec, "--kinds", "invoke")
		if code != 0 {
			t.Fatalf("trace %s: exit %d\n%s", rec, code, errOut)
		}
		return strings.Count(out, " invoke c")
	}
	if before, after := invokes(rec), invokes(shrunk); before != 12 || after == 0 || after > 6 {
		t.Errorf("operations invoked: %d before shrinking, %d after; want 12, then 1 to 6", before, after)
	}
}
