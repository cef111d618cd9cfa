// Command section writes the consensus section of a weft report (issue
// 17): for each dataset given (one campaign of a consensus target, e.g.
// datasets/zab-500-run1), the runs of every variant with the faults they
// had — crashes, restarts, partitions, lost unsynced writes, clock offsets,
// rates and jumps —, the violation rates with Wilson intervals, the
// falsification claims rate(bug) > 0% and rate(correct) <= 1%, whether a
// second run of the campaign (the same path with run2 for run1) gave the
// same verdict seed by seed, and the traced, shrunk violation of the bug
// variant (the bug-*.shrunk.weftlog beside the target's model).
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
	for _, dir := range dirs {
		if err := target(&b, dir, *rows); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
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

func target(b *strings.Builder, dir string, traceRows int) error {
	man, err := dataset.ReadManifest(dir)
	if err != nil {
		return err
	}
	rs, err := dataset.ReadRows(dir)
	if err != nil {
		return err
	}
	lose := strings.Contains(man.ModelText, "lose_unsynced = true")
	per := map[string]*variantFaults{}
	var order []string
	var outcomes []analysis.Outcome
	for _, r := range rs {
		vf := per[r.Variant]
		if vf == nil {
			vf = &variantFaults{byInvariant: map[string]int{}, loseUnsynced: lose}
			per[r.Variant] = vf
			order = append(order, r.Variant)
		}
		vf.add(r)
		outcomes = append(outcomes, analysis.Outcome{Variant: r.Variant, Run: r.RunID, Verdict: r.Verdict, Seed: r.Seed})
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i] == "correct" && order[j] != "correct" })
	fmt.Fprintf(b, "<h3>%s</h3>\n<p>Dataset <code>%s</code>, model <code>%s</code>, seeds %s.</p>\n",
		esc(filepath.Base(filepath.Dir(man.ModelPath))), esc(dir), esc(man.ModelPath), seedText(man.Seeds))
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
	var claims []analysis.Claim
	for _, text := range []string{"rate(bug) > 0%", "rate(correct) <= 1%"} {
		c, err := analysis.ParseClaim(text)
		if err != nil {
			return err
		}
		claims = append(claims, c)
	}
	rep, err := analysis.EvaluateClaims(claims, table)
	if err != nil {
		return err
	}
	b.WriteString(rep.HTML())
	b.WriteString(determinism(dir, rs))
	return shrunkTrace(b, filepath.Dir(man.ModelPath), traceRows)
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

// shrunkTrace renders the target's shrunk recording of its bug variant:
// faults, clocks, the clients' history and declared state, up to rows
// events, ending at the first violation.
func shrunkTrace(b *strings.Builder, targetDir string, rows int) error {
	files, _ := filepath.Glob(filepath.Join(targetDir, "bug-*.shrunk.weftlog"))
	if len(files) == 0 {
		b.WriteString("<p>No shrunk recording beside the model.</p>\n")
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
	fmt.Fprintf(b, "<h4>The bug, traced and shrunk: <code>%s</code></h4>\n<p>Variant %s, seed %d: %s %s at step %d (%d choices; <code>weft replay</code> re-executes it, <code>weft trace</code> shows all of it).</p>\n<pre>",
		esc(files[0]), esc(h.Variant), h.Seed, esc(rec.Verdict.Verdict), esc(strings.Join(rec.Verdict.Violated, ",")), rec.Verdict.FirstViolationStep, len(rec.Choices))
	for _, p := range h.Params {
		if p.Name != "ops" {
			fmt.Fprintf(b, "# %s %s\n", esc(p.Name), esc(p.Value))
		}
	}
	shown := 0
	for _, e := range rec.Events {
		if !traced(e) || (e.Kind == "state" && e.Step == 0) {
			continue
		}
		mark := ""
		if e.Step == rec.Verdict.FirstViolationStep {
			mark = "   ← first violation"
		}
		if shown >= rows && mark == "" {
			continue
		}
		fmt.Fprintf(b, "%5d %10.3f  %s%s\n", e.Step, float64(e.T)/1000, esc(eventLine(e)), mark)
		shown++
	}
	b.WriteString("</pre>\n")
	return nil
}

// traced reports whether the section's trace lists e: faults, clock
// jumps, the clients' history and state changes (not each message).
func traced(e weftlog.Event) bool {
	switch e.Kind {
	case "crash", "restart", "partition", "heal", "clock", "invoke", "return", "expire", "state":
		return e.Var != "adoptions" && e.Var != "ndelivered"
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
