//go:build linux

package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/weft-mc/weft/analysis/charts"
)

// TestReportFromAnyDirectory: weft report and weft serve work once weft is
// installed anywhere: the binary is copied to a directory of its own and
// run from another, with no build/js above either and no WEFT_JS_DIR;
// the page written and the page served hold echarts, built into weft
// (scripts/setup.sh embeds it).
func TestReportFromAnyDirectory(t *testing.T) {
	dir, _ := smallDataset(t)
	bin := filepath.Join(t.TempDir(), "bin", "weft")
	b, err := os.ReadFile(weftBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, charts.JSDirEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(bin, "report", dir, "-o", "r.html")
	cmd.Dir, cmd.Env = work, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("weft report in %s: %v\n%s", work, err, out)
	}
	page, err := os.ReadFile(filepath.Join(work, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	version := `version="` + charts.EchartsVersion + `"`
	if !strings.Contains(string(page), version) {
		t.Errorf("the report does not hold echarts %s (%d bytes)", charts.EchartsVersion, len(page))
	}
	served := serveFrom(t, bin, work, env, dir)
	if !strings.Contains(served, version) || !strings.Contains(served, "run-table") {
		t.Errorf("weft serve's index does not hold echarts %s and the runs (%d bytes)", charts.EchartsVersion, len(served))
	}
}

// serveFrom runs bin serve DIR --port 0 in work with env, and returns its
// index page; the server is stopped with SIGINT and must exit 0.
func serveFrom(t *testing.T, bin, work string, env []string, dir string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", dir, "--port", "0")
	cmd.Dir, cmd.Env = work, env
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			t.Errorf("weft serve after SIGINT: %v\n%s", err, stderr.String())
		}
	}()
	line, err := bufio.NewReader(pipe).ReadString('\n')
	m := regexp.MustCompile(`^serving (http://127\.0\.0\.1:\d+)/ `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("weft serve in %s printed %q (%v)\n%s", work, line, err, stderr.String())
	}
	res, err := http.Get(m[1] + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /: %s, %v\n%s", res.Status, err, body)
	}
	return string(body)
}
