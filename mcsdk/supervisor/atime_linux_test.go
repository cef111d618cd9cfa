//go:build linux && amd64

package supervisor

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestAccessTimes runs testdata/atime.c, which reads, writes, maps,
// lists and executes files a virtual second apart and sets their times
// every way Linux offers, and checks each time it prints against the
// noatime rule (sys_stat.go, virtualTimes): an access time is the
// virtual time the file was made or what the node set, never moved by a
// read, a write, getdents, mmap or exec (on this host's relatime mount
// each of those moves the host's); statvfs and /proc/self/mountinfo say
// noatime. Two runs print the same bytes.
func TestAccessTimes(t *testing.T) {
	bin := buildProbe(t, "atime", "-O1", "-Wall")
	var outs [2][]byte
	for i := range outs {
		out, w := runAlone(t, bin, 1)
		w.Close()
		outs[i] = out
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("two runs differ:\n%s\n---\n%s", outs[0], outs[1])
	}
	at := func(s int64) string { return fmt.Sprintf("%d.000000000", Epoch/1e9+s) }
	times := func(a, m, c string) string { return "a " + a + " m " + m + " c " + c }
	want := []string{
		"made: f " + times(at(0), at(0), at(0)),
		"made: d " + times(at(0), at(0), at(0)),
		"read: f " + times(at(0), at(0), at(0)),
		"written: f " + times(at(0), at(2), at(2)),
		"mapped: H",
		"mapped: f " + times(at(0), at(2), at(2)),
		"listed: 3 entries",
		"listed: d " + times(at(0), at(4), at(4)),
		"utimensat 100, 200.000000005: f " + times("100.000000000", "200.000000005", at(5)),
		"read after utimensat: f " + times("100.000000000", "200.000000005", at(5)),
		"utimensat UTIME_NOW, UTIME_OMIT: f " + times(at(6), "200.000000005", at(6)),
		"utimensat UTIME_OMIT, 400: f " + times(at(6), "400.000000000", at(7)),
		"futimens NULL: f " + times(at(8), at(8), at(8)),
		"utimes 500.000003, 600.000004: f " + times("500.000003000", "600.000004000", at(9)),
		"utime 700, 800: f " + times("700.000000000", "800.000000000", at(10)),
		"utimensat UTIME_OMIT, UTIME_OMIT: f " + times("700.000000000", "800.000000000", at(10)),
		"copied: x " + times(at(12), at(12), at(12)),
		"executed: status 0",
		"executed: x " + times(at(12), at(12), at(12)),
		"made later: g " + times(at(14), at(14), at(14)),
		"read later: g " + times(at(14), at(14), at(14)),
		"statvfs: noatime 1 relatime 0",
		"mountinfo: 1 0 0:1 / / rw,noatime - weft weft rw",
	}
	got := strings.Split(strings.TrimSuffix(string(outs[0]), "\n"), "\n")
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d: %q, want %q", i+1, g, w)
		}
	}
}
