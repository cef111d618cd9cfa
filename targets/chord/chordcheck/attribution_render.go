package chordcheck

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/weft-mc/weft/analysis"
)

func pct(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", 100*x)
}

func rateCell(k, n int, iv analysis.Interval) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d = %s (%.1f–%.1f %%)", k, n, pct(float64(k)/float64(n)), 100*iv.Lower, 100*iv.Upper)
}

// pp renders an effect in percentage points with its interval.
func pp(e analysis.FactorialEffect) string {
	return fmt.Sprintf("%+.1f pp (%+.1f, %+.1f)", 100*e.Value, 100*e.Lower, 100*e.Upper)
}

// ppSign adds the sign test: seeds up / down, exact p.
func ppSign(e analysis.FactorialEffect) string {
	return fmt.Sprintf("%s; %d↑ %d↓, p = %s", pp(e), e.Positive, e.Negative, pval(e.SignP))
}

func pval(p float64) string {
	if p >= 0.001 {
		return fmt.Sprintf("%.3g", p)
	}
	return fmt.Sprintf("%.2g", p)
}

// Section is one part of the analysis as text: a title, a table (Header
// and Rows, either may be empty), then Text (a list of sentences or items).
type Section struct {
	Title  string
	Header []string
	Rows   [][]string
	Text   []string
	List   bool // Text is a bulleted list, not paragraphs
}

// Sections returns the analysis as the sections of targets/chord/README.md.
func (a *Attribution) Sections() []Section {
	out := []Section{a.variantsSection()}
	out = append(out, a.effectsSections()...)
	out = append(out, a.levelsSection())
	out = append(out, a.invalidSections()...)
	if len(a.Perfect) > 0 {
		out = append(out, a.perfectSections()...)
	}
	return out
}

// Markdown renders the sections as Markdown (#### titles, pipe tables).
func (a *Attribution) Markdown() string {
	var b strings.Builder
	for _, s := range a.Sections() {
		fmt.Fprintf(&b, "#### %s\n\n", s.Title)
		if len(s.Header) > 0 {
			fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(s.Header, " | "), strings.Repeat("---|", len(s.Header)))
			for _, r := range s.Rows {
				fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
			}
			b.WriteString("\n")
		}
		for _, t := range s.Text {
			if s.List {
				fmt.Fprintf(&b, "- %s\n", t)
			} else {
				fmt.Fprintf(&b, "%s\n\n", t)
			}
		}
		if s.List && len(s.Text) > 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// HTML renders the sections as an HTML fragment (h3, table, p or ul),
// every text escaped.
func (a *Attribution) HTML() string {
	var b strings.Builder
	esc := html.EscapeString
	for _, s := range a.Sections() {
		fmt.Fprintf(&b, "<h3>%s</h3>\n", esc(s.Title))
		if len(s.Header) > 0 {
			b.WriteString("<table>\n<tr>")
			for _, h := range s.Header {
				fmt.Fprintf(&b, "<th>%s</th>", esc(h))
			}
			b.WriteString("</tr>\n")
			for _, r := range s.Rows {
				b.WriteString("<tr>")
				for _, c := range r {
					fmt.Fprintf(&b, "<td>%s</td>", esc(c))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</table>\n")
		}
		if s.List && len(s.Text) > 0 {
			b.WriteString("<ul>\n")
			for _, t := range s.Text {
				fmt.Fprintf(&b, "<li>%s</li>\n", esc(t))
			}
			b.WriteString("</ul>\n")
		} else {
			for _, t := range s.Text {
				fmt.Fprintf(&b, "<p>%s</p>\n", esc(t))
			}
		}
	}
	return b.String()
}

func (a *Attribution) variantsSection() Section {
	s := Section{Title: fmt.Sprintf("The 16 variants (%d seeds each; S = stabilize, R = reconcile, U = update, G = GETSUCC/FIND responder)", a.Rows[0].Tally.Runs),
		Header: []string{"variant", "checks", "invalid", "valid", "violated", "spec's rate: violated / valid (Wilson 95 %)", "ITT: violated or invalid / runs (Wilson 95 %)"}}
	for _, r := range a.Rows {
		name := r.Variant
		for level, m := range LevelMasks() {
			if m == r.Mask {
				name += fmt.Sprintf(" (level %d)", level)
			}
		}
		s.Rows = append(s.Rows, []string{name, MaskLetters(r.Mask), fmt.Sprint(r.Tally.Invalid), fmt.Sprint(r.Tally.Valid),
			fmt.Sprint(r.Tally.Violated), rateCell(r.Tally.Violated, r.Tally.Valid, r.Spec), rateCell(r.ITT.Failed, r.ITT.Count().Trials, r.ITT.Interval)})
	}
	return s
}

func (a *Attribution) effectsSections() []Section {
	main := Section{Title: fmt.Sprintf("Main effects (2⁴ factorial contrasts, paired by seed over %d seeds, 95 %% intervals; seeds whose contrast is up ↑ or down ↓, exact sign test; %d seeds dropped)", a.Seeds, a.Dropped),
		Header: []string{"check", "on P(violated)", "on P(invalid)", "on P(failed, ITT)"}}
	for i, name := range CheckNames() {
		main.Rows = append(main.Rows, []string{name, ppSign(a.Effects["violated"][i]), ppSign(a.Effects["invalid"][i]), ppSign(a.Effects["itt"][i])})
	}
	inter := Section{Title: "Interactions whose interval excludes 0", Header: []string{"interaction", "outcome", "effect (95 %)"}}
	for _, name := range outcomeNames() {
		for _, e := range a.Effects[name] {
			if matters(e) {
				inter.Rows = append(inter.Rows, []string{e.Name(), outcomeTitle(name), ppSign(e)})
			}
		}
	}
	if len(inter.Rows) == 0 {
		inter.Header, inter.Text = nil, []string{"None."}
	}
	return []Section{main, inter}
}

func (a *Attribution) levelsSection() Section {
	s := Section{Title: "Levels 0 > 1 > 2 by the intention-to-treat outcome (McNemar exact, two-sided)",
		Header: []string{"comparison", "seeds", "failed in both", "first only", "second only", "p", "Holm p", "spec's test (valid in both): violated first only / second only, p"}}
	for i, t := range a.Levels {
		holm := "–"
		if i < len(a.HolmP) {
			holm = pval(a.HolmP[i])
		}
		spec := ""
		for _, x := range a.Spec {
			if x.A == t.A && x.B == t.B {
				spec = fmt.Sprintf("%d / %d, p = %s", x.OnlyA, x.OnlyB, pval(x.PValue))
			}
		}
		s.Rows = append(s.Rows, []string{levelName(t.A) + " vs " + levelName(t.B), fmt.Sprint(t.Seeds), fmt.Sprint(t.BothFailed),
			fmt.Sprint(t.OnlyA), fmt.Sprint(t.OnlyB), pval(t.PValue), holm, spec})
	}
	verdict := "holds"
	if !a.Ordered {
		verdict = "does not hold"
	}
	s.Text = []string{fmt.Sprintf("The pre-registered ordering claim (level 0 > 1 and 1 > 2, each Holm p < 0.05 in that direction) %s.", verdict)}
	return s
}

func levelName(v string) string {
	for level, m := range LevelMasks() {
		if MaskVariant(m) == v {
			return fmt.Sprintf("level %d", level)
		}
	}
	return v
}

func (a *Attribution) invalidSections() []Section {
	seeds := Section{Title: fmt.Sprintf("Seeds invalid at some levels only (%d), with the adoption that made each run invalid (from its recording)", len(a.Invalid)), List: true}
	for _, s := range a.Invalid {
		for _, c := range s.Causes {
			what := c.Err
			if c.Cause != nil {
				what = c.Cause.String()
			}
			seeds.Text = append(seeds.Text, fmt.Sprintf("seed %d (%s), level %d: %s", s.Seed, s.Rule, c.Level, what))
		}
	}
	causes := Section{Title: "Invalid runs of all 16 variants on seeds not invalid in all 16, by cause", Header: []string{"cause", "the check that refuses it", "runs"}}
	for _, c := range a.Causes {
		r := c.Refused
		if r == "" {
			r = "none"
		}
		causes.Rows = append(causes.Rows, []string{c.Category, r, fmt.Sprint(c.Runs)})
	}
	rules := Section{Title: "Seeds invalid at some of the 16 variants only, by the checks that make them valid (from the verdicts alone)",
		Header: []string{"which variants are valid", "seeds"}}
	for _, r := range a.Rules {
		rules.Rows = append(rules.Rows, []string{r.Rule, fmt.Sprint(r.Seeds)})
	}
	return []Section{rules, seeds, causes}
}

func (a *Attribution) perfectSections() []Section {
	rates := Section{Title: "Perfect failure detection (chord-perfect.model)",
		Header: []string{"level", "invalid", "valid", "violated", "spec's rate (Wilson 95 %)", "exact one-sided 95 % upper bound", "ITT rate (Wilson 95 %)"}}
	for _, p := range a.Perfect {
		r := p.Row
		rates.Rows = append(rates.Rows, []string{fmt.Sprintf("%d (%s)", p.Level, r.Variant), fmt.Sprint(r.Tally.Invalid), fmt.Sprint(r.Tally.Valid),
			fmt.Sprint(r.Tally.Violated), rateCell(r.Tally.Violated, r.Tally.Valid, r.Spec), pct(p.Upper), rateCell(r.ITT.Failed, r.ITT.Count().Trials, r.ITT.Interval)})
	}
	paired := Section{Title: "Perfect failure detection, levels seed by seed (ITT, McNemar exact)",
		Header: []string{"comparison", "seeds", "failed in both", "first only", "second only", "p"}}
	for _, t := range a.PerfectP {
		paired.Rows = append(paired.Rows, []string{t.A + " vs " + t.B, fmt.Sprint(t.Seeds), fmt.Sprint(t.BothFailed), fmt.Sprint(t.OnlyA), fmt.Sprint(t.OnlyB), pval(t.PValue)})
	}
	return []Section{rates, paired}
}

// ReportSection renders the analysis as one section of a weft report page
// (weft report --section FILE): the 16-mask table, the main effects and
// interactions with their charts, the intention-to-treat comparison of the
// levels, the cause of each invalid run, and perfect failure detection.
// The page's stylesheet styles its tables; the charts need the page's
// echarts.
func (a *Attribution) ReportSection() (string, error) {
	cs, err := a.Charts()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("<section id=\"chord-attribution\">\n<h2>Chord beyond the seed: which liveness check does what</h2>\n")
	b.WriteString("<p class=\"note\">From " + html.EscapeString(a.Dir) + ". The spec's rate (violated / valid) is unchanged; " +
		"the intention-to-treat outcome counts a run as failed if it is violated or invalid, and compares variants seed by seed.</p>\n")
	b.WriteString(a.HTML())
	for _, c := range cs {
		b.WriteString("<div class=\"chart\">" + c.Element() + "</div>\n")
	}
	b.WriteString("</section>\n")
	return b.String(), nil
}
