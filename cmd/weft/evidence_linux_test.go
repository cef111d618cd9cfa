package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// duckResult is the output of testdata/first_crash.mjs.
type duckResult struct {
	Means []struct {
		Variant string  `json:"variant"`
		Runs    string  `json:"runs"`
		Mean    float64 `json:"mean_first_crash_us"`
	} `json:"means"`
	Order     [][2]any          `json:"order"`
	RowGroups int               `json:"row_groups"`
	Meta      map[string]string `json:"meta"`
}

// TestGrownCampaignAndDuckDB runs an election campaign of 40 seeds, pauses,
// grows it to 50 seeds, and checks: the manifest says seeds 0–49 and a
// compute time without the pause; every row has a structured fault
// schedule and the network model; an exported Parquet answers "mean time
// of the first crash among violated runs per variant" in DuckDB, without
// string parsing, equal to the same figure computed in Go from the rows;
// rows come in (variant, seed) order in one row group, with the model's
// hash and text in the Parquet metadata.
func TestGrownCampaignAndDuckDB(t *testing.T) {
	out := filepath.Join(t.TempDir(), "election")
	model := "targets/election/election.model"
	if o, e, code := weft(t, "campaign", model, "--seeds", "40", "--out", out); code != 0 {
		t.Fatalf("campaign 40: exit %d\n%s\n%s", code, o, e)
	}
	const pause = 2 * time.Second
	time.Sleep(pause)
	if o, e, code := weft(t, "campaign", model, "--seeds", "50", "--out", out); code != 0 {
		t.Fatalf("campaign grown to 50: exit %d\n%s\n%s", code, o, e)
	}
	m, err := dataset.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := dataset.SeedsText(m.Seeds); got != "0–49" {
		t.Errorf("grown manifest says seeds %q, want 0–49", got)
	}
	if len(m.Sessions) != 2 || dataset.SeedsText(m.Sessions[1].Seeds) != "0–49" {
		t.Errorf("sessions %+v, want two, the second over 0–49", m.Sessions)
	}
	if span := m.End.Sub(m.Start); m.ComputeTime() > span-pause+200*time.Millisecond {
		t.Errorf("compute time %v includes the %v pause (span %v)", m.ComputeTime(), pause, span)
	}
	model0, _ := os.ReadFile(filepath.Join("../..", model))
	if m.ModelText != string(model0) || !strings.Contains(m.FaultModel, `"crashes":1`) {
		t.Errorf("manifest model text (%d bytes) or fault model %q wrong", len(m.ModelText), m.FaultModel)
	}
	html := filepath.Join(t.TempDir(), "report.html")
	if o, e, code := weft(t, "report", out, "--out", html); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, o, e)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	want := "<th>compute time</th><td>" + m.ComputeTime().Round(time.Millisecond).String() + " in 2 sessions</td>"
	if !strings.Contains(string(page), "<th>seeds</th><td>0–49</td>") || !strings.Contains(string(page), want) {
		t.Errorf("the report of the grown campaign does not say seeds 0–49 and %q", want)
	}
	rows, err := dataset.ReadRows(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 100 {
		t.Fatalf("%d rows, want 2 variants × 50 seeds", len(rows))
	}
	means := map[string][]float64{}
	for _, r := range rows {
		crash := slices.IndexFunc(r.Faults, func(f dataset.Fault) bool { return f.Kind == "crash" && f.Node == 2 })
		if r.Latency != "uniform:1000-20000" || crash < 0 || r.MessagesDelivered == nil || *r.MessagesDelivered == 0 {
			t.Fatalf("%s seed %d: latency %q, faults %+v, delivered %v: want the model's latency, a crash of n2 and deliveries",
				r.Variant, r.Seed, r.Latency, r.Faults, r.MessagesDelivered)
		}
		if r.Verdict == dataset.Violated {
			if len(r.FirstViolations) == 0 || r.FirstViolations[0].At == nil {
				t.Errorf("%s seed %d: violated without a first violation time per invariant", r.Variant, r.Seed)
			}
			means[r.Variant] = append(means[r.Variant], float64(r.Faults[crash].At/time.Microsecond))
		}
	}
	if len(means) == 0 {
		t.Fatal("no violated run in 100: the query would prove nothing")
	}
	pq := filepath.Join(t.TempDir(), "election.parquet")
	if o, e, code := weft(t, "export", out, "--out", pq); code != 0 {
		t.Fatalf("export: exit %d\n%s\n%s", code, o, e)
	}
	got := duckQuery(t, pq)
	if len(got.Means) != len(means) {
		t.Fatalf("DuckDB gives %d variants, Go %d", len(got.Means), len(means))
	}
	for _, g := range got.Means {
		xs := means[g.Variant]
		var sum float64
		for _, x := range xs {
			sum += x
		}
		if mean := sum / float64(len(xs)); math.Abs(g.Mean-mean) > 1e-9*mean || g.Runs != strconvI(len(xs)) {
			t.Errorf("%s: DuckDB mean first crash %v µs over %s runs, Go %v over %d", g.Variant, g.Mean, g.Runs, mean, len(xs))
		}
		t.Logf("%s: mean first crash among %s violated runs: %.1f µs", g.Variant, g.Runs, g.Mean)
	}
	for i := 1; i < len(got.Order); i++ {
		a, b := got.Order[i-1], got.Order[i]
		if a[0].(string) > b[0].(string) || (a[0] == b[0] && a[1].(float64) >= b[1].(float64)) {
			t.Fatalf("rows %d, %d out of (variant, seed) order: %v then %v", i-1, i, a, b)
		}
	}
	if got.RowGroups != 1 {
		t.Errorf("%d row groups for 100 rows, want 1", got.RowGroups)
	}
	if got.Meta[dataset.MetaModelHash] != m.ModelHash || got.Meta[dataset.MetaModelText] != m.ModelText ||
		!strings.Contains(got.Meta[dataset.MetaVariants], `"cflags":"-DBUG"`) || got.Meta[dataset.MetaSeeds] != `[{"lo":0,"hi":50}]` {
		t.Errorf("Parquet metadata %v does not describe the dataset", got.Meta)
	}
}

func strconvI(n int) string { b, _ := json.Marshal(n); return string(b) }

// duckQuery runs testdata/first_crash.mjs on a Parquet file.
func duckQuery(t *testing.T, file string) duckResult {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not on PATH (scripts/setup.sh installs it)")
	}
	cmd := exec.Command(node, "testdata/first_crash.mjs", file)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB query: %v (is @duckdb/node-api installed in build/js? scripts/setup.sh)", err)
	}
	var r duckResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("DuckDB output %s: %v", b, err)
	}
	return r
}
