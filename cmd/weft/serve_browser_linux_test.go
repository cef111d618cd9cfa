//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-mc/weft/analysis/charts/browsertest"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

// indexJS is what the run browser's index shows: its run rows, their links,
// the target of the #runs anchor, and what the variant filter leaves.
const indexJS = `(function () {
  var links = [];
  document.querySelectorAll("#run-table tr.run a[href]").forEach(function (a) { links.push(a.href); });
  var bug = window.weftFilterRuns ? weftFilterRuns("", "", "bug") : "no filter";
  var all = window.weftFilterRuns ? weftFilterRuns("", "", "") : "no filter";
  return {rows: document.querySelectorAll("#run-table tr.run").length, links: links,
          anchor: !!document.getElementById("runs"), bug: bug, all: all};
})()`

// runJS is what a run page shows: its title, the link back and the
// sequence diagram's arrows (their <title>s) and events.
const runJS = `(function () {
  var arrows = [];
  document.querySelectorAll(".seqdiag svg g.msg title, .seqdiag svg .msg title").forEach(function (t) { arrows.push(t.textContent); });
  var back = document.querySelector("a[href]");
  return {title: document.title, back: back ? back.href : "", arrows: arrows,
          events: document.querySelectorAll("table.events tbody tr").length};
})()`

type indexView struct {
	Rows   int      `json:"rows"`
	Links  []string `json:"links"`
	Anchor bool     `json:"anchor"`
	Bug    string   `json:"bug"`
	All    string   `json:"all"`
}

type runView struct {
	Title  string   `json:"title"`
	Back   string   `json:"back"`
	Arrows []string `json:"arrows"`
	Events int      `json:"events"`
}

// TestServeInChromium starts the real `weft serve` on a small recorded
// campaign (the quorum register with its workload, both variants) and
// looks at it in headless Chromium as a user would: the index lists every
// run with a link and paints its echarts charts on canvases, the variant
// filter works, every run link opens a page whose sequence diagram draws
// the clients' requests and the replies to them, each page's link back
// leads to the index, and no page logs an error or asks anything of a
// host other than the server on 127.0.0.1 (the pages work offline).
// Without Chromium it fails when CI=true and skips otherwise.
func TestServeInChromium(t *testing.T) {
	chromium := browsertest.Require(t)
	dir := t.TempDir()
	for _, f := range []string{"register.model", "quorum.c"} {
		b, err := os.ReadFile(filepath.Join("../../targets/quorum", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds := filepath.Join(dir, "ds")
	if out, errOut, code := weft(t, "campaign", filepath.Join(dir, "register.model"), "--seeds", "3", "--record", "all", "--out", ds); code != 0 {
		t.Fatalf("campaign: exit %d\n%s%s", code, out, errOut)
	}
	rows, err := dataset.ReadRows(ds)
	if err != nil {
		t.Fatal(err)
	}
	base := startServe(t, ds)
	b, err := browsertest.Launch(context.Background(), browsertest.Options{Chromium: chromium, Selector: "[data-weft-chart], .seqdiag"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	var idx indexView
	res := visitServed(t, b, base, base+"/", indexJS, &idx)
	canvases := 0
	for _, c := range res.Containers {
		canvases += c.Canvases
	}
	if canvases == 0 {
		t.Errorf("index: no echarts canvas among %d charts", len(res.Containers))
	}
	if idx.Rows != len(rows) || len(idx.Links) != len(rows) || !idx.Anchor {
		t.Errorf("index: %d run rows, %d links, #runs %v; want %d runs, each linked", idx.Rows, len(idx.Links), idx.Anchor, len(rows))
	}
	if want := fmt.Sprintf("%d of %d runs", len(rows)/2, len(rows)); idx.Bug != want || idx.All != fmt.Sprintf("%d of %d runs", len(rows), len(rows)) {
		t.Errorf("variant filter: bug shows %q, want %q; none shows %q", idx.Bug, want, idx.All)
	}
	for i, link := range idx.Links {
		checkRunPage(t, b, base, link, i == 0)
	}
}

// checkRunPage opens a run's page from its link: it names a run, its
// diagram paints with the clients' requests and replies, and its link
// back leads to the index's run table (followed when follow is set: every
// page's link back is the same).
func checkRunPage(t *testing.T, b *browsertest.Browser, base, link string, follow bool) {
	t.Helper()
	if !strings.HasPrefix(link, base+"/run/") {
		t.Errorf("run link %s does not lead to the server's run pages", link)
		return
	}
	var run runView
	visitServed(t, b, base, link, runJS, &run)
	requests, replies := 0, 0
	for _, a := range run.Arrows {
		switch {
		case strings.HasPrefix(a, "client → n"):
			requests++
		case regexp.MustCompile(`^n\d+ → client .* → `).MatchString(a):
			replies++
		}
	}
	if !regexp.MustCompile(`^(fixed|bug) seed \d+ \(run run1\): `).MatchString(run.Title) || requests == 0 || replies == 0 || run.Events == 0 {
		t.Errorf("%s: title %q, %d client requests and %d replies drawn, %d events; want a run's page with both kinds of arrows and its events\narrows: %q", link, run.Title, requests, replies, run.Events, run.Arrows)
	}
	if run.Back != base+"/#runs" {
		t.Errorf("%s: the link back is %q, want %s/#runs", link, run.Back, base)
		return
	}
	if !follow {
		return
	}
	var idx indexView
	visitServed(t, b, base, run.Back, indexJS, &idx)
	if !idx.Anchor || idx.Rows == 0 {
		t.Errorf("%s: the link back opens a page without the run table", link)
	}
}

// visitServed opens pageURL, decodes what expr evaluated to into v, and
// fails the test for a chart that did not paint, any page error, and any
// request to a host other than the server's.
func visitServed(t *testing.T, b *browsertest.Browser, base, pageURL, expr string, v any) *browsertest.Result {
	t.Helper()
	res, err := b.OpenURL(context.Background(), pageURL, expr)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Containers) == 0 {
		t.Errorf("%s: no chart or diagram", pageURL)
	}
	for _, c := range res.Containers {
		if !c.Painted {
			t.Errorf("%s: %s (%s) did not paint: %d canvas, %d svg", pageURL, c.ID, c.Kind, c.Canvases, c.SVGs)
		}
	}
	for _, e := range res.Errors {
		t.Errorf("%s: %s", pageURL, e)
	}
	for _, r := range res.Requests {
		if u, err := url.Parse(r); err != nil || u.Scheme+"://"+u.Host != base {
			t.Errorf("%s: request leaves the server: %s", pageURL, r)
		}
	}
	if err := json.Unmarshal(res.Value, v); err != nil {
		t.Fatalf("%s: %v in %s", pageURL, err, res.Value)
	}
	return res
}

// startServe runs `weft serve DIR… --port 0` and returns its base URL
// (http://127.0.0.1:PORT); the server is stopped with SIGINT, as Ctrl-C
// stops it, when the test ends, and must then exit 0.
func startServe(t *testing.T, dirs ...string) string {
	t.Helper()
	cmd := exec.Command(weftBin, append(append([]string{"serve"}, dirs...), "--port", "0")...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("weft serve after SIGINT: %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("weft serve did not stop on SIGINT")
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`^serving (http://127\.0\.0\.1:\d+)/ `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("weft serve printed %q (%v)\n%s", line, err, stderr.String())
	}
	return m[1]
}
