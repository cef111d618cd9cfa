// Command section writes the consensus section of a weft report (issue
// 17): for each target, the runs of every variant with the faults they
// had — crashes, restarts, partitions, lost unsynced writes, clock offsets,
// rates and jumps —, the violation rates with Wilson intervals, the
// falsification claims rate(V) > 0% for every variant V but correct and
// rate(correct) <= 1%, whether a second run of each campaign (the same path
// with run2 for run1) gave the same verdict seed by seed, and the traced,
// shrunk violation of every bug variant (V-*.shrunk.weftlog beside the
// target's model).
//
// A dataset is one campaign. A target whose model has its variants
// (targets/zab/zab.model: correct and bug) is one dataset; a target with
// one model per variant, named PREFIX-VARIANT.model (Raft's
// targets/raft/kv/raft-correct.model, raft-persist-late.model, …: a
// prebuilt Go binary takes its variant as an argument, not as a compiler
// flag), is one dataset per variant, and the datasets whose models share a
// directory and a prefix form one table, each run counted under the
// variant its model's name gives.
//
//	go run ./targets/consensus/section -o FILE DATASET...
//	weft report DATASET... --section FILE -o report.html
package main

import (
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "section:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("section", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the section (HTML) to this `FILE` (default: stdout)")
	rows := fs.Int("trace-rows", 60, "the most events a traced violation lists")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: section [-o FILE] [--trace-rows N] DATASET...\n\nthe consensus section of weft report: faults, rates with intervals, claims and the shrunk violation per target\n\nflags (before or after the arguments):")
		fs.PrintDefaults()
	}
	var dirs []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(dirs) == 0 {
		fs.Usage()
		return fmt.Errorf("want at least one dataset directory")
	}
	var b strings.Builder
	b.WriteString("<section class=\"consensus\">\n<h2>Consensus: faults, rates, claims and the shrunk violation</h2>\n")
	groups, err := readGroups(dirs)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if err := g.write(&b, *rows); err != nil {
			return fmt.Errorf("%s: %w", g.camps[0].dir, err)
		}
	}
	b.WriteString("</section>\n")
	if *out == "" {
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	return os.WriteFile(*out, []byte(b.String()), 0o644)
}

// variantFaults counts what the runs of one variant went through.
type variantFaults struct {
	runs, valid, violated               int
	crashes, restarts, partitions, lost int // applied; lost: crashes that lose unsynced writes
	clocked, jumps                      int // runs with clock faults; clock jumps
	maxOffsetMS, maxPPM                 float64
	byInvariant                         map[string]int
	ops, indeterminate                  int64
	loseUnsynced                        bool
}

// campaign is one dataset: its manifest, its runs, and the variant its
// model's name gives ("" when the model has its own variants).
type campaign struct {
	dir     string
	man     dataset.Manifest
	rows    []dataset.Row
	variant string
}

// group is the datasets of one target, one table in the section.
type group struct {
	name, modelDir string
	camps          []campaign
}

// readGroups reads every dataset and joins those of one target: datasets
// of per-variant models (PREFIX-VARIANT.model) with the same directory and
// prefix form one group; every other dataset is a group of its own.
func readGroups(dirs []string) ([]*group, error) {
	var groups []*group
	byKey := map[string]*group{}
	for _, dir := range dirs {
		man, err := dataset.ReadManifest(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		rows, err := dataset.ReadRows(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		c := campaign{dir: dir, man: man, rows: rows}
		modelDir := filepath.Dir(man.ModelPath)
		name := filepath.Base(modelDir)
		prefix, variant, perVariant := variantModel(man)
		key := dir
		if perVariant {
			c.variant, name, key = variant, prefix, modelDir+"\x00"+prefix
		}
		g := byKey[key]
		if g == nil || !perVariant {
			g = &group{name: name, modelDir: modelDir}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.camps = append(g.camps, c)
	}
	return groups, nil
}

// variantModel reports whether man's model is one of a per-variant set:
// a model without variants of its own (its only variant is "default")
// named PREFIX-VARIANT.model.
func variantModel(man dataset.Manifest) (prefix, variant string, ok bool) {
	if len(man.Variants) != 1 || man.Variants[0].Name != "default" {
		return "", "", false
	}
	base := strings.TrimSuffix(filepath.Base(man.ModelPath), ".model")
	prefix, variant, ok = strings.Cut(base, "-")
	return prefix, variant, ok && prefix != "" && variant != ""
}

// variantOf is the variant a run of c counts under.
func (c campaign) variantOf(r dataset.Row) string {
	if c.variant != "" {
		return c.variant
	}
	return r.Variant
}

// write renders the group's table, claims, run-twice comparison and the
// shrunk violation of each bug variant.
func (g *group) write(b *strings.Builder, traceRows int) error {
	per := map[string]*variantFaults{}
	var order []string
	var outcomes []analysis.Outcome
	var datasets, models, seeds []string
	for _, c := range g.camps {
		lose := strings.Contains(c.man.ModelText, "lose_unsynced = true")
		for _, r := range c.rows {
			v := c.variantOf(r)
			vf := per[v]
			if vf == nil {
				vf = &variantFaults{byInvariant: map[string]int{}}
				per[v] = vf
				order = append(order, v)
			}
			vf.loseUnsynced = lose
			vf.add(r)
			outcomes = append(outcomes, analysis.Outcome{Variant: v, Run: r.RunID, Verdict: r.Verdict, Seed: r.Seed})
		}
		datasets = append(datasets, "<code>"+esc(c.dir)+"</code>")
		models = append(models, "<code>"+esc(c.man.ModelPath)+"</code>")
		seeds = append(seeds, seedText(c.man.Seeds))
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i] == "correct" && order[j] != "correct" })
	fmt.Fprintf(b, "<h3>%s</h3>\n<p>Dataset %s, model %s, seeds %s.</p>\n",
		esc(g.name), strings.Join(datasets, ", "), strings.Join(dedup(models), ", "), esc(strings.Join(dedup(seeds), "; ")))
	b.WriteString("<table>\n<tr><th>variant</th><th>runs</th><th>valid</th><th>violated</th><th>rate (95% Wilson)</th><th>by invariant</th><th>crashes</th><th>restarts</th><th>partitions</th><th>crashes losing unsynced writes</th><th>runs with clock faults (max |offset|, max |rate|)</th><th>clock jumps</th><th>operations (indeterminate)</th></tr>\n")
	table, err := analysis.Tally(outcomes)
	if err != nil {
		return err
	}
	for _, v := range order {
		f := per[v]
		iv, err := analysis.WilsonInterval(analysis.Count{Group: v, Successes: f.violated, Trials: f.valid}, 0.95)
		rate := "–"
		if err == nil && f.valid > 0 {
			rate = fmt.Sprintf("%.2f%% [%.2f%%, %.2f%%]", 100*float64(f.violated)/float64(f.valid), 100*iv.Lower, 100*iv.Upper)
		}
		fmt.Fprintf(b, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d (%.3f ms, %.0f ppm)</td><td>%d</td><td>%d (%d)</td></tr>\n",
			esc(v), f.runs, f.valid, f.violated, rate, esc(invText(f.byInvariant)), f.crashes, f.restarts, f.partitions, f.lost,
			f.clocked, f.maxOffsetMS, f.maxPPM, f.jumps, f.ops, f.indeterminate)
	}
	b.WriteString("</table>\n")
	claims, err := claimsFor(order)
	if err != nil {
		return err
	}
	rep, err := analysis.EvaluateClaims(claims, table)
	if err != nil {
		return err
	}
	b.WriteString(rep.HTML())
	for _, c := range g.camps {
		b.WriteString(determinism(c.dir, c.rows))
	}
	for _, v := range order {
		if v == "correct" {
			continue
		}
		if err := shrunkTrace(b, g.modelDir, v, traceRows); err != nil {
			return err
		}
	}
	return nil
}

// claimsFor is the falsification claims of a target's variants: every
// variant but correct violates at a rate above 0%, correct at most 1%.
func claimsFor(variants []string) ([]analysis.Claim, error) {
	var texts []string
	for _, v := range variants {
		if v != "correct" {
			texts = append(texts, "rate("+v+") > 0%")
		}
	}
	for _, v := range variants {
		if v == "correct" {
			texts = append(texts, "rate(correct) <= 1%")
		}
	}
	var claims []analysis.Claim
	for _, text := range texts {
		c, err := analysis.ParseClaim(text)
		if err != nil {
			return nil, err
		}
		claims = append(claims, c)
	}
	return claims, nil
}

// dedup drops repeated strings, keeping the first of each.
func dedup(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func (f *variantFaults) add(r dataset.Row) {
	f.runs++
	switch r.Verdict {
	case dataset.Holds:
		f.valid++
	case dataset.Violated:
		f.valid++
		f.violated++
		for _, inv := range r.ViolatedInvariants {
			f.byInvariant[inv]++
		}
	}
	for _, ft := range r.Faults {
		if !ft.Applied {
			continue
		}
		switch ft.Kind {
		case "crash":
			f.crashes++
			if f.loseUnsynced {
				f.lost++
			}
		case "restart":
			f.restarts++
		case "partition":
			f.partitions++
		}
	}
	clocked := false
	for _, p := range strings.Split(r.Detail, "; ") {
		var node int
		var off, at float64
		var ppm int
		switch {
		case strings.HasPrefix(p, "clock="):
			if _, err := fmt.Sscanf(p, "clock=n%d offset %fms rate %dppm", &node, &off, &ppm); err == nil {
				clocked = clocked || off != 0 || ppm != 0
				f.maxOffsetMS = max(f.maxOffsetMS, abs(off))
				f.maxPPM = max(f.maxPPM, abs(float64(ppm)))
			}
		case strings.HasPrefix(p, "clock jump="):
			if _, err := fmt.Sscanf(p, "clock jump=n%d %fms at %fms", &node, &off, &at); err == nil {
				clocked = true
				f.jumps++
			}
		}
	}
	if clocked {
		f.clocked++
	}
	if r.Ops != nil {
		f.ops += *r.Ops
	}
	if r.OpsIndeterminate != nil {
		f.indeterminate += *r.OpsIndeterminate
	}
}

// determinism compares the dataset with its second run (run1 → run2 in
// the path), seed by seed, when that exists.
func determinism(dir string, rs []dataset.Row) string {
	other := strings.Replace(dir, "run1", "run2", 1)
	if other == dir {
		return ""
	}
	rs2, err := dataset.ReadRows(other)
	if err != nil {
		return ""
	}
	key := func(r dataset.Row) string { return fmt.Sprintf("%s/%d", r.Variant, r.Seed) }
	want := map[string]string{}
	for _, r := range rs {
		want[key(r)] = r.Verdict + " " + strings.Join(r.ViolatedInvariants, ",")
	}
	same, diff := 0, 0
	for _, r := range rs2 {
		w, ok := want[key(r)]
		if !ok {
			continue
		}
		if w == r.Verdict+" "+strings.Join(r.ViolatedInvariants, ",") {
			same++
		} else {
			diff++
		}
	}
	return fmt.Sprintf("<p>Run twice (<code>%s</code>): %d seed×variant pairs give the same verdict and violated invariants, %d differ.</p>\n", esc(other), same, diff)
}

// shrunkTrace renders the target's shrunk recording of variant v (the
// first V-*.shrunk.weftlog beside its model): the verdict's detail (for a
// linearizability violation, porcupine's explanation), faults, clocks, and
// the last rows events of the clients' history and declared state up to the
// first violation.
func shrunkTrace(b *strings.Builder, targetDir, v string, rows int) error {
	files, _ := filepath.Glob(filepath.Join(targetDir, v+"-*.shrunk.weftlog"))
	if len(files) == 0 {
		fmt.Fprintf(b, "<p>No shrunk recording of %s beside the model (<code>%s-*.shrunk.weftlog</code>).</p>\n", esc(v), esc(v))
		return nil
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return err
	}
	rec, err := weftlog.Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	h := rec.Header
	fmt.Fprintf(b, "<h4>%s, traced and shrunk: <code>%s</code></h4>\n<p>Variant %s, seed %d: %s %s at step %d (%d choices; <code>weft replay</code> re-executes it, <code>weft trace</code> shows all of it).</p>\n<pre>",
		esc(v), esc(files[0]), esc(h.Variant), h.Seed, esc(rec.Verdict.Verdict), esc(strings.Join(rec.Verdict.Violated, ",")), rec.Verdict.FirstViolationStep, len(rec.Choices))
	if d := strings.TrimSpace(rec.Verdict.Detail); d != "" {
		for _, line := range strings.Split(d, "\n") {
			fmt.Fprintf(b, "# %s\n", esc(line))
		}
	}
	for _, p := range h.Params {
		if p.Name != "ops" {
			fmt.Fprintf(b, "# %s %s\n", esc(p.Name), esc(p.Value))
		}
	}
	var shown []weftlog.Event
	for _, e := range rec.Events {
		if !traced(e) || (e.Kind == "state" && e.Step == 0) {
			continue
		}
		if rec.Verdict.FirstViolationStep > 0 && e.Step > rec.Verdict.FirstViolationStep {
			break
		}
		shown = append(shown, e)
	}
	if len(shown) > rows {
		fmt.Fprintf(b, "… %d earlier events\n", len(shown)-rows)
		shown = shown[len(shown)-rows:]
	}
	for _, e := range shown {
		mark := ""
		if e.Step == rec.Verdict.FirstViolationStep {
			mark = "   ← first violation"
		}
		fmt.Fprintf(b, "%5d %10.3f  %s%s\n", e.Step, float64(e.T)/1000, esc(eventLine(e)), mark)
	}
	b.WriteString("</pre>\n")
	return nil
}

// untraced reports whether the section's trace leaves the declared global
// v out: the counters that change with every message, the hashes of
// Raft's log and applied entries (log_term shows the log) and its
// publication flag.
func untraced(v string) bool {
	switch v {
	case "adoptions", "ndelivered", "log_hash", "applied_hash", "raft_stable":
		return true
	}
	return false
}

// traced reports whether the section's trace lists e: faults, clock
// jumps, the clients' history and state changes (not each message).
func traced(e weftlog.Event) bool {
	switch e.Kind {
	case "crash", "restart", "partition", "heal", "clock", "invoke", "return", "expire":
		return true
	case "state":
		return !untraced(e.Var)
	}
	return false
}

func eventLine(e weftlog.Event) string {
	switch e.Kind {
	case "state":
		return fmt.Sprintf("n%d.%s = %s", e.Node, e.Var, trimZeros(e.Value))
	case "partition", "heal":
		return strings.ToUpper(e.Kind) + " " + e.Value
	case "clock":
		return fmt.Sprintf("CLOCK JUMP n%d %s", e.Node, e.Value)
	case "crash", "restart":
		return fmt.Sprintf("%s n%d", strings.ToUpper(e.Kind), e.Node)
	}
	return fmt.Sprintf("%s %s %s at n%d", e.Kind, e.Var, e.Value, e.Node)
}

// trimZeros shortens an array's run of trailing zeros to "…".
func trimZeros(v string) string {
	const tail = ", 0]"
	if !strings.HasSuffix(v, tail+"") || !strings.HasSuffix(strings.TrimSuffix(v, tail), ", 0") {
		return v
	}
	for strings.HasSuffix(v, tail) {
		v = strings.TrimSuffix(v, tail) + "]"
	}
	return strings.TrimSuffix(v, "]") + ", …]"
}

func invText(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func seedText(rs []dataset.SeedRange) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%d–%d", r.Lo, r.Hi-1))
	}
	return strings.Join(parts, ", ")
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func esc(s string) string { return html.EscapeString(s) }
