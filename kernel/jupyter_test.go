package kernel_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const python = "/usr/bin/python3" // Debian's, with jupyter_client and nbclient

// requireJupyter skips (or, with CI=true, fails) when Debian's Jupyter
// packages are missing.
func requireJupyter(t testing.TB) {
	t.Helper()
	out, err := exec.Command(python, "-c", "import jupyter_client, nbclient, nbformat, zmq").CombinedOutput()
	if err == nil {
		return
	}
	msg := "needs " + python + " with python3-jupyter-client, python3-nbclient (scripts/setup.sh): " + string(out)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// weftBuild is the weft binary the package's tests share: built once per
// test binary (buildAndInstall) instead of once per test (seven tests
// linked the same 80 MB binary again), removed by TestMain.
var weftBuild struct {
	sync.Mutex
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if weftBuild.dir != "" {
		os.RemoveAll(weftBuild.dir)
	}
	os.Exit(code)
}

// buildAndInstall builds weft (once per test binary) and installs its
// kernelspec into a temporary directory with `weft kernel install
// --prefix`; it returns the weft binary and the JUPYTER_PATH that finds
// the spec.
func buildAndInstall(t testing.TB, name string) (weft, jupyterPath string) {
	t.Helper()
	weftBuild.Lock()
	if bin := os.Getenv("WEFT_TEST_BIN"); bin != "" && weftBuild.bin == "" {
		// scripts/test.sh builds weft once for every package that runs
		// it, from this tree.
		weftBuild.bin = bin
	}
	if weftBuild.bin == "" && weftBuild.err == nil {
		var out []byte
		if weftBuild.dir, weftBuild.err = os.MkdirTemp("", "weft-kernel-test"); weftBuild.err == nil {
			weftBuild.bin = filepath.Join(weftBuild.dir, "weft")
			if out, weftBuild.err = exec.Command("go", "build", "-o", weftBuild.bin, "github.com/weft-mc/weft/cmd/weft").CombinedOutput(); weftBuild.err != nil {
				weftBuild.err = fmt.Errorf("go build: %v\n%s", weftBuild.err, out)
				weftBuild.bin = ""
			}
		}
	}
	weft, err := weftBuild.bin, weftBuild.err
	weftBuild.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := exec.Command(weft, "kernel", "install", "--prefix", dir, "--name", name).CombinedOutput(); err != nil {
		t.Fatalf("weft kernel install: %v\n%s", err, out)
	}
	return weft, filepath.Join(dir, "share", "jupyter")
}

// driver runs testdata/driver.py and decodes its observations into obs.
func driver(t *testing.T, jupyterPath string, obs any, args ...string) (stderr string) {
	t.Helper()
	cmd := exec.Command(python, append([]string{"testdata/driver.py"}, args...)...)
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+jupyterPath, "JUPYTER_PLATFORM_DIRS=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("driver %v: %v\nstderr:\n%s", args, err, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), obs); err != nil {
		t.Fatalf("driver output: %v\n%s", err, out.String())
	}
	return errb.String()
}

type msg struct {
	MsgType string         `json:"msg_type"`
	Content map[string]any `json:"content"`
}

type cell struct {
	Reply map[string]any `json:"reply"`
	IOPub []msg          `json:"iopub"`
}

// types returns the IOPub message types of the cell.
func (c cell) types() []string {
	var out []string
	for _, m := range c.IOPub {
		out = append(out, m.MsgType)
	}
	return out
}

// first returns the first IOPub message of type t.
func (c cell) first(t string) msg {
	for _, m := range c.IOPub {
		if m.MsgType == t {
			return m
		}
	}
	return msg{}
}

// data returns the MIME bundle of the first execute_result or display_data.
func (c cell) data() map[string]any {
	for _, m := range c.IOPub {
		if m.MsgType == "execute_result" || m.MsgType == "display_data" {
			d, _ := m.Content["data"].(map[string]any)
			return d
		}
	}
	return nil
}

type interruption struct {
	Reply   map[string]any `json:"reply"`
	Seconds float64        `json:"seconds"`
	After   cell           `json:"after"`
}

type protocolObs struct {
	KernelInfo       msg                       `json:"kernel_info"`
	Cells            []cell                    `json:"cells"`
	Silent           cell                      `json:"silent"`
	CountAfterSilent cell                      `json:"count_after_silent"`
	MIME             map[string]cell           `json:"mime"`
	Update           cell                      `json:"update"`
	Progress         cell                      `json:"progress"`
	CompletePkg      msg                       `json:"complete_pkg"`
	CompleteTop      msg                       `json:"complete_top"`
	Inspect          msg                       `json:"inspect"`
	IsComplete       map[string]map[string]any `json:"is_complete"`
	History          msg                       `json:"history"`
	CommInfo         msg                       `json:"comm_info"`
	Stdin            cell                      `json:"stdin"`
	BadSignature     struct {
		Answered bool `json:"answered"`
		After    cell `json:"after"`
	} `json:"bad_signature"`
	InterruptMessage interruption `json:"interrupt_message"`
	InterruptSignal  interruption `json:"interrupt_signal"`
	Generic          cell         `json:"generic"`
	AliveAfterPanic  cell         `json:"alive_after_goroutine_panic"`
	Shutdown         msg          `json:"shutdown"`
	ExitCode         *int         `json:"exit_code"`
}

func TestJupyterClient(t *testing.T) {
	requireJupyter(t)
	_, jp := buildAndInstall(t, "weft-test")
	t.Run("protocol", func(t *testing.T) { testProtocol(t, jp) })
	t.Run("nbclient", func(t *testing.T) { testNotebook(t, jp) })
}

func testProtocol(t *testing.T, jupyterPath string) {
	var o protocolObs
	stderr := driver(t, jupyterPath, &o, "protocol", "weft-test")
	li, _ := o.KernelInfo.Content["language_info"].(map[string]any)
	execSeq := []string{"status", "execute_input", "execute_result", "status"}
	checks := []struct {
		name string
		ok   bool
		got  any
	}{
		{"kernel_info", o.KernelInfo.Content["status"] == "ok" && o.KernelInfo.Content["protocol_version"] == "5.3" && li["name"] == "go", o.KernelInfo},
		{"assignment has no result", !slices.Contains(o.Cells[0].types(), "execute_result"), o.Cells[0]},
		{"state persists: x + 1 = 42", o.Cells[1].data()["text/plain"] == "42", o.Cells[1]},
		{"busy, execute_input, execute_result, idle", slices.Equal(o.Cells[1].types(), execSeq) && o.Cells[1].IOPub[0].Content["execution_state"] == "busy", o.Cells[1].types()},
		{"stream stdout", o.Cells[2].first("stream").Content["text"] == "hi 41\n" && o.Cells[2].first("stream").Content["name"] == "stdout", o.Cells[2]},
		{"panic is an error with traceback", o.Cells[3].Reply["status"] == "error" && o.Cells[3].first("error").Content["ename"] == "panic" && len(asList(o.Cells[3].first("error").Content["traceback"])) > 0, o.Cells[3]},
		{"compile error", o.Cells[4].Reply["status"] == "error" && o.Cells[4].first("error").Content["ename"] == "CompileError", o.Cells[4]},
		{"execution counts 1..5", counts(o.Cells) == "1,2,3,4,5", counts(o.Cells)},
		{"silent: no execute_input, count kept", !slices.Contains(o.Silent.types(), "execute_input") && o.Silent.Reply["execution_count"] == 5.0, o.Silent},
		{"count after silent is 6", o.CountAfterSilent.Reply["execution_count"] == 6.0, o.CountAfterSilent.Reply},
		{"update_display_data with the shown id", sameDisplayID(o.Update), o.Update.types()},
		{"progress updates live", strings.Count(strings.Join(o.Progress.types(), ","), "update_display_data") == 4, o.Progress.types()},
		{"complete package member", slices.Contains(asStrings(o.CompletePkg.Content["matches"]), "ToUpper") && o.CompletePkg.Content["cursor_start"] == 8.0, o.CompletePkg},
		{"complete top-level name", slices.Contains(asStrings(o.CompleteTop.Content["matches"]), "fmt"), o.CompleteTop},
		{"inspect", o.Inspect.Content["found"] == true && strings.Contains(text(o.Inspect.Content["data"]), "func(string) string"), o.Inspect},
		{"is_complete complete", o.IsComplete["x := 1"]["status"] == "complete", o.IsComplete},
		{"is_complete incomplete", o.IsComplete["func f() {"]["status"] == "incomplete" && o.IsComplete["y := x +"]["status"] == "incomplete", o.IsComplete},
		{"is_complete invalid", o.IsComplete["x := )"]["status"] == "invalid", o.IsComplete},
		{"history tail 3", len(asList(o.History.Content["history"])) == 3, o.History},
		{"comm_info", o.CommInfo.MsgType == "comm_info_reply" && o.CommInfo.Content["status"] == "ok", o.CommInfo},
		{"stdin input_request", o.Stdin.data()["text/plain"] == "typed", o.Stdin},
		{"bad signature ignored", !o.BadSignature.Answered && o.BadSignature.After.Reply["status"] == "error", o.BadSignature},
		{"bad signature logged", strings.Contains(stderr, "rejected message on shell: wire: bad signature"), stderr},
		{"interrupt_request stops the cell", o.InterruptMessage.Reply["ename"] == "Interrupted", o.InterruptMessage.Reply},
		{"kernel survives interrupt_request", o.InterruptMessage.After.data()["text/plain"] == "true", o.InterruptMessage.After},
		{"SIGINT stops the cell", o.InterruptSignal.Reply["ename"] == "Interrupted", o.InterruptSignal.Reply},
		{"kernel survives SIGINT", o.InterruptSignal.After.data()["text/plain"] == "true", o.InterruptSignal.After},
		{"generics", o.Generic.data()["text/plain"] == "2.5", o.Generic},
		{"kernel survives a panicking goroutine", o.AliveAfterPanic.data()["text/plain"] == "82", o.AliveAfterPanic},
		{"shutdown_reply", o.Shutdown.MsgType == "shutdown_reply" && o.Shutdown.Content["status"] == "ok", o.Shutdown},
		{"clean exit after shutdown", o.ExitCode != nil && *o.ExitCode == 0, o.ExitCode},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %+v", c.name, c.got)
		}
	}
	t.Logf("interrupt took %.3fs (message) and %.3fs (SIGINT)", o.InterruptMessage.Seconds, o.InterruptSignal.Seconds)
	testMIME(t, o.MIME)
}

func testMIME(t *testing.T, mime map[string]cell) {
	tests := []struct {
		name, mime, msgType string
	}{
		{"HTML", "text/html", "execute_result"},
		{"Markdown", "text/markdown", "execute_result"},
		{"SVG", "image/svg+xml", "execute_result"},
		{"PNG", "image/png", "execute_result"},
		{"JPEG", "image/jpeg", "execute_result"},
		{"JSON", "application/json", "execute_result"},
		{"Latex", "text/latex", "execute_result"},
		{"Math", "text/latex", "execute_result"},
		{"MIME", "text/csv", "execute_result"},
		{"Method", "text/html", "execute_result"},
		{"Display", "text/markdown", "display_data"},
	}
	for _, tc := range tests {
		c := mime[tc.name]
		m := c.first(tc.msgType)
		d, _ := m.Content["data"].(map[string]any)
		if d[tc.mime] == nil || d["text/plain"] == nil {
			t.Errorf("%s: %s lacks %s or text/plain: %+v", tc.name, tc.msgType, tc.mime, c.IOPub)
		}
	}
	if png := mime["PNG"].data()["image/png"]; png != "iVBORw==" { // base64 of 0x89 'P' 'N' 'G'
		t.Errorf("PNG bytes sent as %v, want base64 iVBORw==", png)
	}
	if m := mime["Math"].data()["text/latex"]; m != "$$x^2$$" {
		t.Errorf("Math = %v", m)
	}
}

func counts(cells []cell) string {
	var out []string
	for _, c := range cells {
		b, _ := json.Marshal(c.Reply["execution_count"])
		out = append(out, string(b))
	}
	return strings.Join(out, ",")
}

func sameDisplayID(c cell) bool {
	shown := c.first("display_data").Content["transient"]
	updated := c.first("update_display_data").Content["transient"]
	s, _ := shown.(map[string]any)
	u, _ := updated.(map[string]any)
	return s["display_id"] != nil && s["display_id"] == u["display_id"]
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asStrings(v any) []string {
	var out []string
	for _, x := range asList(v) {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func text(data any) string {
	d, _ := data.(map[string]any)
	s, _ := d["text/plain"].(string)
	return s
}

type notebookObs struct {
	Cells []struct {
		Source         string           `json:"source"`
		Outputs        []map[string]any `json:"outputs"`
		ExecutionCount int              `json:"execution_count"`
	} `json:"cells"`
}

func testNotebook(t *testing.T, jupyterPath string) {
	var o notebookObs
	driver(t, jupyterPath, &o, "notebook", "weft-test", "testdata/weft.ipynb")
	if len(o.Cells) != 7 {
		t.Fatalf("%d code cells, want 7", len(o.Cells))
	}
	tests := []struct {
		cell       int
		outputType string
		key        string // MIME type, or "text" for streams
		want       string
	}{
		{1, "stream", "text", "twice: 42\n"},
		{2, "execute_result", "text/html", "<b>weft</b>"},
		{3, "execute_result", "text/markdown", "**21**"},
		{4, "display_data", "text/plain", "seeds: 3/3 (100%)"}, // progress, after its live updates
		{4, "display_data", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`},
		// A weft package bound into the kernel: the Wilson 95% interval
		// of 3/100 is [0.0103, 0.0845] (Wilson 1927; also R binom.confint).
		{5, "stream", "text", "0.0103 0.0845 <nil>\n"},
		// Output written to file descriptor 1, not through fmt, reaches the cell.
		{6, "stream", "text", "straight to fd 1\n"},
	}
	for _, tc := range tests {
		c := o.Cells[tc.cell]
		found := false
		for _, out := range c.Outputs {
			if out["output_type"] != tc.outputType {
				continue
			}
			v := out[tc.key]
			if d, ok := out["data"].(map[string]any); ok && tc.key != "text" {
				v = d[tc.key]
			}
			found = found || v == tc.want
		}
		if !found {
			t.Errorf("cell %d (%q): no %s with %s = %q in %v", tc.cell, c.Source, tc.outputType, tc.key, tc.want, c.Outputs)
		}
		if c.ExecutionCount != tc.cell+1 {
			t.Errorf("cell %d: execution_count %d", tc.cell, c.ExecutionCount)
		}
	}
}
