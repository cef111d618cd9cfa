//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/analysis/charts"
)

// TestReportFromAnyDirectory: weft report works from a directory with no
// build/js above it and with the binary elsewhere: echarts is built into
// weft (scripts/setup.sh embeds it).
func TestReportFromAnyDirectory(t *testing.T) {
	dir, _ := smallDataset(t)
	work := t.TempDir()
	cmd := exec.Command(weftBin, "report", dir, "-o", "r.html")
	cmd.Dir = work
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, charts.JSDirEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("weft report in %s: %v\n%s", work, err, out)
	}
	page, err := os.ReadFile(filepath.Join(work, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `version="`+charts.EchartsVersion+`"`) {
		t.Errorf("the report does not hold echarts %s (%d bytes)", charts.EchartsVersion, len(page))
	}
}
