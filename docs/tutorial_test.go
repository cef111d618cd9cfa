// Package docs holds weft's documents; its test runs the tutorial.
package docs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// step is one fenced block of docs/tutorial.md marked as a step:
// ```sh step [exit=N] [background], with the ```text block that follows it
// (if any) as what it must print.
type step struct {
	line       int // of the opening fence, 1-based
	script     string
	exit       int
	background bool     // a server: started, checked, then stopped with SIGINT
	want       []string // lines it must print, in order; … matches any text
}

// parseSteps extracts the steps of a Markdown document.
func parseSteps(doc string) ([]step, error) {
	lines := strings.Split(doc, "\n")
	var steps []step
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```sh step")
		if !ok {
			if strings.HasPrefix(lines[i], "```text") && (len(steps) == 0 || steps[len(steps)-1].want != nil || !followsStep(lines, i)) {
				return nil, fmt.Errorf("line %d: a ```text block that does not follow a step", i+1)
			}
			continue
		}
		s := step{line: i + 1}
		for _, f := range strings.Fields(info) {
			switch {
			case f == "background":
				s.background = true
			case strings.HasPrefix(f, "exit="):
				n, err := strconv.Atoi(strings.TrimPrefix(f, "exit="))
				if err != nil {
					return nil, fmt.Errorf("line %d: %q: %v", i+1, f, err)
				}
				s.exit = n
			default:
				return nil, fmt.Errorf("line %d: unknown step option %q (want exit=N or background)", i+1, f)
			}
		}
		body, end, err := fenced(lines, i)
		if err != nil {
			return nil, err
		}
		s.script, i = strings.Join(body, "\n"), end
		if j := nextNonBlank(lines, i+1); j < len(lines) && strings.HasPrefix(lines[j], "```text") {
			want, end, err := fenced(lines, j)
			if err != nil {
				return nil, err
			}
			for _, w := range want {
				if strings.TrimSpace(w) != "" {
					s.want = append(s.want, w)
				}
			}
			if s.want == nil {
				s.want = []string{}
			}
			i = end
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// followsStep reports whether the block opening at line i comes right
// after a closing fence (with only blank lines between).
func followsStep(lines []string, i int) bool {
	j := i - 1
	for j >= 0 && strings.TrimSpace(lines[j]) == "" {
		j--
	}
	return j >= 0 && lines[j] == "```"
}

func nextNonBlank(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	return i
}

// fenced returns the body of the block opening at line open and the index
// of its closing fence.
func fenced(lines []string, open int) ([]string, int, error) {
	for j := open + 1; j < len(lines); j++ {
		if lines[j] == "```" {
			return lines[open+1 : j], j, nil
		}
	}
	return nil, 0, fmt.Errorf("line %d: block never closed", open+1)
}

// pattern turns a shown line into a regexp of a whole output line: …
// matches any text, trailing spaces are ignored.
func pattern(line string) *regexp.Regexp {
	parts := strings.Split(strings.TrimRight(line, " "), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + " *$")
}

// matchInOrder returns how many of want match lines of out in order.
func matchInOrder(want []string, out []string) int {
	n := 0
	for _, line := range out {
		if n < len(want) && pattern(want[n]).MatchString(line) {
			n++
		}
	}
	return n
}

func TestParseSteps(t *testing.T) {
	doc := "intro\n```sh\nnot a step\n```\n```sh step\na\nb\n```\n\n```text\none\n\n… two\n```\n" +
		"```sh step exit=1\nc\n```\nprose\n```sh step background\nd\n```\n```text\n```\n"
	steps, err := parseSteps(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{line: 5, script: "a\nb", want: []string{"one", "… two"}},
		{line: 15, script: "c", exit: 1},
		{line: 19, script: "d", background: true, want: []string{}},
	}
	if fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", steps, want)
	}
	for _, bad := range []string{"```sh step exit=x\n```\n", "```sh step loud\n```\n", "```sh step\n", "text\n```text\nx\n```\n"} {
		if _, err := parseSteps(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	out := []string{"weft 1.0", "  took 3s", "done  "}
	for _, tc := range []struct {
		want []string
		n    int
	}{
		{[]string{"weft …", "done"}, 2},
		{[]string{"took …"}, 0}, // leading spaces count
		{[]string{"done", "weft …"}, 1},
	} {
		if n := matchInOrder(tc.want, out); n != tc.n {
			t.Errorf("%q: %d matched, want %d", tc.want, n, tc.n)
		}
	}
}

// TestTutorial runs every step of docs/tutorial.md in order, in one empty
// directory, with the weft built from this checkout first on PATH and
// WEFT_SRC naming the checkout: each must exit as the step says and print
// the lines the tutorial shows after it, so the tutorial cannot rot.
// README.md must link it. It needs what weft needs (seccomp user
// notification), Debian's redis-server and redis-sentinel, and Jupyter's
// nbconvert (the notebook step executes docs/sentinel.ipynb with weft's
// kernel over the tutorial's campaign): without them the steps fail, they
// are never skipped.
func TestTutorial(t *testing.T) {
	doc, err := os.ReadFile("tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("(docs/tutorial.md)")) {
		t.Error("README.md does not link docs/tutorial.md")
	}
	steps, err := parseSteps(string(doc))
	if err != nil {
		t.Fatalf("tutorial.md: %v", err)
	}
	if len(steps) < 10 {
		t.Fatalf("tutorial.md: %d steps, want the whole walk-through", len(steps))
	}
	src, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// scripts/test.sh builds weft once for every package that runs it
	// (WEFT_TEST_BIN, from this tree): the tutorial's PATH finds it by a
	// link. Alone, the test builds its own.
	if built := os.Getenv("WEFT_TEST_BIN"); built != "" {
		if err := os.Symlink(built, filepath.Join(bin, "weft")); err != nil {
			t.Fatal(err)
		}
	} else if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "weft"), "../cmd/weft").CombinedOutput(); err != nil {
		t.Fatalf("building weft: %v\n%s", err, out)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "WEFT_SRC="+src)
	dir := t.TempDir()
	for _, s := range steps {
		start := time.Now()
		ok := true
		if s.background {
			ok = runBackground(t, s, dir, env)
		} else {
			ok = runStep(t, s, dir, env)
		}
		if !ok {
			t.Fatalf("tutorial.md:%d failed; the steps after it depend on it", s.line)
		}
		t.Logf("tutorial.md:%d ran in %v", s.line, time.Since(start).Round(time.Millisecond))
	}
}

// shell is the command of a step: bash, stopping at the first failing
// command (as a reader pasting the block would notice it).
func shell(ctx context.Context, s step, dir string, env []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", s.script)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// runStep runs a step to its end and checks its exit status and output.
func runStep(t *testing.T, s step, dir string, env []string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a bound for a hang, not a measurement
	defer cancel()
	cmd := shell(ctx, s, dir, env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // one stream, in the order written
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Errorf("tutorial.md:%d: %v", s.line, err)
		return false
	}
	lines := strings.Split(out.String(), "\n")
	n := matchInOrder(s.want, lines)
	if code != s.exit || n < len(s.want) {
		missing := ""
		if n < len(s.want) {
			missing = fmt.Sprintf("; the tutorial shows %q, not printed (in order)", s.want[n])
		}
		t.Errorf("tutorial.md:%d: %s\nexit %d, the tutorial says %d%s; output:\n%s", s.line, s.script, code, s.exit, missing, out.String())
		return false
	}
	return true
}

// runBackground starts a server step, waits for the lines the tutorial
// shows, checks that the page it serves answers, stops it with SIGINT (as
// Ctrl-C would) and checks its exit status.
func runBackground(t *testing.T, s step, dir string, env []string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := shell(ctx, s, dir, env)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Errorf("tutorial.md:%d: %v", s.line, err)
		return false
	}
	waited := make(chan error, 1)
	go func() { err := cmd.Wait(); pw.Close(); waited <- err }()
	var seen []string
	sc := bufio.NewScanner(pr)
	for matchInOrder(s.want, seen) < len(s.want) && sc.Scan() {
		seen = append(seen, sc.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	ok := matchInOrder(s.want, seen) == len(s.want)
	if !ok {
		t.Errorf("tutorial.md:%d: %s\nthe tutorial shows %q; output:\n%s", s.line, s.script, s.want, strings.Join(seen, "\n"))
	} else if u := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(strings.Join(seen, "\n")); u != "" {
		resp, err := http.Get(u)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("tutorial.md:%d: GET %s: %v %v", s.line, u, err, resp)
			ok = false
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	err := <-waited
	code := 0
	if ee, isExit := err.(*exec.ExitError); isExit {
		code = ee.ExitCode()
	} else if err != nil {
		t.Errorf("tutorial.md:%d: %v", s.line, err)
		return false
	}
	if code != s.exit {
		t.Errorf("tutorial.md:%d: exit %d after SIGINT, the tutorial says %d", s.line, code, s.exit)
		ok = false
	}
	return ok
}
