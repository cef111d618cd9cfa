//go:build linux

package kernel_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/kernel"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

// goneWithin bounds the waits for the campaign to start. The kernel's
// own bounds are issueBound.
const goneWithin = 60 * time.Second

// issueBound is issue 41's bound: the kernel and every process under it
// gone, or an interrupted cell ended, within 10 s. The kernel itself needs
// about a second (its parent poll) or less (a signal), then up to
// interruptGrace (2 s) for the cell to return and the time to kill its
// processes; measured 0.04–0.8 s on a 2-core machine at load 28. The test
// polls and reports how long it took, and fails past the bound.
const issueBound = 10 * time.Second

// TestKernelLifecycle drives the real weft binary with a real Jupyter
// client (testdata/lifecycle.py, jupyter_client's KernelManager) while a
// Chord campaign of 3 × 1000 runs is under way in a cell:
//   - client SIGKILL: the client dies; the kernel and every process under
//     it must be gone;
//   - kernel SIGTERM, SIGHUP, SIGKILL, and shutdown_request: likewise, with
//     the client still alive;
//   - parent thread exits: the kernel's parent-death signal comes while its
//     parent lives; the kernel carries on;
//   - interrupt campaign: Jupyter's interrupt (interrupt_request: the
//     kernelspec's interrupt_mode is "message") ends the cell with an
//     Interrupted error, the campaign returns its partial summary into the
//     session and keeps its completed runs, and the next cell sees earlier
//     variables;
//   - interrupt check: likewise for an exhaustive check of the election
//     model given CheckOptions{Context: display.Context()}.
//
// The test process makes itself a child subreaper, so every descendant of
// the client, the kernel and the node processes stays its descendant
// whatever dies first: "none survives" is checked on the whole tree under
// the test, read from /proc, but for what was there before the client
// started (kernelTree).
func TestKernelLifecycle(t *testing.T) {
	requireJupyter(t)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatalf("PR_SET_CHILD_SUBREAPER: %v", err)
	}
	_, jp := buildAndInstall(t, "weft-lifecycle")
	model, err := filepath.Abs("../targets/chord/chord.model")
	if err != nil {
		t.Fatal(err)
	}
	signal := func(sig syscall.Signal) func(d *lifecycleDriver) error {
		return func(d *lifecycleDriver) error { return syscall.Kill(d.kernel, sig) }
	}
	ends := []struct {
		name string
		mode string                         // the driver's
		end  func(d *lifecycleDriver) error // ends the kernel
	}{
		{"client SIGKILL", "hold", func(d *lifecycleDriver) error {
			err := d.cmd.Process.Kill()
			d.cmd.Wait()
			return err
		}},
		{"kernel SIGTERM", "hold", signal(syscall.SIGTERM)},
		{"kernel SIGHUP", "hold", signal(syscall.SIGHUP)},
		// Nothing in the kernel runs: node processes die of their parent
		// death signal (SIGKILL, asked for from the launcher thread, which
		// never exits) and of PTRACE_O_EXITKILL (their tracer died); the
		// Go checks helper exits when its request pipe closes.
		{"kernel SIGKILL", "hold", signal(syscall.SIGKILL)},
		{"shutdown_request", "shutdown", func(d *lifecycleDriver) error {
			_, err := d.stdin.Write([]byte("go\n"))
			return err
		}},
	}
	for _, tc := range ends {
		t.Run(tc.name, func(t *testing.T) {
			d := startLifecycle(t, jp, tc.mode, model)
			defer func() { d.cmd.Process.Kill(); d.cmd.Wait() }()
			d.awaitNodes(t)
			if err := tc.end(d); err != nil {
				t.Fatal(err)
			}
			keep := d.cmd.Process.Pid
			if d.cmd.ProcessState != nil {
				keep = 0 // the client is gone too
			}
			d.awaitGone(t, keep)
		})
	}
	t.Run("parent thread exits", func(t *testing.T) {
		// Linux sends the parent-death signal when the THREAD that
		// started the kernel exits: the kernel must check its parent and
		// carry on.
		d := startLifecycle(t, jp, "thread", model)
		var o struct {
			Alive bool `json:"alive"`
		}
		d.next(t, &o)
		if err := d.cmd.Wait(); err != nil {
			t.Fatalf("driver: %v\nstderr:\n%s", err, d.stderr)
		}
		if !o.Alive || !strings.Contains(d.stderr.String(), "parent-death signal, but parent process") {
			t.Fatalf("alive %v after its parent's starting thread exited; stderr:\n%s", o.Alive, d.stderr)
		}
	})
	t.Run("interrupt campaign", func(t *testing.T) { testInterrupt(t, jp, "campaign", model) })
	election, err := filepath.Abs("../targets/election/election.model")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("interrupt check", func(t *testing.T) { testInterrupt(t, jp, "check", election) })
}

// lifecycleDriver is a running testdata/lifecycle.py.
type lifecycleDriver struct {
	cmd    *exec.Cmd
	stdin  io.Writer
	lines  *bufio.Scanner
	stderr *bytes.Buffer
	kernel int    // the kernel's pid
	out    string // the campaign's dataset
	// before are the processes under the test before the driver started
	// (node templates of the in-process campaigns of other tests): they
	// and their children are not the kernel's.
	before []int
}

// startLifecycle starts the driver and waits until the campaign in its
// cell has made progress.
func startLifecycle(t *testing.T, jupyterPath, mode, model string, work ...string) *lifecycleDriver {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ds")
	cmd := exec.Command(python, append([]string{"testdata/lifecycle.py", mode, "weft-lifecycle", model, out}, work...)...)
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+jupyterPath, "JUPYTER_PLATFORM_DIRS=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &lifecycleDriver{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout), stderr: &bytes.Buffer{}, out: out,
		before: kernel.Descendants(os.Getpid())}
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var first struct {
		KernelPID int `json:"kernel_pid"`
	}
	d.next(t, &first)
	d.kernel = first.KernelPID
	return d
}

// next decodes the driver's next line of output into v.
func (d *lifecycleDriver) next(t *testing.T, v any) {
	t.Helper()
	if !d.lines.Scan() {
		d.cmd.Process.Kill()
		d.cmd.Wait()
		t.Fatalf("driver ended without output: %v\nstderr:\n%s", d.lines.Err(), d.stderr)
	}
	if err := json.Unmarshal(d.lines.Bytes(), v); err != nil {
		t.Fatalf("driver output %q: %v", d.lines.Text(), err)
	}
}

// awaitNodes waits until the kernel has child processes (the campaign's
// node processes), so that what follows tears down a running campaign.
func (d *lifecycleDriver) awaitNodes(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(goneWithin); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if n := len(kernel.Descendants(d.kernel)); n > 0 {
			t.Logf("kernel %d runs the campaign with %d processes under it", d.kernel, n)
			return
		}
	}
	t.Fatalf("the kernel started no process within %v\nstderr:\n%s", goneWithin, d.stderr)
}

// awaitGone waits until no process is left under the test but keep (the
// client, when it lives on), and reaps the orphans it inherited.
func (d *lifecycleDriver) awaitGone(t *testing.T, keep int) {
	t.Helper()
	start := time.Now()
	var left []int
	for time.Since(start) < issueBound {
		left = d.kernelTree(keep)
		if len(left) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	reapOrphans(t)
	if len(left) > 0 {
		t.Fatalf("%d processes still alive %v after the kernel was told to go: %s\nstderr:\n%s",
			len(left), issueBound, describe(left), d.stderr)
	}
	t.Logf("the kernel and all its processes were gone %.2fs after", time.Since(start).Seconds())
}

// kernelTree returns the processes under the test but keep that the
// driver started: as the test is a subreaper, every one the client, the
// kernel or their descendants started, alive, whatever died since.
func (d *lifecycleDriver) kernelTree(keep int) []int {
	other := map[int]bool{keep: true}
	for _, p := range d.before {
		other[p] = true
		for _, c := range kernel.Descendants(p) {
			other[c] = true
		}
	}
	return slices.DeleteFunc(kernel.Descendants(os.Getpid()), func(p int) bool { return other[p] })
}

// reapOrphans collects the zombies of orphans the test process inherited
// as a subreaper.
func reapOrphans(t *testing.T) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		if len(f) > 1 && f[0] == "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// describe names processes by pid and command line.
func describe(pids []int) string {
	var out []string
	for _, p := range pids {
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
		out = append(out, strconv.Itoa(p)+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return strings.Join(out, "; ")
}

type interruptObs struct {
	Reply      map[string]any `json:"reply"`
	Seconds    float64        `json:"seconds"`
	After      map[string]any `json:"after"`
	AfterValue string         `json:"after_value"`
}

// testInterrupt interrupts work (campaign or check) running in a cell.
func testInterrupt(t *testing.T, jupyterPath, work, model string) {
	d := startLifecycle(t, jupyterPath, "interrupt", model, work)
	var o interruptObs
	d.next(t, &o)
	if err := d.cmd.Wait(); err != nil {
		t.Fatalf("driver: %v\nstderr:\n%s", err, d.stderr)
	}
	evalue, _ := o.Reply["evalue"].(string)
	if o.Reply["status"] != "error" || o.Reply["ename"] != "Interrupted" || !strings.HasPrefix(evalue, "interrupted: ") {
		t.Fatalf("interrupted cell's reply %v, want an Interrupted error", o.Reply)
	}
	t.Logf("the cell ended %.2fs after the interrupt: %s", o.Seconds, evalue)
	if o.Seconds > issueBound.Seconds() {
		t.Fatalf("the interrupted cell ended %.2fs after the interrupt, past %v", o.Seconds, issueBound)
	}
	// The next cell sees a variable of the first, and the partial result
	// the interrupted work returned into the session.
	if o.After["status"] != "ok" || o.AfterValue != "42 true" {
		t.Fatalf("next cell: reply %v, value %s; want 42 and an interrupted %s's result", o.After, o.AfterValue, work)
	}
	if work != "campaign" {
		return
	}
	rows, err := dataset.ReadRows(d.out)
	if err != nil || len(rows) == 0 || len(rows) >= 3000 {
		t.Fatalf("the interrupted campaign kept %d of 3000 runs (%v): want some, not all", len(rows), err)
	}
	t.Logf("the campaign kept %d completed runs of 3000", len(rows))
}
