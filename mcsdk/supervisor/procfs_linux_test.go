//go:build linux && amd64

package supervisor

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestProcfsProbe reads the /proc and /sys files real programs open, from
// a node and its forked child, in two runs: byte-identical, with the
// virtual values the table documents, and none of the host's pids,
// memory size, boot id or mount table; stat, readlink and chmod of /proc
// paths follow the same table.
func TestProcfsProbe(t *testing.T) {
	bin := buildProbe(t, "procfs", "-O1", "-Wall")
	var outs [2][]byte
	var hostPids []int
	var refused []string
	for i := range outs {
		w, err := Start(Config{Nodes: []NodeSpec{{Path: bin}}})
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; step < 1000 && w.Failure() == nil; step++ {
			hostPids = append(hostPids, w.LiveProcs(0)...)
			acts := w.Enabled()
			if len(acts) == 0 {
				break
			}
			if err := w.Apply(acts[0]); err != nil {
				break
			}
		}
		if f := w.Failure(); f != nil {
			w.Close()
			t.Fatalf("run %d: %v\n%s", i, f, w.Output(0))
		}
		outs[i] = w.Output(0)
		refused = nil
		for _, r := range w.Refusals() {
			refused = append(refused, r.What)
		}
		w.Close()
	}
	out := string(outs[0])
	// A refusal names the path as the node spelled it (never its host pid).
	if !slices.Contains(refused, "/proc/self/environ") {
		t.Errorf("refusals %q lack /proc/self/environ", refused)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("two runs differ:\n%s\n----\n%s", outs[0], outs[1])
	}
	for _, want := range []string{
		"### parent\n", "### child\n", "child 1001 exit 0\n",
		"== /proc/self/statm: 14 bytes\n0 0 0 0 0 0 0\n",
		"Rss:                   0 kB\n", "Private_Dirty:         0 kB\n", "[rollup]\n",
		"Pid:\t100\nPPid:\t1\n", "Pid:\t1001\nPPid:\t100\n", "VmRSS:\t       0 kB\n",
		"== /proc/self/stat: ", "== /proc/thread-self/stat: ",
		"== /proc/meminfo: ", "MemTotal:        4194304 kB\n",
		"00000000-0000-4000-8000-000000000000\n", "== /proc/sys/net/core/somaxconn: 5 bytes\n4096\n",
		"== /proc/sys/vm/overcommit_memory: 2 bytes\n0\n", "always [madvise] never\n", "2097152\n",
		"== /sys/devices/system/clocksource/clocksource0/current_clocksource: 4 bytes\ntsc\n",
		"== /proc/self/cgroup: 5 bytes\n0::/\n", "== /proc/self/mountinfo: 38 bytes\n1 0 0:1 / / rw,noatime - weft weft rw\n", "== /proc/self/io: errno 2\n",
		"== /proc/self/task: errno 2\n", "== /proc/1/status: errno 2\n", "== /proc/mounts: errno 2\n",
		"== /proc/version: errno 2\n", "== /sys/class/net: errno 2\n",
		"== /proc/100/status: ", "== /proc/1001/status: ", "== /proc/1001/cmdline: ",
		"stat /proc/1: -1 errno 2\n", "stat /proc/version: -1 errno 2\n", "stat own status: 0 errno 0\n",
		"readlink own exe: ", ", same as self 1\n", "readlink /proc/1/exe: -1 errno 2\n", "chmod /proc/self/io: -1 errno 13\n",
		"reopen a file outside for writing: -1 errno 13\n", "reopen /dev/null for writing: 0 errno 0\n",
		"open own task comm for writing: 0 errno 0\n", "write own task comm: 11 errno 0\n",
		"== /proc/thread-self/comm: 12 bytes\nprobe-named\n", "open own environ for writing: -1 errno 13\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, " 00:00 0 ") == false || regexp.MustCompile(` [0-9a-f]{2}:[0-9a-f]{2} [1-9][0-9]* `).MatchString(out) {
		t.Errorf("maps lines keep a host device or inode:\n%s", out)
	}
	// The probe's own byte counts ("== /proc/self/status: 817 bytes") are
	// not values the node read: a host pid of the same number (a fresh
	// machine's pids are small) would be a false alarm.
	// Nor are the sizes of its own mappings (smaps' "Size: 332 kB" once
	// met a node's host pid 332); /proc/meminfo's kB stay judged.
	counts := regexp.MustCompile(`(?m)^(\s*== [^:]+: )\d+ bytes$`)
	sizes := regexp.MustCompile(`(?m)^((?:Size|KernelPageSize|MMUPageSize|Rss|Pss|Pss_Anon|Pss_File|Pss_Shmem|Pss_Dirty|Shared_Clean|Shared_Dirty|Private_Clean|Private_Dirty|Referenced|Anonymous|Swap|SwapPss|Locked):\s+)\d+ kB$`)
	words := map[string]bool{}
	for _, w := range regexp.MustCompile(`[0-9a-f-]+`).FindAllString(sizes.ReplaceAllString(counts.ReplaceAllString(out, "${1}N bytes"), "${1}N kB")+strings.Join(refused, "\n"), -1) {
		words[w] = true
	}
	var host []string
	for _, p := range hostPids {
		host = append(host, strconv.Itoa(p))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		host = append(host, strings.TrimSpace(string(b)))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			host = append(host, f[1])
		}
	}
	for _, h := range host {
		if words[h] {
			t.Errorf("host value %s reaches the node:\n%s", h, out)
		}
	}
}
