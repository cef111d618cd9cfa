//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/model"
)

// TestRunProgramFlags: a program run takes its duration in virtual time,
// a number of nodes and a base port (flags before or after the command),
// and --emit-model prints a model that loads and reruns the same run.
func TestRunProgramFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"duration ends a program that would sleep on",
			[]string{"run", "--seed", "1", "--duration", "2s", "--", "/bin/sleep", "100"},
			[]string{"holds after", " 2s of virtual time"}},
		{"nodes and port fill {id} and {port}",
			[]string{"run", "--port", "7400", "--nodes", "3", "--seed", "1", "--", "/bin/echo", "node {id} port {port}"},
			[]string{"n0| node 0 port 7400\n", "n1| node 1 port 7401\n", "n2| node 2 port 7402\n",
				"weft run --seed 1 --nodes 3 --port 7400 -- /bin/echo"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := weft(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestRunEmitModel: the emitted model parses, says what the flags said,
// and `weft run SAVED.model` gives the same node output and verdict.
func TestRunEmitModel(t *testing.T) {
	flags := []string{"--nodes", "2", "--port", "7500", "--duration", "3s", "--", "/bin/echo", "{id}:{port}"}
	src, errOut, code := weft(t, append([]string{"run", "--emit-model"}, flags...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, src, errOut)
	}
	path := filepath.Join(t.TempDir(), "echo.model")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatalf("the emitted model does not load: %v\n%s", err, src)
	}
	if m.Nodes != 2 || m.BasePort != 7500 || len(m.Invariants) == 0 {
		t.Errorf("emitted model: nodes %d, base_port %d, %d invariants; want 2, 7500, some\n%s", m.Nodes, m.BasePort, len(m.Invariants), src)
	}
	direct, _, code1 := weft(t, append([]string{"run", "--seed", "4"}, flags...)...)
	saved, errOut, code2 := weft(t, "run", path, "--seed", "4")
	if code1 != 0 || code2 != 0 {
		t.Fatalf("exits %d and %d\n%s%s%s", code1, code2, direct, saved, errOut)
	}
	body := func(s string) string { // without the line that names the command
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "weft run ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if body(direct) != body(saved) {
		t.Errorf("the saved model runs differently:\n%s---\n%s", direct, saved)
	}
	for _, w := range []string{"n0| 0:7500\n", "n1| 1:7501\n", " 3s of virtual time", "\n  invariants checked: placeholder\n"} {
		if !strings.Contains(saved, w) {
			t.Errorf("output lacks %q:\n%s", w, saved)
		}
	}
}

// TestRunReportsRefusals: every refusal is reported once in weft's own
// summary, with node, call, path or request, answer and rule: the seal
// probe's write outside its run directory and its ptrace; a program that
// writes outside it twice is reported once, with the count; and
// testdata/refuse.c's write outside, unsupported syscall (io_setup), ioctl
// request off the allow-list and unknown syscall number, each made twice,
// are reported once each, with the count.
func TestRunReportsRefusals(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "seal")
	if out, err := exec.Command("cc", "-O1", "-o", bin, "../../mcsdk/supervisor/testdata/seal.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	refuse := filepath.Join(dir, "refuse")
	if out, err := exec.Command("cc", "-O1", "-o", refuse, "testdata/refuse.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	// Outside the run directory but in the node's view (read-only): the
	// binary's directory, and a directory named in the arguments. A path
	// the view does not show is ENOENT, not a refusal.
	outside := filepath.Join(dir, "outside")
	shown := t.TempDir()
	twice := filepath.Join(shown, "twice")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"seal probe", []string{"run", "--seed", "1", "--", bin, "1", outside}, []string{
			"\n  n0 openat " + outside + ": EACCES; rule: a node writes only inside its run directory\n",
			"\n  n0 ptrace: EPERM (2 times); rule: acts on another process",
		}},
		{"a shell writing twice", []string{"run", "--seed", "1", "--", "/bin/sh", "-c", `echo a > "$0/twice"; echo b > "$0/twice"`, shown}, []string{
			"refused by weft (1 kinds):\n  n0 openat " + twice + ": EACCES (2 times); rule: a node writes only inside its run directory\n",
		}},
		{"write, syscall and ioctl", []string{"run", "--seed", "1", "--", refuse, shown}, []string{
			"refused by weft (4 kinds):\n",
			"\n  n0 openat " + filepath.Join(shown, "refused") + ": EACCES (2 times); rule: a node writes only inside its run directory\n",
			"\n  n0 io_setup: ENOSYS (2 times); rule: Linux AIO is not modelled",
			"\n  n0 ioctl request 0x7777: ENOTTY (2 times); rule: not on weft's ioctl allow-list\n",
			"\n  n0 syscall 499: ENOSYS (2 times); rule: not a syscall weft knows on this architecture\n",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, _ := weft(t, tc.args...)
			_, summary, ok := strings.Cut(out, "\nrefused by weft (")
			if !ok {
				t.Fatalf("no refusals in the summary:\n%s%s", out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("summary lacks %q:\n%s", w, out)
				}
			}
			for _, l := range strings.Split(summary, "\n") {
				if l != "" && strings.Count(summary, l+"\n") > 1 {
					t.Errorf("refusal %q reported more than once:\n%s", l, summary)
				}
			}
		})
	}
}

// TestRunNamesCheckedInvariants: a run's verdict names every invariant it
// checked, also when it holds.
func TestRunNamesCheckedInvariants(t *testing.T) {
	out, errOut, code := weft(t, "run", "targets/election/election.model", "--seed", "1", "--quiet")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	m, err := model.Load("../../targets/election/election.model")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, inv := range m.Invariants {
		names = append(names, inv.Name)
	}
	if want := "\n  invariants checked: " + strings.Join(names, ", ") + "\n"; len(names) == 0 || !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
