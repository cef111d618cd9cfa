//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

var weftBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weft-cli-test")
	if err != nil {
		panic(err)
	}
	weftBin = filepath.Join(dir, "weft")
	// scripts/test.sh builds weft once for every package that runs it
	// (WEFT_TEST_BIN, from this tree); alone, the test builds its own.
	if bin := os.Getenv("WEFT_TEST_BIN"); bin != "" {
		weftBin = bin
	} else if out, err := exec.Command("go", "build", "-o", weftBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building weft: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// weft runs the built CLI from the repository root.
func weft(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(weftBin, args...)
	cmd.Dir = "../.."
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// withTemp replaces "{tmp}" in args by a fresh temporary file path.
func withTemp(t *testing.T, args []string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "{tmp}" {
			out[i] = filepath.Join(t.TempDir(), "saved.weftpath")
		}
	}
	return out
}

// TestSaveToDeviceKeepsDevice: --save /dev/null must not replace the
// device with a regular file.
func TestSaveToDeviceKeepsDevice(t *testing.T) {
	weft(t, "check", "--variant", "bug", "targets/repl/repl.model", "--save", os.DevNull)
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, st.Mode(), err)
	}
}

var timing = regexp.MustCompile(`in [0-9.]+s \([0-9]+ states/s\)`)

func TestCheckRepl(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", "targets/repl/repl.model"}, 0, "agree_on_ack holds over 5 distinct states"},
		{[]string{"check", "--variant", "bug", "targets/repl/repl.model", "--save", "{tmp}"}, 1, "node[0].stored=5, node[1].stored=0, replies=[{src: 0, val: 5}]"},
		{[]string{"check", "targets/repl/repl.model", "--variant=bug", "--save", "{tmp}"}, 1, "violated: agree_on_ack"},
		{[]string{"check", "--variant", "fixed", "targets/quorum/quorum.model", "--depth", "6"}, 0, "acked_on_majority holds over"},
		{[]string{"check", "--variant", "nosuch", "targets/repl/repl.model"}, 2, ""},
		{[]string{"check"}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := weft(t, withTemp(t, tc.args)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("stdout lacks %q:\n%s", tc.want, out)
			}
			if tc.code == 2 && errOut == "" {
				t.Errorf("a usage error must explain itself on stderr")
			}
		})
	}
}

// TestCheckOutputIsIdentical: ten runs print the same report, byte for
// byte, apart from the wall-clock timing.
func TestCheckOutputIsIdentical(t *testing.T) {
	save := filepath.Join(t.TempDir(), "p.weftpath")
	for _, variant := range []string{"correct", "bug"} {
		var first string
		for i := 0; i < 10; i++ {
			out, _, _ := weft(t, "check", "--variant", variant, "targets/repl/repl.model", "--save", save)
			out = timing.ReplaceAllString(out, "in Xs")
			if i == 0 {
				first = out
			} else if out != first {
				t.Fatalf("%s run %d differs:\n%s\nfirst:\n%s", variant, i, out, first)
			}
		}
	}
}

func TestMalformedModelNamesPosition(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.model")
	os.WriteFile(bad, []byte("[target]\nnodes = 2\n[invariants]\nx = \"all r in replies : r.val in\"\n"), 0o644)
	_, errOut, code := weft(t, "check", bad)
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !regexp.MustCompile(regexp.QuoteMeta(bad) + `:4:\d+: `).MatchString(errOut) {
		t.Errorf("stderr %q does not name %s:4:col", errOut, bad)
	}
}

func TestHelpEverywhere(t *testing.T) {
	out, _, code := weft(t, "--help")
	if code != 0 || !strings.Contains(out, "check") {
		t.Fatalf("weft --help: exit %d\n%s", code, out)
	}
	for name := range commands {
		out, _, code := weft(t, name, "--help")
		if code != 0 || !strings.Contains(out, "usage: weft "+name) {
			t.Errorf("weft %s --help: exit %d\n%s", name, code, out)
		}
	}
	_, errOut, code := weft(t, "frobnicate")
	if code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errOut)
	}
}

// TestNoOrphans kills weft mid-check (SIGKILL, SIGTERM, SIGINT) and
// asserts that none of its node processes survives.
func TestNoOrphans(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(weftBin, "check", "--variant", "fixed", "targets/quorum/quorum.model", "--depth", "30")
			cmd.Dir = "../.."
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var nodes []int
			deadline := time.Now().Add(20 * time.Second)
			for len(nodes) < 2 && time.Now().Before(deadline) {
				nodes = descendants(cmd.Process.Pid)
				time.Sleep(5 * time.Millisecond)
			}
			if len(nodes) < 2 {
				cmd.Process.Kill()
				t.Fatalf("never saw weft's node processes")
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			time.Sleep(100 * time.Millisecond)
			for _, pid := range nodes {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("node process %d survived weft's %v", pid, sig)
				}
			}
		})
	}
}

// descendants lists the live children of pid.
func descendants(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var child int
		if _, err := fmt.Sscan(e.Name(), &child); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		var ppid int
		if len(f) > 1 {
			fmt.Sscan(f[1], &ppid)
		}
		if ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// badInputFiles writes the models and recordings of TestBadInputIsAClearError
// into dir: "{dir}" in a case's arguments is replaced by dir.
func badInputFiles(t *testing.T, dir string) {
	t.Helper()
	const target = "[target]\nnodes = 2\nbinary = \"/bin/true\"\n"
	models := map[string]string{
		"noinv.model":    target,
		"required.model": target + "[invariants]\nup = \"alive(0)\"\n[campaign]\nseeds = 3\nrequired = [\"up\", \"donw\"]\n",
		"crashes.model":  target + "[invariants]\nup = \"alive(0)\"\n[faults]\ncrashes = -1\n",
		"good.model":     target + "[invariants]\nup = \"true\"\n",
	}
	for name, src := range models {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := model.Load(filepath.Join(dir, "good.model"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, choices ...string) []byte {
		res := &mcsdk.RunResult{Variant: "default", FirstViolationStep: -1, Verdict: mcsdk.Violated}
		for i, c := range choices {
			res.Choices = append(res.Choices, mcsdk.Choice{T: int64(i) * 1000, Action: c})
		}
		b, err := res.Recording(m).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return b
	}
	write("ghost.weftlog", "timer 0", "crash 5")
	good := write("good.weftlog", "timer 0")
	bad := append([]byte(nil), good...)
	bad[len(bad)/2] ^= 0x40
	os.WriteFile(filepath.Join(dir, "flipped.weftlog"), bad, 0o644)
	var raw bytes.Buffer
	rec, _ := weftlog.Decode(good)
	rec.AddEvent(weftlog.Event{Step: 1, Kind: "crash", Node: 9, Peer: -1})
	rec.Encode(&raw)
	b, _ := weftlog.Parse(raw.Bytes()) // refused: build the bytes by hand
	if b != nil {
		t.Fatal("weftlog accepted an event of node 9 in a 2-node recording")
	}
	enc, _ := zstd.NewWriter(nil)
	os.WriteFile(filepath.Join(dir, "node9.weftlog"), enc.EncodeAll(raw.Bytes(), nil), 0o644)
}

// TestBadInputIsAClearError: bad flags, models and recordings end in exit
// 2 with a message that says what is wrong (and where, for a model), never
// a panic or a silent default.
func TestBadInputIsAClearError(t *testing.T) {
	dir := t.TempDir()
	badInputFiles(t, dir)
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"run", "targets/repl/repl.model"}, "--seed is required"},
		{[]string{"run", "--", "/bin/true"}, "--seed is required"},
		{[]string{"run", "--seed", "1", "targets/repl/repl.model", "extra"}, "want one MODEL, got 2 arguments"},
		{[]string{"check", "--depth", "-1", "targets/repl/repl.model"}, `invalid value "-1" for flag -depth: want 1 to 1048576 (leave it out for the model's environment.depth)`},
		{[]string{"check", "targets/repl/repl.model", "--depth=0"}, `invalid value "0" for flag -depth: want 1 to 1048576`},
		{[]string{"check", "--depth", "many", "targets/repl/repl.model"}, `invalid value "many" for flag -depth: not an integer`},
		{[]string{"campaign", "-j", "0", "targets/repl/repl.model"}, `invalid value "0" for flag -j: want 1 to 4096 (leave it out for 1.5 per core)`},
		{[]string{"campaign", "targets/repl/repl.model", "-j", "-4"}, `invalid value "-4" for flag -j: want 1 to 4096`},
		{[]string{"campaign", "--seeds", "-5", "targets/repl/repl.model"}, `invalid value "-5" for flag -seeds: want 1 to 10000000`},
		{[]string{"campaign", "--seeds", "100000000000", "targets/repl/repl.model"}, `invalid value "100000000000" for flag -seeds: want 1 to 10000000`},
		{[]string{"campaign", "-j", "99999999999999999999", "targets/repl/repl.model"}, `invalid value "99999999999999999999" for flag -j: want 1 to 4096`},
		{[]string{"run", "--seed", "-1", "targets/repl/repl.model"}, `invalid value "-1" for flag -seed: want an integer from 0 to 18446744073709551615`},
		{[]string{"campaign", "--first-seed", "-1", "targets/repl/repl.model"}, `invalid value "-1" for flag -first-seed: want 0 to 4611686018427387904`},
		{[]string{"check", "{dir}/noinv.model"}, "{dir}/noinv.model:1:1: the model has no invariants: there is nothing to check"},
		{[]string{"run", "--seed", "1", "{dir}/noinv.model"}, "{dir}/noinv.model:1:1: the model has no invariants"},
		{[]string{"campaign", "--out", "{dir}/ds", "{dir}/noinv.model"}, "{dir}/noinv.model:1:1: the model has no invariants"},
		{[]string{"campaign", "--out", "{dir}/ds", "{dir}/required.model"}, `{dir}/required.model:8:19: campaign.required: no invariant "donw" (the model's invariants: up)`},
		{[]string{"run", "--seed", "1", "{dir}/required.model"}, `{dir}/required.model:8:19: campaign.required: no invariant "donw"`},
		{[]string{"run", "--seed", "1", "{dir}/crashes.model"}, "{dir}/crashes.model:7:11: faults.crashes = -1: want 0 or more"},
		{[]string{"check", "{dir}/crashes.model"}, "{dir}/crashes.model:7:11: faults.crashes = -1: want 0 or more"},
		{[]string{"replay", "{dir}/ghost.weftlog"}, `{dir}/ghost.weftlog: the recording's choice 2 ("crash 5" at 1000ns): no node 5: the model has nodes 0..1`},
		{[]string{"shrink", "{dir}/ghost.weftlog"}, `the recording's choice 2 ("crash 5" at 1000ns): no node 5`},
		{[]string{"shrink", "{dir}/flipped.weftlog"}, "{dir}/flipped.weftlog: not a weft recording"},
		{[]string{"replay", "{dir}/flipped.weftlog"}, "{dir}/flipped.weftlog: not a weft recording"},
		{[]string{"trace", "{dir}/node9.weftlog"}, "{dir}/node9.weftlog: line 4: event names node 9; the recording has nodes 0..1"},
		{[]string{"shrink", "{dir}/node9.weftlog"}, "line 4: event names node 9"},
		{[]string{"trace", "--nodes", "2", "{dir}/good.weftlog"}, `--nodes: "2" is not a node of the recording (0..1)`},
	}
	for _, tc := range tests {
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			args[i] = strings.ReplaceAll(a, "{dir}", dir)
		}
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := weft(t, args...)
			want := strings.ReplaceAll(tc.want, "{dir}", dir)
			if code != 2 || !strings.Contains(errOut, want) || strings.Contains(errOut, "panic") {
				t.Fatalf("exit %d, want 2 with %q on stderr\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
			}
		})
	}
}

// TestRunStopsOnSignal: weft run of a long model (and shrink and replay of
// a recording of it), sent SIGTERM, or SIGINT while running as a shell's
// background job (which starts it with SIGINT ignored), stops promptly
// with exit 130 and leaves no node process behind.
func TestRunStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.model")
	// One node that never parks: the run lasts until the 10 s watchdog.
	os.WriteFile(long, []byte("[target]\nnodes = 1\nbinary = \"/bin/sh\"\nargs = [\"-c\", \"while :; do :; done\"]\n[invariants]\nup = \"alive(0)\"\n"), 0o644)
	m, err := model.Load(long)
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "long.weftlog") // a violation to shrink, a run to replay
	res := &mcsdk.RunResult{Variant: "default", Seed: 1, Verdict: mcsdk.Violated, Violated: []string{"up"}}
	if err := res.Recording(m).WriteFile(rec); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		sig        syscall.Signal
		background bool
	}{
		{"SIGTERM", []string{"run", "--seed", "1", long}, syscall.SIGTERM, false},
		{"SIGINT", []string{"run", "--seed", "1", long}, syscall.SIGINT, false},
		{"SIGINT to a background job", []string{"run", "--seed", "1", long}, syscall.SIGINT, true},
		{"SIGTERM to a background job", []string{"run", "--seed", "1", long}, syscall.SIGTERM, true},
		{"shrink SIGINT", []string{"shrink", rec, "-o", filepath.Join(dir, "shrunk.weftlog")}, syscall.SIGINT, false},
		{"replay SIGTERM to a background job", []string{"replay", rec}, syscall.SIGTERM, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cmd *exec.Cmd
			if tc.background { // sh starts an asynchronous command with SIGINT ignored
				cmd = exec.Command("/bin/sh", append([]string{"-c", `"$0" "$@" & echo $!; wait $!; echo "exit $?"`, weftBin}, tc.args...)...)
			} else {
				cmd = exec.Command(weftBin, tc.args...)
			}
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			stdout, _ := cmd.StdoutPipe()
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := make(chan string, 100)
			go func() {
				b := make([]byte, 4096)
				var acc string
				for {
					n, err := stdout.Read(b)
					acc += string(b[:n])
					for {
						i := strings.IndexByte(acc, '\n')
						if i < 0 {
							break
						}
						lines <- acc[:i]
						acc = acc[i+1:]
					}
					if err != nil {
						close(lines)
						return
					}
				}
			}()
			pid := cmd.Process.Pid
			if tc.background {
				fmt.Sscan(<-lines, &pid)
			}
			var nodes []int
			for len(nodes) < 1 && time.Since(start) < 5*time.Second {
				nodes = descendants(pid)
				time.Sleep(5 * time.Millisecond)
			}
			if len(nodes) < 1 {
				cmd.Process.Kill()
				t.Fatalf("never saw weft's node process")
			}
			time.Sleep(200 * time.Millisecond) // the node is running its loop
			sent := time.Now()
			syscall.Kill(pid, tc.sig)
			var rest []string
			timeout := time.After(8 * time.Second)
		collect:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						break collect
					}
					rest = append(rest, l)
				case <-timeout: // today's weft ignores SIGINT in the background
					syscall.Kill(pid, syscall.SIGKILL)
					cmd.Process.Kill()
					for _, n := range nodes {
						syscall.Kill(n, syscall.SIGKILL)
					}
					cmd.Wait()
					t.Fatalf("weft still runs 8 s after %v; stderr:\n%s", tc.sig, errOut.String())
				}
			}
			err := cmd.Wait()
			took := time.Since(sent)
			code := cmd.ProcessState.ExitCode()
			if tc.background {
				code = -1
				for _, l := range rest {
					fmt.Sscanf(l, "exit %d", &code)
				}
			} else if err != nil && code < 0 {
				t.Logf("wait: %v", err)
			}
			if code != 130 || took > 5*time.Second {
				t.Errorf("exit %d after %s, want 130 within 5s; stderr:\n%s", code, took, errOut.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "shrunk.weftlog")); err == nil {
				t.Errorf("an interrupted shrink wrote its output")
			}
			if !strings.Contains(errOut.String(), "interrupted by "+unix.SignalName(tc.sig)) {
				t.Errorf("stderr does not say it was interrupted:\n%s", errOut.String())
			}
			time.Sleep(100 * time.Millisecond)
			for _, n := range nodes {
				if alive(n) {
					syscall.Kill(n, syscall.SIGKILL)
					t.Errorf("node process %d outlived weft's %v", n, tc.sig)
				}
			}
		})
	}
}
