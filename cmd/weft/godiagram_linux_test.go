//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoTargetDiagram: the sequence diagram of a Go target (goquorum: net
// TCP, a goroutine per connection) shows the client's requests and the
// nodes' messages over the whole run, and its timeline leaves out the Go
// runtime's thread switches unless --threads.
func TestGoTargetDiagram(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "goquorum"), "../../targets/goquorum").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src, err := os.ReadFile("../../targets/goquorum/goquorum.model")
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(dir, "goquorum.model")
	if err := os.WriteFile(mod, src, 0o644); err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(dir, "ds")
	if out, errOut, code := weft(t, "campaign", mod, "--seeds", "1", "--record", "all", "--out", ds); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	rec := filepath.Join(ds, "recordings", "default-0.weftlog")
	svg, errOut, code := weft(t, "trace", rec, "--svg", "-")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{">client<", ">client → n0 WRITE 5:", ">client → n0 WRITE 7:", ">n0 → n1 ", ">n0 → n2 "} {
		if !strings.Contains(svg, want) {
			t.Errorf("the diagram lacks %q", want)
		}
	}
	plain, _, _ := weft(t, "trace", rec)
	all, _, _ := weft(t, "trace", rec, "--threads")
	if strings.Contains(plain, " run n") || !strings.Contains(all, " run n") {
		t.Errorf("thread switches: %d lines without --threads, %d with", strings.Count(plain, " run n"), strings.Count(all, " run n"))
	}
}
