# Generates notebooks/*.ipynb (run from notebooks/: python3 testdata/generate.py).
# The notebooks are committed; edit the cells here or in Jupyter, not both.
import json, sys
def repo_root(marker):
    """The Go that moves a notebook to the repository root, wherever Jupyter
    started it (marker: a file the root has, relative to it)."""
    return """// Notebooks run from the repository root, wherever Jupyter started them.
func repoRoot() string {
	for _, d := range []string{".", ".."} {
		if _, err := os.Stat(d + "/%s"); err == nil {
			return d
		}
	}
	return "."
}
os.Chdir(repoRoot())""" % marker



EVIDENCE_GO = r"""
// The evidence (issue 41): by default this notebook opens the datasets
// shipped in datasets/shipped, made from the same models by
// scripts/datasets.sh (notebooks/datasets_test.go reruns a sample of each
// and checks it). WEFT_NOTEBOOK_SEEDS=N reruns every campaign at N seeds per
// variant into WEFT_DATASETS (default datasets/), with progress and an ETA;
// an interrupted or repeated rerun resumes from the runs already on disk.
// notebookSeeds reads WEFT_NOTEBOOK_SEEDS (0 when unset: the shipped
// datasets).
func notebookSeeds() int {
	s := os.Getenv("WEFT_NOTEBOOK_SEEDS")
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		panic("WEFT_NOTEBOOK_SEEDS=" + s + ": want a number of seeds, at least 1")
	}
	return n
}
rerunSeeds := notebookSeeds()
datasetsDir := os.Getenv("WEFT_DATASETS")
if datasetsDir == "" {
	datasetsDir = "datasets"
}
// evidence returns the dataset of campaign name and its seeds per variant:
// the shipped one, datasets/shipped/NAME-SHIPPED, or, with
// WEFT_NOTEBOOK_SEEDS, m's campaign with opts rerun at that many seeds.
func evidence(name string, shipped int, m *model.Model, opts mcsdk.CampaignOptions) (string, int) {
	if rerunSeeds == 0 {
		dir := fmt.Sprintf("datasets/shipped/%s-%d", name, shipped)
		man, err := dataset.ReadManifest(dir)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: the shipped dataset, seeds %s (WEFT_NOTEBOOK_SEEDS=N reruns it at N seeds)\n", dir, dataset.SeedsText(man.Seeds))
		tallyRuns(dir)
		return dir, shipped
	}
	opts.Seeds = rerunSeeds
	opts.Out = fmt.Sprintf("%s/%s-%d", datasetsDir, name, rerunSeeds)
	if opts.RunID != "" {
		opts.Out += "-" + opts.RunID
	}
	runCampaign(name, m, opts)
	tallyRuns(opts.Out)
	return opts.Out, rerunSeeds
}
// runCampaign runs (or resumes) a campaign with a progress bar and an ETA;
// interrupting the cell stops it and keeps the finished runs.
func runCampaign(title string, m *model.Model, opts mcsdk.CampaignOptions) {
	n := len(opts.Variants)
	if n == 0 {
		n = len(m.Variants)
	}
	p := display.NewProgress(title, n*opts.Seeds)
	eta := display.Show(display.Markdown("*" + title + ": starting*"))
	start := time.Now()
	var last time.Time
	opts.Progress = func(pr mcsdk.CampaignProgress) {
		p.Set(pr.Done)
		if time.Since(last) >= time.Second || pr.Done == pr.Total {
			last = time.Now()
			eta.Update(display.Markdown(etaText(title, pr)))
		}
	}
	sum, err := mcsdk.Campaign(display.Context(), m, opts)
	p.Finish()
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d runs (%d already on disk) in %s\n", opts.Out, sum.Runs, sum.Resumed, time.Since(start).Round(time.Millisecond))
}
// etaText says how far a campaign is and when it should end, from the pace
// of the runs done in this session.
func etaText(title string, pr mcsdk.CampaignProgress) string {
	text := fmt.Sprintf("%s: %d/%d runs (%d resumed from disk), %d violated", title, pr.Done, pr.Total, pr.Resumed, pr.Violated)
	fresh := pr.Done - pr.Resumed
	if fresh <= 0 || pr.Elapsed <= 0 || pr.Done == pr.Total {
		return text
	}
	rate := float64(fresh) / pr.Elapsed.Seconds()
	left := time.Duration(float64(pr.Total-pr.Done) / rate * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("%s, %.1f runs/s, ETA %s", text, rate, left)
}
// tallyRuns prints each variant's valid, invalid, violated and error runs,
// its rate over valid runs and its violations by invariant.
func tallyRuns(dir string) {
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		panic(err)
	}
	var order []string
	counts, byInv := map[string]map[string]int{}, map[string]map[string]int{}
	for _, r := range rows {
		if counts[r.Variant] == nil {
			counts[r.Variant], byInv[r.Variant] = map[string]int{}, map[string]int{}
			order = append(order, r.Variant)
		}
		counts[r.Variant][r.Verdict]++
		for _, inv := range r.ViolatedInvariants {
			byInv[r.Variant][inv]++
		}
	}
	for _, v := range order {
		c := counts[v]
		valid := c[dataset.Holds] + c[dataset.Violated]
		rate := 0.0
		if valid > 0 {
			rate = 100 * float64(c[dataset.Violated]) / float64(valid)
		}
		fmt.Printf("  %-12s valid %4d invalid %3d violated %3d errors %d rate %5.2f%% %v\n", v, valid, c[dataset.Invalid], c[dataset.Violated], c[dataset.Error], rate, byInv[v])
	}
}
"""

def nb(cells):
    out = []
    for i, (kind, src) in enumerate(cells):
        c = {"cell_type": kind, "id": f"c{i:02d}", "metadata": {}, "source": src.strip("\n").splitlines(True)}
        if kind == "code":
            c["execution_count"] = None
            c["outputs"] = []
        out.append(c)
    return {"cells": out, "metadata": {"kernelspec": {"display_name": "Go (weft)", "language": "go", "name": "weft"},
            "language_info": {"name": "go", "file_extension": ".go", "mimetype": "text/x-go"}}, "nbformat": 4, "nbformat_minor": 5}

m4 = [
("markdown", r"""
# 01 — The M4 replicated register, checked exhaustively

Seed experiment: `shared/seeds/process-mode-m4.txt`. Two real node processes (`targets/repl/repl.c`, ordinary
blocking sockets) run under weft's supervisor, which owns the network between them. The checker explores every
delivery order and checks `agree_on_ack = "all r in replies : r.val in node[1]"`: every write acknowledged to the
client is stored on the backup.

Run from the repository root (`jupyter notebook notebooks/`, kernel *Go (weft)*).
"""),
("code", r"""
import (
	"fmt"
	"os"

	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

""" + repo_root("targets/repl/repl.model") + r"""
m, err := model.Load("targets/repl/repl.model")
if err != nil {
	panic(err)
}
fmt.Println("model", m.Path, "nodes", m.Nodes, "variants", len(m.Variants))
"""),
("markdown", "## The correct variant holds over every delivery order"),
("code", r"""
correct, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: "correct"})
if err != nil {
	panic(err)
}
fmt.Printf("%s %s over %d distinct states (%d executions)\n", correct.Invariants[0], correct.Verdict, correct.States, correct.Executions)
"""),
("markdown", "## The bug variant acks the client before the backup has the value: the counterexample"),
("code", r"""
bug, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: "bug"})
if err != nil {
	panic(err)
}
v := bug.Violation
fmt.Println("verdict:", bug.Verdict, "—", v.Invariant)
fmt.Println("why:    ", v.Why)
fmt.Println("state:  ", v.Summary)
for i, s := range v.Steps {
	fmt.Printf("step %d: %s\n", i+1, s)
}
"""),
("markdown", r"""
## The state space

The three-node `targets/quorum` log (a poll loop, two backups, a planted stale-ack bug that needs a particular
delivery order) shows how the search grows with depth.
"""),
("code", r"""
q, err := model.Load("targets/quorum/quorum.model")
if err != nil {
	panic(err)
}
"""),
("code", r"""
// growth checks one variant to depth 8 and returns its states per depth.
func growth(variant string) []charts.DepthCount {
	r, err := mcsdk.Check(q, mcsdk.CheckOptions{Variant: variant, Depth: 8})
	if err != nil {
		panic(err)
	}
	path := 0
	if r.Violation != nil {
		path = len(r.Violation.Path)
	}
	fmt.Printf("%-6s %-8s %4d states %4d executions, violation path %d actions\n", variant, r.Verdict, r.States, r.Executions, path)
	var rows []charts.DepthCount
	for d, n := range r.ByDepth {
		rows = append(rows, charts.DepthCount{Variant: variant, Depth: d, States: n})
	}
	return rows
}
rows := append(growth("fixed"), growth("bug")...)
chart, err := charts.SearchGrowth("quorum-growth", rows)
if err != nil {
	panic(err)
}
chart
"""),
]

chord = [
("markdown", r"""
# 02 — The Chord liveness-discipline experiment, deterministically

Seed report: `shared/seeds/chord-liveness-discipline.txt`; protocol and invariants: `shared/design/chord-spec.md`;
target: `targets/chord` (`chord_node.c` at levels 0/1/2 = variants orig, fix1, fix2).

The campaign runs every seed for every variant, and every claim below is computed from its dataset. The notebook
opens the 3 × 500 campaign shipped in `datasets/shipped/chord-500` (made by `scripts/datasets.sh` from the same
model; `notebooks/datasets_test.go` reruns a sample of it) and reruns its first 20 seeds of each variant now, to
show they give the same verdicts. `WEFT_NOTEBOOK_SEEDS=N` instead runs the whole campaign at N seeds per variant,
**twice** (run1, run2), into `WEFT_DATASETS` (default `datasets/`), with progress and an ETA; the runs resume: a
dataset already there (e.g. from `scripts/chord-experiment.sh`) is reused, and an interrupted cell keeps every
finished run.
"""),
("code", r"""
import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

""" + repo_root("targets/chord/chord.model") + EVIDENCE_GO + r"""
m, err := model.Load("targets/chord/chord.model")
if err != nil {
	panic(err)
}
"""),
("code", r"""
run1, seeds := evidence("chord", 500, m, mcsdk.CampaignOptions{RunID: "run1"})
fmt.Println("seeds per variant:", seeds)
"""),
("markdown", r"""
## Determinism: the second run agrees seed by seed

With `WEFT_NOTEBOOK_SEEDS` the whole campaign runs again (run2, resumable); by default the first 20 seeds of each
variant run again now, into a temporary directory, against the shipped run1.
"""),
("code", r"""
// run2Of returns the second run's seeds, its directory and the temporary
// directory to remove after it ("" for none).
func run2Of() (int, string, string) {
	if rerunSeeds > 0 {
		return seeds, fmt.Sprintf("%s/chord-%d-run2", datasetsDir, seeds), ""
	}
	tmp, err := os.MkdirTemp("", "weft-chord-run2-")
	if err != nil {
		panic(err)
	}
	return 20, tmp + "/chord-run2", tmp
}
run2Seeds, run2Dir, run2Tmp := run2Of()
runCampaign("chord run2", m, mcsdk.CampaignOptions{Seeds: run2Seeds, Out: run2Dir, RunID: "run2"})
dirs := []string{run1, run2Dir}
verdicts := func(dir string) map[string]string {
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		panic(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[fmt.Sprintf("%s/%d", r.Variant, r.Seed)] = fmt.Sprint(r.Verdict, r.ViolatedInvariants, r.Steps)
	}
	return out
}
a, b := verdicts(dirs[0]), verdicts(dirs[1])
same := len(b) == 3*run2Seeds
for k, v := range b {
	if a[k] != v {
		same = false
		fmt.Println("differs:", k, a[k], v)
	}
}
fmt.Printf("identical verdict (and step count) for all %d seed × variant pairs rerun: %v\n", len(b), same)
if !same {
	panic("the two runs differ")
}
"""),
("markdown", r"""
## Rates with intervals, the tests behind orig > fix1 > fix2, and drift

Over run1 (and run2 when it ran in full: then the drift between the two runs too).
"""),
("code", r"""
tallied := dirs[:1]
if run2Seeds == seeds {
	tallied = dirs
}
if run2Tmp != "" {
	os.RemoveAll(run2Tmp)
}
rows, err := dataset.ReadRows(tallied...)
if err != nil {
	panic(err)
}
outcomes := make([]analysis.Outcome, len(rows))
for i, r := range rows {
	outcomes[i] = analysis.Outcome{Variant: r.Variant, Run: r.RunID, Verdict: r.Verdict, Seed: r.Seed}
}
table, err := analysis.Tally(outcomes)
if err != nil {
	panic(err)
}
table = table.Reorder([]string{"orig", "fix1", "fix2"})
summary, err := analysis.Summarize(table, analysis.SummaryOptions{})
if err != nil {
	panic(err)
}
summary
"""),
("code", r"""
func rateBars() []charts.RateBar {
	var bars []charts.RateBar
	for _, c := range table.Counts() {
		iv, err := analysis.WilsonInterval(c, 0.95)
		if err != nil {
			continue
		}
		bars = append(bars, charts.RateBar{Variant: c.Group, Rate: float64(c.Successes) / float64(c.Trials), Lo: iv.Lower, Hi: iv.Upper, K: c.Successes, N: c.Trials})
	}
	return bars
}
bars := rateBars()
rates, err := charts.Rates("chord-rates", bars)
if err != nil {
	panic(err)
}
rates
"""),
("markdown", "## Falsification claims"),
("code", r"""
func parseClaims(texts ...string) []analysis.Claim {
	var claims []analysis.Claim
	for _, text := range texts {
		c, err := analysis.ParseClaim(text)
		if err != nil {
			panic(err)
		}
		claims = append(claims, c)
	}
	return claims
}
claimTexts := []string{
	"rate(orig) > rate(fix1)",
	"rate(fix1) > rate(fix2)",
	"rate(orig) > rate(fix1) > rate(fix2)",
	"rate(fix2) <= 2%",
}
if len(tallied) == 2 {
	claimTexts = append(claimTexts, "drift(orig) == 0 within=0.02")
}
claims := parseClaims(claimTexts...)
claimReport, err := analysis.EvaluateClaims(claims, table)
if err != nil {
	panic(err)
}
claimReport
"""),
("markdown", r"""
## What fix2 adds over fix1, seed by seed

A seed gives every variant the same crash schedule, so the variants can be compared seed by seed (the
"Paired by seed" table above, McNemar's exact test). The rate over valid runs can hide a difference, because
validity is judged against each variant's own state: when fix1's reconcile adopts into `succ2` a node it already
knows is dead and its successor then crashes, the papers' failure precondition — checked on the lists at the
moment of death — blames the schedule and the run is `invalid`. fix2 refuses that adoption, keeps a live
`succ2`, and the same schedule stays legal. The seeds below are the ones where that happened.
"""),
("code", r"""
// invalidOnly lists the seeds of run1 that are invalid in variant a but
// valid in variant b, with a's reason.
func invalidOnly(a, b string) {
	verdict := map[string]map[int64]dataset.Row{}
	for _, r := range rows {
		if r.RunID != "run1" {
			continue
		}
		if verdict[r.Variant] == nil {
			verdict[r.Variant] = map[int64]dataset.Row{}
		}
		verdict[r.Variant][r.Seed] = r
	}
	n := 0
	for seed := int64(0); seed < int64(seeds); seed++ {
		ra, rb := verdict[a][seed], verdict[b][seed]
		if ra.Verdict == dataset.Invalid && (rb.Verdict == dataset.Holds || rb.Verdict == dataset.Violated) {
			n++
			fmt.Printf("seed %d: %s %s; %s %s\n", seed, a, ra.Detail, b, rb.Verdict)
		}
	}
	fmt.Printf("%d seeds invalid in %s but valid in %s\n", n, a, b)
}
for _, p := range summary.Paired {
	fmt.Printf("%s vs %s: %d seeds valid in both, violated in %s only %d, in %s only %d (p = %.3g); invalid in %s only %d, in %s only %d (p = %.3g)\n",
		p.A, p.B, p.Valid, p.A, p.OnlyA, p.B, p.OnlyB, p.PValue, p.A, p.InvalidOnlyA, p.B, p.InvalidOnlyB, p.InvalidP)
}
invalidOnly("fix1", "fix2")
"""),
("markdown", r"""
## One traced failure per level

The first violating seed of each variant, from its recording alone (`weft trace` shows the same): declared
pointers per node over time, crashes marked. Level 0 shows Zave's Figure 6 mechanism: a node adopts a dead node
and loses its live pointers.
"""),
("code", r"""
// firstFailures reads, per variant, the recording of the first violating
// seed of run1.
func firstFailures() map[string]*weftlog.Recording {
	traced := map[string]*weftlog.Recording{}
	for _, r := range rows {
		if r.RunID != "run1" || r.Verdict != dataset.Violated || r.RecordingPath == "" {
			continue
		}
		old := traced[r.Variant]
		if old != nil && int64(old.Header.Seed) < r.Seed {
			continue
		}
		rec, err := weftlog.ReadFile(dirs[0] + "/" + r.RecordingPath)
		if err != nil {
			panic(err)
		}
		traced[r.Variant] = rec
	}
	return traced
}
traced := firstFailures()
for _, v := range []string{"orig", "fix1", "fix2"} {
	if rec := traced[v]; rec != nil {
		fmt.Printf("%s: seed %d, %v first at step %d — weft trace %s/recordings/%s-%d.weftlog --vars succ,succ2,pred\n",
			v, rec.Header.Seed, rec.Verdict.Violated, rec.Verdict.FirstViolationStep, dirs[0], v, rec.Header.Seed)
	}
}
"""),
("code", r"""
timeline := func(name string, rec *weftlog.Recording) *charts.Chart {
	var ev []charts.TraceEvent
	for _, e := range rec.Events {
		if e.Step > rec.Verdict.FirstViolationStep+20 {
			break
		}
		switch {
		case e.Kind == "state" && (e.Var == "succ" || e.Var == "succ2"):
			ev = append(ev, charts.TraceEvent{Step: e.Step, TimeUS: e.T, Node: fmt.Sprintf("n%d", e.Node), Kind: charts.KindState, Var: e.Var, Value: e.Value})
		case e.Kind == "crash":
			ev = append(ev, charts.TraceEvent{Step: e.Step, TimeUS: e.T, Node: fmt.Sprintf("n%d", e.Node), Kind: charts.KindCrash})
		}
	}
	c, err := charts.Timeline(name, ev)
	if err != nil {
		panic(err)
	}
	return c
}
// traceOf is the timeline of variant v's traced failure, or a note when
// the campaign had none.
func traceOf(v string) any {
	rec := traced[v]
	if rec == nil {
		return display.Markdown("*No violating seed of " + v + " in this campaign.*")
	}
	return timeline("trace-"+v, rec)
}
traceOf("orig")
"""),
("code", r"""
traceOf("fix2")
"""),
("markdown", r"""
## Beyond the seed (issue 21): which check does what, perfect detection, and a comparison validity cannot bias

`CHORD_CHECKS` makes the four liveness checks independent switches of one binary (1 stabilize, 2 reconcile,
4 update, 8 the GETSUCC/FIND responder); `chord-attribution.model` builds all 16 masks (`c00` … `c15`; level 0 =
`c00`, level 1 = `c01`, level 2 = `c15`, byte-identical to orig, fix1, fix2). `chord-perfect.model` tells every
live node of a death at its instant (`[faults] notice_latency = "constant:0"`). The outcome fixed before these
campaigns ran (`targets/chord/README.md`): a run *fails* if it is violated or invalid (intention to treat), and
variants are compared seed by seed with McNemar's exact test; each check's effect is the 2⁴ factorial contrast,
paired by seed. The spec's rate over valid runs is reported unchanged beside it. The notebook opens the shipped
16 × 100 and 3 × 100 campaigns (`datasets/shipped/chord-attribution-100`, `chord-perfect-100`);
`WEFT_NOTEBOOK_SEEDS=N` reruns both at N seeds (the README has the 500-seed numbers).
"""),
("code", r"""
// loadModel loads the model at path.
func loadModel(path string) *model.Model {
	mm, err := model.Load(path)
	if err != nil {
		panic(err)
	}
	return mm
}
attrDir, _ := evidence("chord-attribution", 100, loadModel("targets/chord/chord-attribution.model"), mcsdk.CampaignOptions{})
perfectDir, _ := evidence("chord-perfect", 100, loadModel("targets/chord/chord-perfect.model"),
	mcsdk.CampaignOptions{Variants: []string{"orig", "fix1", "fix2"}})
// The analysis goes to a temporary directory, beside no dataset.
attrOut, err := os.MkdirTemp("", "weft-attribution-")
if err != nil {
	panic(err)
}
// The analysis is the target's own program (targets/chord/attribution), run
// in the next cell as a command: the kernel binds weft's packages, never a
// target's.
os.Setenv("ATTR_DIR", attrDir)
os.Setenv("PERFECT_DIR", perfectDir)
os.Setenv("ATTR_OUT", attrOut)
"""),
("code", r"""
!go run ./targets/chord/attribution --perfect "$PERFECT_DIR" --markdown "$ATTR_OUT/attribution.md" --json "$ATTR_DIR" > "$ATTR_OUT/attribution.json"
"""),
("code", r"""
var attr struct {
	Effects map[string][]analysis.FactorialEffect `json:"effects"`
}
js, err := os.ReadFile(attrOut + "/attribution.json")
if err != nil {
	panic(err)
}
if err := json.Unmarshal(js, &attr); err != nil {
	panic(err)
}
md, err := os.ReadFile(attrOut + "/attribution.md")
if err != nil {
	panic(err)
}
os.RemoveAll(attrOut)
display.Markdown(string(md))
"""),
("markdown", "### The attribution chart: each check's main effect, and the interactions whose interval excludes 0"),
("code", r"""
// effectChart draws one outcome's main effects, and the interactions whose
// 95 % interval excludes 0, as the attribution program's --chart does.
func effectChart(outcome, title string) *charts.Chart {
	var bars []charts.EffectBar
	for _, e := range attr.Effects[outcome] {
		matters := len(e.Factors) > 1 && (e.Lower > 0 || e.Upper < 0)
		if len(e.Factors) != 1 && !matters {
			continue
		}
		lo, hi := e.Lower, e.Upper
		if math.IsNaN(lo) || math.IsNaN(hi) { // one seed: no interval
			lo, hi = e.Value, e.Value
		}
		bars = append(bars, charts.EffectBar{Effect: e.Name(), Value: e.Value, Lo: lo, Hi: hi, Units: e.Units})
	}
	c, err := charts.Effects("chord-effects-"+outcome, "Effect of each liveness check on "+title, "effect on "+title, bars)
	if err != nil {
		panic(err)
	}
	return c
}
effects := []*charts.Chart{
	effectChart("violated", "P(violated)"),
	effectChart("invalid", "P(invalid)"),
	effectChart("itt", "P(failed, ITT)"),
}
effects[0]
"""),
("code", r"""
effects[1]
"""),
("code", r"""
effects[2]
"""),
]

ds = [
("markdown", r"""
# 03 — Datasets: load, filter, merge, export

Campaign verdicts are Apache Arrow IPC files plus a manifest. This notebook runs two small shards of a campaign
(the `election` target), merges them, filters, reads the rows as an Arrow table, and exports Parquet and CSV for
pandas, Polars, DuckDB or R.
"""),
("code", r"""
import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
)

""" + repo_root("targets/election/election.model") + r"""
tmp, err := os.MkdirTemp("", "weft-notebook-03-")
if err != nil {
	panic(err)
}
m, err := model.Load("targets/election/election.model")
if err != nil {
	panic(err)
}
"""),
("code", r"""
// shard runs shard k of 2 of a 40-seed campaign.
func shard(k int) string {
	out := filepath.Join(tmp, fmt.Sprintf("shard%d", k))
	sum, err := mcsdk.Campaign(display.Context(), m, mcsdk.CampaignOptions{Seeds: 40, ShardK: k, ShardN: 2, Out: out})
	if err != nil {
		panic(err)
	}
	fmt.Printf("shard %d/2: %d runs\n", k, sum.Runs)
	return out
}
shards := []string{shard(1), shard(2)}
"""),
("markdown", "## Merge the shards into one dataset"),
("code", r"""
merged := filepath.Join(tmp, "merged")
res, err := dataset.Merge(merged, shards...)
if err != nil {
	panic(err)
}
man, err := dataset.ReadManifest(merged)
if err != nil {
	panic(err)
}
fmt.Printf("merged %d rows (%d duplicates, %d recordings); variants %v; seeds %v\n", res.Rows, res.Duplicates, res.Recordings, man.VariantNames(), man.Seeds)
"""),
("markdown", "## Filter: the violating runs of the bug variant"),
("code", r"""
d, err := dataset.Open(merged)
if err != nil {
	panic(err)
}
bad, err := d.Rows(dataset.Filter{Variants: []string{"bug"}, Verdicts: []string{dataset.Violated}})
if err != nil {
	panic(err)
}
for _, r := range bad {
	fmt.Printf("seed %3d %s %v after %d steps, recording %s\n", r.Seed, r.Verdict, r.ViolatedInvariants, r.Steps, r.RecordingPath)
}
"""),
("markdown", "## The Arrow schema"),
("code", r"""
for _, f := range dataset.Schema().Fields() {
	fmt.Printf("  %-22s %s\n", f.Name, f.Type)
}
"""),
("markdown", "## Export for other tools"),
("code", r"""
func export(f dataset.Format) {
	out := filepath.Join(tmp, "election."+string(f))
	n, err := dataset.Export(out, f, dataset.Filter{}, merged)
	if err != nil {
		panic(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%-8s %4d rows %7d bytes  %s\n", f, n, st.Size(), filepath.Base(out))
}
export(dataset.FormatParquet)
export(dataset.FormatCSV)
export(dataset.FormatArrow)
os.RemoveAll(tmp)
"""),
]
tour = [
("markdown", r"""
# 04 — The Go kernel: any module, tables, magics

What the *Go (weft)* kernel offers beyond weft's own packages: gonum, arrow-go and go-echarts import like
the standard library (their symbols are bound into the kernel), `%go get` fetches any other module through the
Go module proxy and keeps the session's state, tabular values show as HTML tables, and the magics
`%help`, `%time`, `%%time`, `%env`, `%timeout`, `!shell` and `?name` work as in IPython. The data: a small
campaign of the `election` target.
"""),
("code", r"""
import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
)

""" + repo_root("targets/election/election.model") + r"""
tmp, err := os.MkdirTemp("", "weft-notebook-04-")
if err != nil {
	panic(err)
}
m, err := model.Load("targets/election/election.model")
if err != nil {
	panic(err)
}
out := filepath.Join(tmp, "election")
if _, err := mcsdk.Campaign(display.Context(), m, mcsdk.CampaignOptions{Seeds: 40, Out: out}); err != nil {
	panic(err)
}
d, err := dataset.Open(out)
if err != nil {
	panic(err)
}
rows, err := d.Rows(dataset.Filter{})
if err != nil {
	panic(err)
}
fmt.Println(len(rows), "runs of", d.Variants())
"""),
("markdown", "## A dataset's rows are a table (the first 20, and the total)"),
("code", r"""
rows
"""),
("markdown", """
## gonum: a Fisher-style combined p-value, by hand

Split the seeds into two halves (as two independent runs), test in each half whether `bug` violates more often
than `fixed` (a one-sided two-proportion z-test), and combine the two p-values with Fisher's method:
X = −2 Σ ln pᵢ follows χ² with 2k degrees of freedom under the null hypothesis.
"""),
("code", r"""
import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// violated returns 1/0 per run of variant v in the seeds with the given parity.
func violated(v string, parity int64) []float64 {
	var xs []float64
	for _, r := range rows {
		if r.Variant == v && r.Seed%2 == parity {
			x := 0.0
			if r.Verdict == dataset.Violated {
				x = 1
			}
			xs = append(xs, x)
		}
	}
	return xs
}

// zTest is the one-sided p-value of rate(a) > rate(b).
func zTest(a, b []float64) float64 {
	pa, pb := stat.Mean(a, nil), stat.Mean(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	pool := (pa*na + pb*nb) / (na + nb)
	se := math.Sqrt(pool * (1 - pool) * (1/na + 1/nb))
	if se == 0 {
		return 1
	}
	return distuv.UnitNormal.Survival((pa - pb) / se)
}

ps := []float64{zTest(violated("bug", 0), violated("fixed", 0)), zTest(violated("bug", 1), violated("fixed", 1))}
x := 0.0
for _, p := range ps {
	x += -2 * math.Log(math.Max(p, 1e-300))
}
combined := distuv.ChiSquared{K: float64(2 * len(ps))}.Survival(x)
fmt.Printf("half p-values %.3g, %.3g; Fisher X = %.2f, combined p = %.3g\n", ps[0], ps[1], x, combined)
"""),
("markdown", "## go-echarts directly: a histogram of `first_violation_time`"),
("code", r"""
import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

const bins = 8
var times []float64
for _, r := range rows {
	if r.FirstViolationTime != nil {
		times = append(times, float64(*r.FirstViolationTime)/1e6) // ms
	}
}
lo, hi := times[0], times[0]
for _, t := range times {
	lo, hi = math.Min(lo, t), math.Max(hi, t)
}
width := math.Max((hi-lo)/bins, 1e-9)
counts := make([]int, bins)
for _, t := range times {
	b := int((t - lo) / width)
	if b >= bins {
		b = bins - 1
	}
	counts[b]++
}
labels := make([]string, bins)
items := make([]opts.BarData, bins)
for i := range counts {
	labels[i] = fmt.Sprintf("%.1f", lo+float64(i)*width)
	items[i] = opts.BarData{Value: counts[i]}
}
hist := charts.NewBar()
hist.SetGlobalOptions(charts.WithTitleOpts(opts.Title{Title: "first_violation_time (ms of virtual time)"}))
hist.SetXAxis(labels).AddSeries("violating runs", items)
hist
"""),
("markdown", """
## Any other module: `%go get`, with the session's state kept

`%go get` runs the go command (through `GOPROXY`) and builds the module's packages, pinned to the kernel's
dependency versions; a cell that uses them is compiled and run in a child process, as `go run` would run it
(`kernel/README.md`). `combined` from above is still in scope: its value is passed to the compiled cell.
"""),
("code", r"""
%go get github.com/cespare/xxhash/v2@v2.3.0
"""),
("code", r"""
import "github.com/cespare/xxhash/v2"

// (This cell runs compiled: it uses a package fetched by %go get.
// combined, a float64 of the interpreter, is passed in as a literal.)
id := xxhash.Sum64String(fmt.Sprintf("weft/election/%.6f", combined))
fmt.Println("campaign id", id, "p =", combined)
"""),
("markdown", "## Rich output, stderr, redefinition"),
("code", r"""
Display(display.HTML("<b>x</b>"))
fmt.Fprintln(os.Stderr, "x")
"""),
("code", r"""
type Run struct{ Seed int64 }
Run{1}
"""),
("code", r"""
type Run struct {
	Seed    int64
	Verdict string
}
Run{2, "holds"}
"""),
("markdown", "## Magics"),
("code", r"""
%%time
n := 0
for _, r := range rows {
	if r.Verdict == dataset.Violated {
		n++
	}
}
n
"""),
("code", r"""
%env WEFT_TOUR=1
!echo "shell sees WEFT_TOUR=$WEFT_TOUR"
os.RemoveAll(tmp)
"""),
]

json.dump(nb(m4), open("01-m4-replicated-register.ipynb","w"), indent=1)

paxos = [
("markdown", r"""
# 05 — Multi-Paxos: clients' histories, agreement and linearizability

`targets/paxos/paxos.c` is a Multi-Paxos replicated log behind a key-value client API on three real node
processes (UDP between nodes, TCP clients, the acceptor's promise and accepted values `fsync`'d before each
reply). The model (`targets/paxos/paxos.model`) runs three workload clients (gets and puts on two keys; which
operation, value, node and when are drawn from the seed), one crash of node 1 with a restart that loses unsynced
writes, and a partition isolating node 0. Invariants: `agreement` and `validity` per slot over the declared
`chosen[]`, and `linearizable = "porcupine:kv"` over the clients' history.

Variant `bug` answers a PREPARE before its promise is durable, which a run needs a crash at the right moment to
show: a few seeds in a thousand. The notebook opens the 2 × 2000 campaign shipped in `datasets/shipped/paxos-2000`
(made by `scripts/datasets.sh` from the same model; the README has its numbers); `WEFT_NOTEBOOK_SEEDS=N` reruns it
at N seeds per variant into `WEFT_DATASETS` (default `datasets/`), resumable, with progress and an ETA.
"""),
("code", r"""
import (
	"fmt"
	"html"
	"os"
	"strconv"
	"time"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
)

""" + repo_root("targets/paxos/paxos.model") + EVIDENCE_GO + r"""
m, err := model.Load("targets/paxos/paxos.model")
if err != nil {
	panic(err)
}
"""),
("markdown", "## The campaign: both variants on the same seeds (same faults, same client draws)"),
("code", r"""
dir, seeds := evidence("paxos", 2000, m, mcsdk.CampaignOptions{})
fmt.Println("seeds per variant:", seeds)
"""),
("markdown", "## Rates with intervals"),
("code", r"""
rows, err := dataset.ReadRows(dir)
if err != nil {
	panic(err)
}
outcomes := make([]analysis.Outcome, len(rows))
for i, r := range rows {
	outcomes[i] = analysis.Outcome{Variant: r.Variant, Run: r.RunID, Verdict: r.Verdict, Seed: r.Seed}
}
table, err := analysis.Tally(outcomes)
if err != nil {
	panic(err)
}
table = table.Reorder([]string{"correct", "bug"})
summary, err := analysis.Summarize(table, analysis.SummaryOptions{})
if err != nil {
	panic(err)
}
summary
"""),
("code", r"""
func paxosBars() []charts.RateBar {
	var bars []charts.RateBar
	for _, c := range table.Counts() {
		iv, err := analysis.WilsonInterval(c, 0.95)
		if err != nil {
			continue
		}
		bars = append(bars, charts.RateBar{Variant: c.Group, Rate: float64(c.Successes) / float64(c.Trials), Lo: iv.Lower, Hi: iv.Upper, K: c.Successes, N: c.Trials})
	}
	return bars
}
rates, err := charts.Rates("paxos-rates", paxosBars())
if err != nil {
	panic(err)
}
rates
"""),
("markdown", "## Claims: the bug's rate is above 0; the correct variant's is below an exact bound"),
("code", r"""
// upperBound prints the exact one-sided 95% upper bound on the correct
// variant's rate.
func upperBound() {
	for _, c := range table.Counts() {
		if c.Group != "correct" {
			continue
		}
		ub, err := analysis.ClopperPearsonBound(c, 0.95, analysis.Less)
		if err != nil {
			panic(err)
		}
		fmt.Printf("correct: %d violations in %d valid runs; exact one-sided 95%% upper bound on its rate: %.3f%%\n", c.Successes, c.Trials, 100*ub)
	}
}
upperBound()
func parseClaims(texts ...string) []analysis.Claim {
	var claims []analysis.Claim
	for _, text := range texts {
		c, err := analysis.ParseClaim(text)
		if err != nil {
			panic(err)
		}
		claims = append(claims, c)
	}
	return claims
}
claimReport, err := analysis.EvaluateClaims(parseClaims("rate(bug) > 0%", "rate(correct) <= 1%"), table)
if err != nil {
	panic(err)
}
claimReport
"""),
("markdown", r"""
## One traced violation: seed 119 of the bug variant

Node 1 promised ballot 6 to node 0 without making the promise durable, crashed, and came back with its older,
durable promise of ballot 5; it then accepted ballot 5's command for slot 1, which node 2 (leading ballot 5)
learned as chosen, while node 0's ballot 6, whose promises predate that acceptance, had already chosen another
command for the same slot. `weft trace` shows the same from the recording; `targets/paxos/README.md` walks through
it. The same seed of the correct variant holds.
"""),
("code", r"""
bug, err := mcsdk.Run(m, mcsdk.RunOptions{Variant: "bug", Seed: 119})
if err != nil {
	panic(err)
}
fmt.Printf("bug, seed 119: %s %v at step %d (%s of virtual time); %d operations, %d indeterminate\n",
	bug.Verdict, bug.Violated, bug.FirstViolationStep, bug.FirstViolationTime, bug.Ops, bug.OpsIndeterminate)
fmt.Println(bug.FirstViolation.Why)
// traceEvents prints the history, the faults and the declared promises
// and chosen commands, step by step.
func traceEvents(res *mcsdk.RunResult) {
	for _, e := range res.Events {
		switch e.Kind {
		case "crash", "restart", "invoke", "return", "expire":
			fmt.Printf("%4d %9.3fms  %-7s n%d %s %s\n", e.Step, float64(e.T)/1000, e.Kind, e.Node, e.Var, e.Value)
		case "state":
			if e.Var == "chosen" || e.Var == "promised" {
				fmt.Printf("%4d %9.3fms  n%d.%s = %s\n", e.Step, float64(e.T)/1000, e.Node, e.Var, e.Value)
			}
		}
	}
}
traceEvents(bug)
ok, err := mcsdk.Run(m, mcsdk.RunOptions{Variant: "correct", Seed: 119})
if err != nil {
	panic(err)
}
fmt.Println("correct, seed 119:", ok.Verdict)
"""),
("markdown", r"""
## Its clients' history, as Porcupine sees it

Agreement broke first; the history up to that point, checked against the key-value model (partitioned by key),
and Porcupine's visualisation of it. For a history that cannot be linearized (`targets/quorum/register.model`,
variant `bug`), `weft check` and `weft campaign` write the same visualisation beside the saved path or recording,
and the text names the longest linearizable prefix and the operations that cannot be ordered after it.
"""),
("code", r"""
text, page, err := bug.Linearizability(m)
if err != nil {
	panic(err)
}
fmt.Println(text)
display.HTML(`<iframe style="width:100%;height:380px;border:0" srcdoc="` + html.EscapeString(page) + `"></iframe>`)
"""),
]

json.dump(nb(chord), open("02-chord-liveness-discipline.ipynb","w"), indent=1)
json.dump(nb(ds), open("03-datasets.ipynb","w"), indent=1)
json.dump(nb(tour), open("04-go-kernel.ipynb","w"), indent=1)
json.dump(nb(paxos), open("05-paxos.ipynb","w"), indent=1)

# The consensus notebooks (issue 17): one template, two targets.
CONSENSUS_SHIPPED = 200 # seeds per variant of the shipped zab and humming datasets (scripts/datasets.sh)
def consensus(num, name, title, intro, seed, shown, claim_bug, story):
    return [
("markdown", f"""
# {num} — {title}

{intro}

The notebook opens the 2 × {CONSENSUS_SHIPPED} campaign shipped in `datasets/shipped/{name}-{CONSENSUS_SHIPPED}` (made by
`scripts/datasets.sh` from the same model); `WEFT_NOTEBOOK_SEEDS=N` reruns it at N seeds per variant (500, as in
`scripts/consensus-campaigns.sh`, gives the README's numbers) into `WEFT_DATASETS` (default `datasets/`), resumable,
with progress and an ETA.
"""),
("code", f"""
import (
	"fmt"
	"html"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// Notebooks run from the repository root, wherever Jupyter started them.
func repoRoot() string {{
	for _, d := range []string{{".", ".."}} {{
		if _, err := os.Stat(d + "/targets/{name}/{name}.model"); err == nil {{
			return d
		}}
	}}
	return "."
}}
os.Chdir(repoRoot())
""" + EVIDENCE_GO + f"""
m, err := model.Load("targets/{name}/{name}.model")
if err != nil {{
	panic(err)
}}
"""),
("markdown", """
## Faults of one seed: crash, restart, partitions and each node's clock

Every seed draws its crash and restart times, its partitions, each node's clock offset and rate (from a stream of
their own, so models without clock faults keep their seeds' runs), the messages' latencies and the clients'
operations. The same seed gives both variants the same faults.
"""),
("code", f"""
first, err := mcsdk.Run(m, mcsdk.RunOptions{{Variant: "correct", Seed: {seed}}})
if err != nil {{
	panic(err)
}}
for _, p := range first.Params {{
	fmt.Printf("%-10s %s\\n", p.Name, p.Value)
}}
fmt.Printf("correct, seed {seed}: %s after %d steps\\n", first.Verdict, first.Steps)
"""),
("markdown", "## The campaign: both variants on the same seeds"),
("code", f"""
dir, seeds := evidence("{name}", {CONSENSUS_SHIPPED}, m, mcsdk.CampaignOptions{{}})
fmt.Println("seeds per variant:", seeds)
"""),
("markdown", "## Rates with intervals"),
("code", """
rows, err := dataset.ReadRows(dir)
if err != nil {
	panic(err)
}
outcomes := make([]analysis.Outcome, len(rows))
for i, r := range rows {
	outcomes[i] = analysis.Outcome{Variant: r.Variant, Run: r.RunID, Verdict: r.Verdict, Seed: r.Seed}
}
table, err := analysis.Tally(outcomes)
if err != nil {
	panic(err)
}
table = table.Reorder([]string{"correct", "bug"})
summary, err := analysis.Summarize(table, analysis.SummaryOptions{})
if err != nil {
	panic(err)
}
summary
"""),
("code", f"""
func rateBars() []charts.RateBar {{
	var bars []charts.RateBar
	for _, c := range table.Counts() {{
		iv, err := analysis.WilsonInterval(c, 0.95)
		if err != nil {{
			continue
		}}
		bars = append(bars, charts.RateBar{{Variant: c.Group, Rate: float64(c.Successes) / float64(c.Trials), Lo: iv.Lower, Hi: iv.Upper, K: c.Successes, N: c.Trials}})
	}}
	return bars
}}
rates, err := charts.Rates("{name}-rates", rateBars())
if err != nil {{
	panic(err)
}}
rates
"""),
("markdown", "## Claims: the bug is found; the correct variant's rate is below an exact bound"),
("code", f"""
// upperBound prints the exact one-sided 95% upper bound on the correct
// variant's rate.
func upperBound() {{
	for _, c := range table.Counts() {{
		if c.Group != "correct" {{
			continue
		}}
		ub, err := analysis.ClopperPearsonBound(c, 0.95, analysis.Less)
		if err != nil {{
			panic(err)
		}}
		fmt.Printf("correct: %d violations in %d valid runs; exact one-sided 95%% upper bound on its rate: %.3f%%\\n", c.Successes, c.Trials, 100*ub)
	}}
}}
upperBound()
func parseClaims(texts ...string) []analysis.Claim {{
	var claims []analysis.Claim
	for _, text := range texts {{
		c, err := analysis.ParseClaim(text)
		if err != nil {{
			panic(err)
		}}
		claims = append(claims, c)
	}}
	return claims
}}
claimReport, err := analysis.EvaluateClaims(parseClaims("{claim_bug}", "rate(correct) <= 1%"), table)
if err != nil {{
	panic(err)
}}
claimReport
"""),
("markdown", f"""
## One traced violation: seed {seed} of the bug variant

{story}
"""),
("code", f"""
bug, err := mcsdk.Run(m, mcsdk.RunOptions{{Variant: "bug", Seed: {seed}}})
if err != nil {{
	panic(err)
}}
fmt.Printf("bug, seed {seed}: %s %v at step %d (%s of virtual time); %d operations, %d indeterminate\\n",
	bug.Verdict, bug.Violated, bug.FirstViolationStep, bug.FirstViolationTime, bug.Ops, bug.OpsIndeterminate)
fmt.Println(bug.FirstViolation.Why)
// traceEvents prints the faults, the clients' history and the declared
// state that tells the story, step by step.
func traceEvents(res *mcsdk.RunResult) {{
	shown := map[string]bool{{{shown}}}
	for _, e := range res.Events {{
		switch e.Kind {{
		case "crash", "restart", "partition", "heal", "clock", "invoke", "return", "expire":
			fmt.Printf("%4d %9.3fms  %-9s n%d %s %s\\n", e.Step, float64(e.T)/1000, e.Kind, e.Node, e.Var, e.Value)
		case "state":
			if shown[e.Var] && e.Step > 0 {{
				fmt.Printf("%4d %9.3fms  n%d.%s = %s\\n", e.Step, float64(e.T)/1000, e.Node, e.Var, strings.TrimSuffix(e.Value, ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"))
			}}
		}}
	}}
}}
traceEvents(bug)
ok, err := mcsdk.Run(m, mcsdk.RunOptions{{Variant: "correct", Seed: {seed}}})
if err != nil {{
	panic(err)
}}
fmt.Printf("correct, seed {seed}: %s\\n", ok.Verdict)
"""),
("markdown", f"""
## The shrunk recording replays

`targets/{name}/bug-{seed}.shrunk.weftlog` is `weft shrink`'s result for this seed (the run ends at the first
violation); `weft trace` prints its timeline, and replaying it re-executes the real binaries and checks every
observation.
"""),
("code", f"""
data, err := os.ReadFile("targets/{name}/bug-{seed}.shrunk.weftlog")
if err != nil {{
	panic(err)
}}
rec, err := weftlog.Decode(data)
if err != nil {{
	panic(err)
}}
replayed, div, err := mcsdk.Replay(m, rec, mcsdk.RunOptions{{}})
if err != nil {{
	panic(err)
}}
fmt.Printf("shrunk recording: %d choices; replayed: %s %v, divergence: %v\\n", len(rec.Choices), replayed.Verdict, replayed.Violated, div)
"""),
("markdown", "## The clients' history, as Porcupine sees it"),
("code", """
text, page, err := bug.Linearizability(m)
if err != nil {
	panic(err)
}
fmt.Println(text)
display.HTML(`<iframe style="width:100%;height:380px;border:0" srcdoc="` + html.EscapeString(page) + `"></iframe>`)
"""),
]

zab_nb = consensus("06", "zab", "ZAB: a new leader that broadcasts before synchronising",
"""`targets/zab/zab.c` is ZooKeeper's atomic broadcast (election, discovery, synchronisation, broadcast with a
quorum of acknowledgements) behind a key-value client API on three real node processes (UDP between nodes, TCP
clients, epochs and history `fsync`'d before each reply). The model (`targets/zab/zab.model`) runs three workload
clients, one crash of node 2 (the first leader) with a restart that loses unsynced writes, a partition isolating
node 0, and clock faults (offsets up to ±50 ms, rates up to ±200 ppm). Invariants: `prefix` (any two nodes'
delivered sequences agree), `one_leader` (one established leader per epoch) and `linearizable = "porcupine:kv"`.

Variant `bug` establishes a new leader as soon as a quorum acknowledges its epoch, without synchronising the
followers' histories.""",
1, '"delivered": true, "epoch": true, "established": true', "rate(bug) > 0%",
"""Node 2 leads epoch 1 without synchronising node 0, which keeps its empty history; transactions committed by
{n2, n1} and acknowledged to clients never reach it. Node 2 crashes, restarts with its durable history and leads
epoch 2, again without synchronising node 0, which logs epoch 2's first transaction as its first entry and
delivers it: the committed transactions are lost from its history (`prefix` fails). `targets/zab/README.md`
walks through the same trace; the same seed of the correct variant holds.""")

hum_nb = consensus("07", "humming", "Humming Consensus: adopting a projection without the epoch check",
"""`targets/humming/humming.c` is Humming Consensus, the chain manager of Machi: projections (an epoch and a
chain) written to every node's write-once public store, adopted when unanimous, over a chain-replicated key-value
store on three real node processes. The model (`targets/humming/humming.model`) runs three workload clients, one
crash with a restart that loses unsynced writes, two partitions (isolating node 2, then node 0) and clock faults.
Invariants: `one_value_per_version` (a version names one write) and `linearizable = "porcupine:kv"`.

Variant `bug` adopts a projection another node reports without checking that its epoch is newer.""",
83, '"epoch": true, "upi": true, "val": true, "ver": true', "rate(bug) > 0%",
"""Node 0, cut off while nodes 1 and 2 form epoch 2 (chain 1→2), still reports epoch 1 after the heal; nodes 1
and 2 go back to it, then forward again, several times: both chains serve operations in turn, and each adoption
starts the head's version sequence over, until node 1 gives a new write the version 20001 that an acknowledged
write already holds at node 2 (`one_value_per_version` fails). `targets/humming/README.md` walks through the same
trace; the same seed of the correct variant holds.""")

json.dump(nb(zab_nb), open("06-zab.ipynb","w"), indent=1)
json.dump(nb(hum_nb), open("07-humming.ipynb","w"), indent=1)

# 08-raft (issue 17's Raft part; the issue's 05 is taken by Paxos): etcd's
# raft v3.7.0, one model per variant (a prebuilt Go binary takes its
# variant as an argument, not as compiler flags).
raft_nb = [
("markdown", """
# 08 — Raft on etcd's raft library: fsync after the send loses a committed entry; a deposed leader's lease serves a stale read

`targets/raft/kv` is a key-value server on `go.etcd.io/raft/v3` v3.7.0, used as its documentation says: a TCP
transport between three real node processes (Go's `net` package with its defaults: keep-alive, the IPv6 probe),
the HardState and entries persisted with `fsync` before the messages of the same `Ready` are sent, linearizable
reads through `ReadIndex`, and snapshots as etcd's raftexample takes them (every few applied entries the state
machine is snapshotted and the log compacted; a restarted node loads its snapshot, a follower behind is sent the
leader's). (The issue numbers this notebook 05; 05 is the Paxos notebook, so Raft is 08.)

A Go binary cannot take weft's variants as compiler flags, so each variant is a model of its own,
`targets/raft/kv/raft-VARIANT.model`, passing the variant as an argument:

- `correct`: three crashes with restarts that lose unsynced writes, two partitions, clock offsets, drift and
  jumps;
- `persist-late`: the same faults but jumps; entries and HardState are written before the messages are sent and
  `fsync`'d only at the next tick;
- `lease-unsafe`: reads by the leader's lease (`ReadOnlyLeaseBased`; v3.7.0 refuses it without `CheckQuorum`, so
  with it), at etcd's default timing and aimed at the deposed leader's lease: one partition cutting node 0 off
  for 2.4 s, one crash with a restart that loses unsynced writes, clock rates up to ±10%, a LAN's latency, a
  client per node, 50 ms timeouts (`targets/raft/README.md` works out the window).

Invariants over declared globals: `election_safety`, `log_matching`, `state_machine_safety`, `lost_committed`
(every applied entry is in a majority of the nodes' logs) and `linearizable = "porcupine:kv"`.

The notebook opens the campaigns shipped in `datasets/shipped` (made by `scripts/datasets.sh` from the same models):
seeds 1–40 of `correct`, 1–60 of `persist-late` and 1–25 of `lease-unsafe`, whose runs take 15 s each.
`WEFT_NOTEBOOK_SEEDS=N` reruns each at N seeds (500, as in `scripts/raft-campaigns.sh`, gives the README's numbers:
hours on 2 cores) into `WEFT_DATASETS` (default `datasets/`), resumable, with progress and an ETA. Build the server
first:
`(cd targets/raft && CGO_ENABLED=0 go build -trimpath -o kv/kv ./kv)` (static and free of build paths, so the
binary, and with it the recordings, are the same on every machine with the same Go).
"""),
("code", """
import (
	"fmt"
	"html"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

""" + repo_root("targets/raft/kv/raft-correct.model") + EVIDENCE_GO + r"""
variants := []string{"correct", "persist-late", "lease-unsafe"}
// shipped is the seeds of each variant's shipped dataset.
shipped := map[string]int{"correct": 40, "persist-late": 60, "lease-unsafe": 25}
// loadModels loads each variant's model.
func loadModels() map[string]*model.Model {
	models := map[string]*model.Model{}
	for _, v := range variants {
		m, err := model.Load("targets/raft/kv/raft-" + v + ".model")
		if err != nil {
			panic(err)
		}
		models[v] = m
	}
	return models
}
models := loadModels()
"""),
("markdown", """
## Faults of one seed: crashes, restarts, partitions and each node's clock

Every seed draws its crash and restart times, its partitions, each node's clock offset, rate and jumps, the
messages' latencies and the clients' operations.
"""),
("code", """
first, err := mcsdk.Run(models["correct"], mcsdk.RunOptions{Seed: 42})
if err != nil {
	panic(err)
}
for _, p := range first.Params {
	fmt.Printf("%-10s %s\\n", p.Name, p.Value)
}
fmt.Printf("correct, seed 42: %s after %d steps\\n", first.Verdict, first.Steps)
"""),
("markdown", "## The campaigns: each variant on the same seeds"),
("code", """
// campaigns opens (or reruns) each variant's campaign and returns every
// run's outcome, named by its variant.
func campaigns() []analysis.Outcome {
	var outcomes []analysis.Outcome
	for _, v := range variants {
		outcomes = append(outcomes, campaign(v)...)
	}
	return outcomes
}
// campaign opens (or reruns) one variant's campaign.
func campaign(v string) []analysis.Outcome {
	dir, _ := evidence("raft-"+v, shipped[v], models[v], mcsdk.CampaignOptions{FirstSeed: 1})
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		panic(err)
	}
	var outcomes []analysis.Outcome
	for _, r := range rows {
		// Each model has one variant ("default"): name it after the model.
		outcomes = append(outcomes, analysis.Outcome{Variant: v, Run: r.RunID, Verdict: r.Verdict, Seed: r.Seed})
	}
	return outcomes
}
outcomes := campaigns()
"""),
("markdown", "## Rates with intervals"),
("code", """
table, err := analysis.Tally(outcomes)
if err != nil {
	panic(err)
}
table = table.Reorder(variants)
summary, err := analysis.Summarize(table, analysis.SummaryOptions{})
if err != nil {
	panic(err)
}
summary
"""),
("code", """
func rateBars() []charts.RateBar {
	var bars []charts.RateBar
	for _, c := range table.Counts() {
		iv, err := analysis.WilsonInterval(c, 0.95)
		if err != nil {
			continue
		}
		bars = append(bars, charts.RateBar{Variant: c.Group, Rate: float64(c.Successes) / float64(c.Trials), Lo: iv.Lower, Hi: iv.Upper, K: c.Successes, N: c.Trials})
	}
	return bars
}
rates, err := charts.Rates("raft-rates", rateBars())
if err != nil {
	panic(err)
}
rates
"""),
("markdown", "## Claims: persist-late's and lease-unsafe's bugs are found; correct's rate is below an exact bound"),
("code", """
// upperBound prints the exact one-sided 95% upper bound on a variant's rate.
func upperBound(variant string) {
	for _, c := range table.Counts() {
		if c.Group != variant {
			continue
		}
		ub, err := analysis.ClopperPearsonBound(c, 0.95, analysis.Less)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d violations in %d valid runs; exact one-sided 95%% upper bound on its rate: %.3f%%\\n", variant, c.Successes, c.Trials, 100*ub)
	}
}
upperBound("correct")
func parseClaims(texts ...string) []analysis.Claim {
	var claims []analysis.Claim
	for _, text := range texts {
		c, err := analysis.ParseClaim(text)
		if err != nil {
			panic(err)
		}
		claims = append(claims, c)
	}
	return claims
}
claimReport, err := analysis.EvaluateClaims(parseClaims("rate(persist-late) > 0%", "rate(lease-unsafe) > 0%", "rate(correct) <= 1%"), table)
if err != nil {
	panic(err)
}
claimReport
"""),
("markdown", """
## One traced violation: seed 42 of persist-late

Node 2 leads term 2 (111.8 ms). A client's put reaches it through node 0, and node 2 appends it as entry 7
(139.6 ms); at 140.4 ms a partition cuts node 0 off, so node 1's acknowledgement is the one a commit needs. Node 1
appends entry 7 and acknowledges it at once (144.0 ms), to `fsync` it at its next tick, and with that
acknowledgement node 2 commits and applies entry 7 (148.658 ms). Node 1 crashes before its tick (148.662 ms): the
write it acknowledged was never synced and is lost. It restarts (202.0 ms) from its snapshot at index 6 with no
entry after it: committed entry 7 is now in one log out of three, node 2's (`lost_committed` fails), and nodes 0
and 1 may now elect a leader without it and overwrite it. When the leader's heartbeat tells such a follower a
commit index beyond its log, etcd's raft panics (`tocommit(N) is out of range [lastIndex(N-1)]. Was the raft log
corrupted, truncated, or lost?`): that is how runs end where the entry was still on a majority
(`no_node_crash`). The same seed of the correct variant holds.
"""),
("code", """
late, err := mcsdk.Run(models["persist-late"], mcsdk.RunOptions{Seed: 42})
if err != nil {
	panic(err)
}
fmt.Printf("persist-late, seed 42: %s %v at step %d (%s of virtual time); %d operations, %d indeterminate\\n",
	late.Verdict, late.Violated, late.FirstViolationStep, late.FirstViolationTime, late.Ops, late.OpsIndeterminate)
fmt.Println(late.FirstViolation.Why)
// traceEvents prints the faults and the declared state that tells the
// story, step by step, up to the first violation.
func traceEvents(res *mcsdk.RunResult) {
	shown := map[string]bool{"raft_term": true, "raft_role": true, "raft_commit": true, "log_term": true}
	for _, e := range res.Events {
		if e.Step > res.FirstViolationStep {
			break
		}
		switch e.Kind {
		case "crash", "restart", "partition", "heal", "clock", "invoke", "return", "expire":
			fmt.Printf("%4d %9.3fms  %-9s n%d %s %s\\n", e.Step, float64(e.T)/1000, e.Kind, e.Node, e.Var, e.Value)
		case "state":
			if shown[e.Var] && e.Step > 0 {
				fmt.Printf("%4d %9.3fms  n%d.%s = %s\\n", e.Step, float64(e.T)/1000, e.Node, e.Var, strings.TrimSuffix(e.Value, ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"))
			}
		}
	}
}
traceEvents(late)
ok, err := mcsdk.Run(models["correct"], mcsdk.RunOptions{Seed: 42})
if err != nil {
	panic(err)
}
fmt.Printf("correct, seed 42 again: %s\\n", ok.Verdict)
"""),
("markdown", """
## The shrunk recording replays

`targets/raft/kv/persist-late-42.shrunk.weftlog` is `weft shrink`'s result for this seed (four faults fewer, the run
ends at the first violation); `weft trace` prints its timeline, and replaying it re-executes the real binaries and
checks every observation.
"""),
("code", """
data, err := os.ReadFile("targets/raft/kv/persist-late-42.shrunk.weftlog")
if err != nil {
	panic(err)
}
rec, err := weftlog.Decode(data)
if err != nil {
	panic(err)
}
replayed, div, err := mcsdk.Replay(models["persist-late"], rec, mcsdk.RunOptions{})
if err != nil {
	panic(err)
}
fmt.Printf("shrunk recording: %d choices; replayed: %s %v, divergence: %v\\n", len(rec.Choices), replayed.Verdict, replayed.Violated, div)
"""),
("markdown", """
## lease-unsafe: the deposed leader's lease (seed 21)

With `ReadOnlyLeaseBased` and `CheckQuorum` a leader answers a read from its own state at once and steps down only
at a quorum check that finds no follower heard from since the previous one: up to two election timeouts after it
was cut off, by its own clock. The majority elects a new leader after one. `lease-unsafe` runs etcd's default
timing (`kv -tick=100ms`: 1 s election timeout) with a 2.4 s partition cutting node 0 off at 2.2 s; on seed 21
node 0, leader of term 2 with a clock 6.2 % slow, is cut off; node 1 leads term 3 1.08 s later, and clients put
2 and 3 into key 21 through the majority, acknowledged; 294 ms after the put of 3, node 0, still leader of term 2,
answers a read of key 21 with the old 1 (`targets/raft/README.md` goes through it step by step). Its shrunk
recording, read without re-executing it (replaying its 3.6 s takes about half a minute):
"""),
("code", """
leaseData, err := os.ReadFile("targets/raft/kv/lease-unsafe-21.shrunk.weftlog")
if err != nil {
	panic(err)
}
lease, err := weftlog.Decode(leaseData)
if err != nil {
	panic(err)
}
fmt.Printf("lease-unsafe, seed %d: %s %v at step %d\\n%s\\n", lease.Header.Seed, lease.Verdict.Verdict, lease.Verdict.Violated, lease.Verdict.FirstViolationStep, lease.Verdict.Detail)
for _, e := range lease.Events {
	f := strings.Fields(e.Value) // a client's operation: "get 21 → 1", "put 21 3"
	key21 := (e.Kind == "invoke" || e.Kind == "return" || e.Kind == "expire") && len(f) >= 2 && f[1] == "21"
	role := e.Kind == "state" && (e.Var == "raft_role" || e.Var == "raft_term") && e.Step > 0
	if (key21 || role || e.Kind == "partition") && e.T >= 1_000_000 {
		fmt.Printf("%6d %9.3fms  %-9s n%d %s %s\\n", e.Step, float64(e.T)/1000, e.Kind, e.Node, e.Var, e.Value)
	}
}
"""),
("markdown", "## The clients' history of the persist-late run, as Porcupine sees it"),
("code", """
text, page, err := late.Linearizability(models["persist-late"])
if err != nil {
	panic(err)
}
fmt.Println(text)
display.HTML(`<iframe style="width:100%;height:380px;border:0" srcdoc="` + html.EscapeString(page) + `"></iframe>`)
"""),
]
json.dump(nb(raft_nb), open("08-raft.ipynb","w"), indent=1)
