//go:build linux

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/analysis/charts/browsertest"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// campaignsJS is what the run browser's index shows of its campaigns and
// of the verdict filter: each dataset's caption, the fault model's table
// rows, and, filtered to violated runs, the count and the links left
// visible.
const campaignsJS = `(function () {
  var datasets = [];
  document.querySelectorAll("table.manifest caption code").forEach(function (c) { datasets.push(c.textContent); });
  var count = window.weftFilterRuns ? weftFilterRuns("", "violated", "") : "no filter";
  var shown = [];
  document.querySelectorAll("#run-table tr.run").forEach(function (r) {
    var a = r.querySelector("a[href]");
    if (r.style.display !== "none" && a) { shown.push(a.href); }
  });
  return {datasets: datasets, faultModel: document.querySelectorAll("table.faultmodel tbody tr").length,
          count: count, shown: shown};
})()`

// seedJS is what a seed's run page shows: its fault schedule's rows (cells
// as text), the diagram's arrows, Porcupine's verdict, the frame that
// holds its view and the link to the view alone.
const seedJS = `(function () {
  var faults = [], arrows = [];
  document.querySelectorAll("table.faults tbody tr").forEach(function (r) {
    var cells = [];
    r.querySelectorAll("td").forEach(function (c) { cells.push(c.textContent); });
    faults.push(cells);
  });
  document.querySelectorAll(".seqdiag svg .msg title").forEach(function (t) { arrows.push(t.textContent); });
  var v = document.querySelector(".history-verdict"), f = document.querySelector("iframe.porcupine"),
      l = document.querySelector("a.history-link");
  return {faults: faults, arrows: arrows, verdict: v ? v.textContent : "",
          frame: f ? (f.getAttribute("srcdoc") || "").length : 0, history: l ? l.href : ""};
})()`

// historyJS is what Porcupine's view of a history paints: the text of
// its drawing.
const historyJS = `(function () {
  var texts = [];
  document.querySelectorAll("#canvas svg text").forEach(function (t) { texts.push(t.textContent); });
  return {texts: texts};
})()`

type campaignsView struct {
	Datasets   []string `json:"datasets"`
	FaultModel int      `json:"faultModel"`
	Count      string   `json:"count"`
	Shown      []string `json:"shown"`
}

type seedView struct {
	Faults  [][]string `json:"faults"`
	Arrows  []string   `json:"arrows"`
	Verdict string     `json:"verdict"`
	Frame   int        `json:"frame"`
	History string     `json:"history"`
}

// TestServeOpensASeed looks at two campaigns of targets/paxos (crashes,
// restarts and a partition; a kv workload checked by Porcupine) in the
// real `weft serve` with headless Chromium: the index lists both
// campaigns and the fault model as a table; the verdict filter leaves
// exactly the violated seed (bug 119), whose link opens its page; there
// the fault schedule is a table with the dataset's faults, the sequence
// diagram paints with the nodes' and clients' messages, Porcupine's
// verdict and view are shown; and the view alone paints every operation
// the recording returned. No page logs an error or leaves the server.
// Without Chromium it fails when CI=true and skips otherwise.
func TestServeOpensASeed(t *testing.T) {
	chromium := browsertest.Require(t)
	dir := t.TempDir()
	copyTarget(t, dir, "paxos", "paxos.model", "paxos.c")
	mod := filepath.Join(dir, "paxos.model")
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	for _, c := range [][]string{
		{"campaign", mod, "--first-seed", "118", "--seeds", "3", "--record", "all", "--out", first},
		{"campaign", mod, "--variants", "correct", "--first-seed", "200", "--seeds", "2", "--record", "all", "--out", second},
	} {
		if out, errOut, code := weft(t, c...); code != 0 && code != 1 {
			t.Fatalf("%s: exit %d\n%s%s", strings.Join(c, " "), code, out, errOut)
		}
	}
	var rows []dataset.Row
	for _, ds := range []string{first, second} {
		rs, err := dataset.ReadRows(ds)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	var violated []dataset.Row
	for _, r := range rows {
		if r.Verdict == dataset.Violated {
			violated = append(violated, r)
		}
	}
	if len(violated) != 1 || violated[0].Variant != "bug" || violated[0].Seed != 119 || len(violated[0].Faults) == 0 {
		t.Fatalf("violated runs %+v: want bug seed 119 alone, with faults", violated)
	}
	seed := violated[0]

	base := startServe(t, first, second)
	b, err := browsertest.Launch(context.Background(), browsertest.Options{Chromium: chromium, Selector: "[data-weft-chart], .seqdiag, #canvas"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	var idx campaignsView
	visitServed(t, b, base, base+"/", campaignsJS, &idx)
	if strings.Join(idx.Datasets, ",") != first+","+second || idx.FaultModel == 0 {
		t.Errorf("index lists campaigns %q and %d fault model rows; want %s and %s, and the fault model as a table", idx.Datasets, idx.FaultModel, first, second)
	}
	if want := fmt.Sprintf("1 of %d runs", len(rows)); idx.Count != want || len(idx.Shown) != 1 {
		t.Fatalf("verdict filter: %q with links %q; want %q and one link", idx.Count, idx.Shown, want)
	}

	var page seedView
	visitServed(t, b, base, idx.Shown[0], seedJS, &page)
	checkFaultTable(t, page.Faults, seed.Faults)
	clients, nodes := 0, 0
	for _, a := range page.Arrows {
		switch {
		case strings.HasPrefix(a, "client → n") || strings.Contains(a, " → client"):
			clients++
		case strings.HasPrefix(a, "n"):
			nodes++
		}
	}
	if clients == 0 || nodes == 0 {
		t.Errorf("the diagram draws %d client and %d node messages, want both: %q", clients, nodes, page.Arrows)
	}
	if page.Verdict != "linearizable" || page.Frame == 0 || page.History != idx.Shown[0]+"/history" {
		t.Errorf("history: verdict %q, frame of %d bytes, link %q; want linearizable (bug 119 breaks agreement, not the clients' view), Porcupine's page and %s/history", page.Verdict, page.Frame, page.History, idx.Shown[0])
	}

	var hist struct {
		Texts []string `json:"texts"`
	}
	visitServed(t, b, base, page.History, historyJS, &hist)
	rec, err := weftlog.ReadFile(filepath.Join(first, filepath.FromSlash(seed.RecordingPath)))
	if err != nil {
		t.Fatal(err)
	}
	drawn := strings.Join(hist.Texts, "\n")
	returns := 0
	for _, e := range rec.Events {
		if e.Kind == "return" && strings.HasSuffix(e.Value, "→ ok") {
			returns++
			if op := e.Var + " " + e.Value; !strings.Contains(drawn, op) {
				t.Errorf("Porcupine's view lacks %q (step %d); it draws %q", op, e.Step, hist.Texts)
			}
		}
	}
	if returns == 0 {
		t.Errorf("the recording returns no operation: the history shows nothing")
	}
}

// checkFaultTable compares a run page's fault schedule rows with the
// dataset's faults: kind, time in ms and that each was reached.
func checkFaultTable(t *testing.T, got [][]string, want []dataset.Fault) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("fault schedule has %d rows %q, the dataset %d faults", len(got), got, len(want))
	}
	for i, f := range want {
		at := fmt.Sprintf("%.3f", f.At.Seconds()*1000)
		if len(got[i]) != 5 || got[i][0] != f.Kind || got[i][2] != at || (got[i][4] == "yes") != f.Applied {
			t.Errorf("fault %d: row %q, want %s at %s ms (reached %v)", i, got[i], f.Kind, at, f.Applied)
		}
	}
}
