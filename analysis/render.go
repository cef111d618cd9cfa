package analysis

import (
	"fmt"
	"html"
	"math"
	"strings"
	"text/tabwriter"
)

// table is a titled grid rendered as text, Markdown or HTML.
type table struct {
	title string
	head  []string
	rows  [][]string
	notes []string
}

// renderText renders tables as aligned plain text.
func renderText(ts []table) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n", t.title)
		w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "  "+strings.Join(t.head, "\t"))
		for _, r := range t.rows {
			fmt.Fprintln(w, "  "+strings.Join(r, "\t"))
		}
		w.Flush()
		for _, n := range t.notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	return b.String()
}

// renderMarkdown renders tables as GitHub-flavoured Markdown.
func renderMarkdown(ts []table) string {
	var b strings.Builder
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, t := range ts {
		fmt.Fprintf(&b, "**%s**\n\n", t.title)
		fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(mapStrings(t.head, cell), " | "), strings.Repeat(" --- |", len(t.head)))
		for _, r := range t.rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(mapStrings(r, cell), " | "))
		}
		for _, n := range t.notes {
			fmt.Fprintf(&b, "\n_Note: %s_\n", n)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// renderHTML renders tables as an HTML fragment (no scripts, no styles
// beyond class names).
func renderHTML(ts []table) string {
	var b strings.Builder
	b.WriteString(`<div class="weft-stats">` + "\n")
	for _, t := range ts {
		fmt.Fprintf(&b, "<table>\n<caption>%s</caption>\n<thead><tr>", html.EscapeString(t.title))
		for _, h := range t.head {
			fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, r := range t.rows {
			b.WriteString("<tr>")
			for _, c := range r {
				fmt.Fprintf(&b, `<td%s>%s</td>`, statusClass(c), html.EscapeString(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table>\n")
		for _, n := range t.notes {
			fmt.Fprintf(&b, "<p class=\"note\">%s</p>\n", html.EscapeString(n))
		}
	}
	b.WriteString("</div>\n")
	return b.String()
}

// statusClass marks claim statuses for styling.
func statusClass(c string) string {
	switch Status(c) {
	case Survived, Falsified, Inconclusive:
		return fmt.Sprintf(` class="%s"`, c)
	}
	return ""
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// pct formats a proportion as a percentage.
func pct(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// ivPct formats an interval of proportions as percentages.
func ivPct(iv Interval) string { return fmt.Sprintf("%.2f–%.2f%%", 100*iv.Lower, 100*iv.Upper) }

// ivNum formats an interval of ratios.
func ivNum(iv Interval) string { return fmt.Sprintf("%#.3g–%#.3g", iv.Lower, iv.Upper) }

// pp formats a difference of proportions in percentage points.
func pp(e Estimate) string {
	return fmt.Sprintf("%+.2f pp (%+.2f to %+.2f)", 100*e.Value, 100*e.Lower, 100*e.Upper)
}

// pval formats a p-value.
func pval(p float64) string {
	switch {
	case p == 0:
		return "0"
	case p < 1e-4:
		return fmt.Sprintf("%.2e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

// ratio formats an optional ratio estimate.
func ratio(e *Estimate) string {
	if e == nil {
		return "n/a (zero cell)"
	}
	return fmt.Sprintf("%#.3g (%s)", e.Value, ivNum(e.Interval))
}

func level(l float64) string { return fmt.Sprintf("%g%%", math.Round(l*1000)/10) }

// Text renders the summary as plain text.
func (s Summary) Text() string { return renderText(s.tables()) }

// Markdown renders the summary as Markdown tables.
func (s Summary) Markdown() string { return renderMarkdown(s.tables()) }

// HTML renders the summary as an HTML fragment.
func (s Summary) HTML() string { return renderHTML(s.tables()) }

// tables lays the summary out.
func (s Summary) tables() []table {
	ts := []table{s.rateTable("Violation rates", s.Rates)}
	if len(s.RunRates) > 0 {
		ts = append(ts, s.rateTable("Violation rates by run", s.RunRates))
	}
	if h := s.Homogeneity; h != nil {
		ts = append(ts, chiTable("Homogeneity across groups (Pearson χ², no continuity correction; the drift test when the groups are runs)", "all", *h))
	}
	if tr := s.Trend; tr != nil {
		ts = append(ts, table{
			title: "Trend over the given order (Cochran–Armitage, scores 0, 1, …)",
			head:  []string{"Z", "χ² = Z²", "p (two-sided)", "direction"},
			rows:  [][]string{{fmt.Sprintf("%.4f", tr.Z), fmt.Sprintf("%.4f", tr.Z*tr.Z), pval(tr.PValue), direction(tr.Z)}},
		})
	}
	if len(s.Pairs) > 0 {
		ts = append(ts, s.pairTable(), s.powerTable())
	}
	if len(s.Paired) > 0 {
		ts = append(ts, s.pairedTable())
	}
	for _, d := range s.Drift {
		ts = append(ts, chiTable("Drift across runs of "+d.Variant+" (χ² homogeneity)", runList(d.Runs), d.ChiSquareResult))
	}
	return ts
}

func direction(z float64) string {
	switch {
	case z < 0:
		return "decreasing"
	case z > 0:
		return "increasing"
	}
	return "none"
}

func runList(runs []Count) string {
	parts := make([]string, len(runs))
	for i, r := range runs {
		parts[i] = fmt.Sprintf("%s %d/%d", r.Group, r.Successes, r.Trials)
	}
	return strings.Join(parts, ", ")
}

func (s Summary) rateTable(title string, rates []RateRow) table {
	t := table{
		title: fmt.Sprintf("%s (violated / valid runs, %s intervals)", title, level(s.Level)),
		head:  []string{"group", "violated/valid", "rate", "Wilson", "Clopper–Pearson"},
	}
	excluded := false
	for _, r := range rates {
		excluded = excluded || r.Invalid > 0 || r.Errors > 0
	}
	if excluded {
		t.head = append(t.head, "runs", "invalid", "errors")
	}
	for _, r := range rates {
		row := []string{r.Group, fmt.Sprintf("%d/%d", r.Successes, r.Trials), "n/a", "n/a", "n/a"}
		if r.Trials > 0 {
			row[2], row[3], row[4] = pct(r.Rate), ivPct(r.Wilson), ivPct(r.ClopperPearson)
		}
		if excluded {
			row = append(row, fmt.Sprint(r.Runs), fmt.Sprint(r.Invalid), fmt.Sprint(r.Errors))
		}
		t.rows = append(t.rows, row)
	}
	if excluded {
		t.notes = []string{"invalid runs (broken fault precondition) and tool errors are excluded from the rates"}
	}
	return t
}

func chiTable(title, groups string, c ChiSquareResult) table {
	t := table{
		title: title,
		head:  []string{"groups", "χ²", "df", "p", "min expected"},
		rows:  [][]string{{groups, fmt.Sprintf("%.4f", c.Statistic), fmt.Sprint(c.DF), pval(c.PValue), fmt.Sprintf("%.3g", c.MinExpected)}},
	}
	if c.MinExpected < 5 {
		t.notes = append(t.notes, "an expected count is below 5: the χ² approximation is doubtful; prefer Fisher's exact test")
	}
	return t
}

func (s Summary) pairTable() table {
	t := table{
		title: fmt.Sprintf("Pairwise comparisons (%s intervals; Fisher exact two-sided, Holm-corrected)", level(s.Level)),
		head:  []string{"A vs B", "risk difference A−B", "risk ratio A/B", "odds ratio", "z", "p (z)", "p (Fisher)", "p (Holm)"},
	}
	for _, p := range s.Pairs {
		t.rows = append(t.rows, []string{p.A + " vs " + p.B, pp(p.RiskDifference), ratio(p.RiskRatio), ratio(p.OddsRatio),
			fmt.Sprintf("%.4f", p.Z), pval(p.ZP), pval(p.FisherP), pval(p.HolmP)})
	}
	t.notes = []string{"risk difference: Newcombe hybrid score interval; risk ratio: Katz log; odds ratio: Woolf logit"}
	return t
}

func (s Summary) pairedTable() table {
	t := table{
		title: fmt.Sprintf("Paired by seed (run %s; same fault schedule for both; McNemar exact, two-sided)", s.Paired[0].Run),
		head:  []string{"A vs B", "seeds valid in both", "violated in both", "A only", "B only", "p", "invalid in A only", "invalid in B only", "p (invalid)"},
	}
	for _, p := range s.Paired {
		t.rows = append(t.rows, []string{p.A + " vs " + p.B, fmt.Sprintf("%d/%d", p.Valid, p.Seeds), fmt.Sprint(p.BothViolated),
			fmt.Sprint(p.OnlyA), fmt.Sprint(p.OnlyB), pval(p.PValue), fmt.Sprint(p.InvalidOnlyA), fmt.Sprint(p.InvalidOnlyB), pval(p.InvalidP)})
	}
	t.notes = []string{"only discordant seeds (violated in one variant) enter the test; \"invalid in A only\": the seed's schedule broke the fault precondition against A's state but not B's; a small p (invalid) means validity depends on the variant, so the rates over valid runs compare different seeds"}
	return t
}

func (s Summary) powerTable() table {
	t := table{
		title: fmt.Sprintf("Power (two-sided z-test, α = %.3g, target power %g%%)", 1-s.Level, 100*s.PowerLevel),
		head:  []string{"A vs B", "smallest detectable drop from the higher rate", "valid runs per variant to detect the observed difference"},
	}
	seeds := false
	for _, p := range s.Power {
		seeds = seeds || p.SeedsForObserved != nil
	}
	if seeds {
		t.head = append(t.head, "seeds per variant (after invalid runs and errors)")
	}
	if s.Difference > 0 {
		t.head = append(t.head, fmt.Sprintf("power to detect a %.2f pp drop", 100*s.Difference))
	}
	for _, p := range s.Power {
		mdd, n := "not detectable", "–"
		if p.MinimumDetectableDifference != nil {
			mdd = fmt.Sprintf("%.2f pp", 100**p.MinimumDetectableDifference)
		}
		if p.TrialsForObserved != nil {
			n = fmt.Sprint(math.Ceil(*p.TrialsForObserved))
		}
		row := []string{p.A + " vs " + p.B, mdd, n}
		switch {
		case p.SeedsForObserved != nil:
			row = append(row, fmt.Sprint(math.Ceil(*p.SeedsForObserved)))
		case seeds:
			row = append(row, n)
		}
		if p.PowerForDifference != nil {
			row = append(row, pct(*p.PowerForDifference))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// ClaimReport is the evaluation of a list of claims.
type ClaimReport struct {
	Results []ClaimResult `json:"claims"`
}

// EvaluateClaims evaluates every claim against t, in order.
func EvaluateClaims(claims []Claim, t Table) (ClaimReport, error) {
	var r ClaimReport
	for _, c := range claims {
		res, err := c.Evaluate(t)
		if err != nil {
			return ClaimReport{}, err
		}
		r.Results = append(r.Results, res)
	}
	return r, nil
}

// Text renders the report as plain text.
func (r ClaimReport) Text() string { return renderText(r.tables()) }

// Markdown renders the report as a Markdown table.
func (r ClaimReport) Markdown() string { return renderMarkdown(r.tables()) }

// HTML renders the report as an HTML fragment.
func (r ClaimReport) HTML() string { return renderHTML(r.tables()) }

func (r ClaimReport) tables() []table {
	t := table{
		title: "Falsification claims",
		head:  []string{"claim", "status", "test", "counts", "estimate", "p (supports)", "p (falsifies)"},
	}
	for _, c := range r.Results {
		if len(c.Tests) == 1 {
			t.rows = append(t.rows, claimRow(c.Claim+fmt.Sprintf(" [α=%g]", c.Alpha), c.Tests[0]))
			continue
		}
		t.rows = append(t.rows, []string{c.Claim + fmt.Sprintf(" [α=%g]", c.Alpha), string(c.Status), c.Rule, "", "", "", ""})
		for _, tr := range c.Tests {
			t.rows = append(t.rows, claimRow("  ↳ "+tr.Statement, tr))
		}
	}
	for _, c := range r.Results {
		for _, tr := range c.Tests {
			if tr.Note != "" {
				t.notes = append(t.notes, tr.Statement+": "+tr.Note)
			}
		}
	}
	return []table{t}
}

func claimRow(label string, tr TestResult) []string {
	est := ""
	switch e := tr.Estimate; {
	case e != nil && len(tr.Groups) == 1:
		est = fmt.Sprintf("rate %s (%s %s)", pct(e.Value), ivPct(e.Interval), level(tr.Level))
	case e != nil:
		est = fmt.Sprintf("difference %s, %s", pp(*e), level(tr.Level))
	}
	opt := func(p *float64) string {
		if p == nil {
			return "–"
		}
		return pval(*p)
	}
	return []string{label, string(tr.Status), tr.Method, runList(tr.Groups), est, opt(tr.PSupport), opt(tr.PAgainst)}
}
