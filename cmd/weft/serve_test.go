package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// TestServe serves a small dataset whose one run has a (real) recording:
// the index lists every run, the recorded run's page shows its sequence
// diagram, its SVG is served alone, and the server listens on 127.0.0.1.
func TestServe(t *testing.T) {
	dir, _ := smallDataset(t)
	rec, err := os.ReadFile("../../report/testdata/election-bug-15.weftlog")
	if err != nil {
		t.Fatal(err)
	}
	// Give the dataset's violated run this recording, as a campaign would.
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ds")
	m, _ := dataset.ReadManifest(dir)
	w, err := dataset.Create(out, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Verdict == dataset.Violated {
			r.RecordingPath = "recordings/orig-1.weftlog"
			if err := os.WriteFile(filepath.Join(out, r.RecordingPath), rec, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	res := make(chan int, 1)
	o := &serveOptions{port: 0, level: 0.95}
	go func() {
		code, err := o.run(ctx, []string{out}, io.Discard, ready)
		if err != nil {
			t.Error(err)
		}
		res <- code
	}()
	addr := <-ready
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("listening on %s, want 127.0.0.1 only", addr)
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, index := get("/")
	if code != 200 || strings.Count(index, `<tr class="run"`) != len(rows) || !strings.Contains(index, `href="/run/run-orig-1-run1"`) {
		t.Fatalf("index: %d, %d run rows (want %d) and a link to the recorded run", code, strings.Count(index, `<tr class="run"`), len(rows))
	}
	if code, page := get("/run/run-orig-1-run1"); code != 200 || !strings.Contains(page, `<svg xmlns="http://www.w3.org/2000/svg" class="weft-sequence"`) {
		t.Errorf("run page: %d, no diagram", code)
	}
	if code, svg := get("/run/run-orig-1-run1.svg"); code != 200 || !bytes.HasPrefix([]byte(svg), []byte("<svg ")) {
		t.Errorf("run diagram: %d", code)
	}
	if code, _ := get("/run/run-fix-0-run1"); code != http.StatusNotFound {
		t.Errorf("a run without recording: %d, want 404", code)
	}
	if code, _ := get("/run/nonesuch"); code != http.StatusNotFound {
		t.Errorf("an unknown run: %d, want 404", code)
	}
	cancel()
	if c := <-res; c != exitHolds {
		t.Errorf("serve exited %d after Ctrl-C", c)
	}
}
