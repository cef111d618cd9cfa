//go:build linux

package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/analysis/charts/browsertest"
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

// runCampaign runs a real campaign of the model at rel (from the
// repository root) into dir.
func runCampaign(t *testing.T, rel, dir, runID string, seeds int) {
	t.Helper()
	m, err := model.Load(filepath.Join("..", rel))
	if err != nil {
		t.Fatal(err)
	}
	opts := mcsdk.CampaignOptions{Seeds: seeds, Out: dir, Jobs: 2, RunID: runID, Registry: chordcheck.Registry(),
		Preconditions: map[string]mcsdk.FaultPrecondition{"CrashPrecondition": chordcheck.CrashPrecondition}}
	if _, err := mcsdk.Campaign(context.Background(), m, opts); err != nil {
		t.Fatalf("campaign %s: %v", rel, err)
	}
}

// requireLibrary loads echarts; without it the test fails when CI=true
// and is skipped otherwise.
func requireLibrary(t *testing.T) *charts.Library {
	t.Helper()
	lib, err := charts.LoadLibrary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return lib
}

// reportCase is one report over real campaign datasets.
type reportCase struct {
	name   string
	dirs   []string
	claims []string // extra claims
	drift  bool     // a variant has several runs
	// long: a traced run is longer than TraceSequenceSteps, so its
	// whole diagram is behind a control
	long bool
}

// TestReportFromCampaigns runs small real campaigns (election: fixed and
// bug, twice; chord: orig, fix1, fix2) and checks the reports built from
// their datasets against statistics computed independently here.
func TestReportFromCampaigns(t *testing.T) {
	lib := requireLibrary(t)
	browser := launchBrowser(t)
	tmp := t.TempDir()
	el1, el2, ch := filepath.Join(tmp, "election"), filepath.Join(tmp, "election-again"), filepath.Join(tmp, "chord")
	runCampaign(t, "targets/election/election.model", el1, "run1", 40)
	runCampaign(t, "targets/election/election.model", el2, "run2", 40)
	runCampaign(t, "targets/chord/chord.model", ch, "run1", 10)
	cases := []reportCase{
		{name: "election", dirs: []string{el1}, claims: []string{"rate(bug) > rate(fixed)", "rate(fixed) <= 5%"}},
		{name: "election-two-runs", dirs: []string{el1, el2}, drift: true},
		{name: "chord", dirs: []string{ch}, claims: []string{"rate(fix2) <= 50%"}, long: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opt := Options{}
			for _, s := range tc.claims {
				c, err := analysis.ParseClaim(s)
				if err != nil {
					t.Fatal(err)
				}
				opt.Claims = append(opt.Claims, c)
			}
			r, err := Build(tc.dirs, opt)
			if err != nil {
				t.Fatal(err)
			}
			page := r.Render(lib)
			rows := readRows(t, tc.dirs)
			t.Run("table", func(t *testing.T) { checkVariantTable(t, page, rows, manifestOrder(t, tc.dirs)) })
			t.Run("claims", func(t *testing.T) { checkClaims(t, page, rows, manifestOrder(t, tc.dirs), opt.Claims) })
			t.Run("traces", func(t *testing.T) { checkTraces(t, page, rows, tc.long) })
			t.Run("invariant sets", func(t *testing.T) { checkInvariantSets(t, r, page, rows) })
			t.Run("facts", func(t *testing.T) { checkFacts(t, page, tc.dirs) })
			t.Run("drift", func(t *testing.T) { checkDrift(t, page, tc.drift) })
			t.Run("deterministic", func(t *testing.T) { checkDeterministic(t, page, tc.dirs, opt, lib) })
			t.Run("browser", func(t *testing.T) { checkBrowser(t, browser, tc.name, page) })
		})
	}
}

// sourcedRow is a verdict row with the dataset it came from.
type sourcedRow struct {
	dir string
	dataset.Row
}

func readRows(t *testing.T, dirs []string) []sourcedRow {
	t.Helper()
	var out []sourcedRow
	for _, d := range dirs {
		rows, err := dataset.ReadRows(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out = append(out, sourcedRow{d, r})
		}
	}
	if len(out) == 0 {
		t.Fatal("the campaigns wrote no rows")
	}
	return out
}

func manifestOrder(t *testing.T, dirs []string) []string {
	t.Helper()
	var order []string
	for _, d := range dirs {
		m, err := dataset.ReadManifest(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range m.VariantNames() {
			if !slices.Contains(order, v) {
				order = append(order, v)
			}
		}
	}
	return order
}

var (
	variantRow = regexp.MustCompile(`<tr data-variant="([^"]*)">(.*?)</tr>`)
	cell       = regexp.MustCompile(`<td[^>]*>(.*?)</td>`)
)

// checkVariantTable compares the page's variant table with counts made
// here from the rows and Wilson intervals from analysis.WilsonInterval.
func checkVariantTable(t *testing.T, page []byte, rows []sourcedRow, order []string) {
	type counts struct{ runs, valid, invalid, violated, errors int }
	by := map[string]*counts{}
	for _, r := range rows {
		c := by[r.Variant]
		if c == nil {
			c = &counts{}
			by[r.Variant] = c
		}
		c.runs++
		switch r.Verdict {
		case dataset.Holds:
			c.valid++
		case dataset.Violated:
			c.valid++
			c.violated++
		case dataset.Invalid:
			c.invalid++
		case dataset.Error:
			c.errors++
		}
	}
	got := map[string][]string{}
	var gotOrder []string
	for _, m := range variantRow.FindAllSubmatch(page, -1) {
		v := html.UnescapeString(string(m[1]))
		gotOrder = append(gotOrder, v)
		for _, c := range cell.FindAllSubmatch(m[2], -1) {
			got[v] = append(got[v], html.UnescapeString(string(c[1])))
		}
	}
	if !slices.Equal(gotOrder, order) {
		t.Errorf("variant rows %v, want manifest order %v", gotOrder, order)
	}
	for v, c := range by {
		want := []string{v, fmt.Sprint(c.runs), fmt.Sprint(c.valid), fmt.Sprint(c.invalid), fmt.Sprint(c.violated), fmt.Sprint(c.errors), "—", "—"}
		if c.valid > 0 {
			iv, err := analysis.WilsonInterval(analysis.Count{Successes: c.violated, Trials: c.valid}, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			want[6] = fmt.Sprintf("%.2f %%", 100*float64(c.violated)/float64(c.valid))
			want[7] = fmt.Sprintf("%.2f %% – %.2f %%", 100*iv.Lower, 100*iv.Upper)
		}
		if !slices.Equal(got[v], want) {
			t.Errorf("row of %s:\n got %q\nwant %q", v, got[v], want)
		}
	}
}

// checkClaims evaluates the default ordering claim and the extra claims on a
// tally made here and expects their rendering, verdicts included.
func checkClaims(t *testing.T, page []byte, rows []sourcedRow, order []string, extra []analysis.Claim) {
	outcomes := make([]analysis.Outcome, len(rows))
	for i, r := range rows {
		outcomes[i] = analysis.Outcome{Variant: r.Variant, Run: r.RunID, Verdict: r.Verdict, Seed: r.Seed}
	}
	tab, err := analysis.Tally(outcomes)
	if err != nil {
		t.Fatal(err)
	}
	claims := append([]analysis.Claim{analysis.OrderRates(analysis.Above, order...)}, extra...)
	rep, err := analysis.EvaluateClaims(claims, tab)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(rep.HTML())) {
		t.Errorf("the page lacks the claims table\n%s", rep.HTML())
	}
	for _, res := range rep.Results {
		want := fmt.Sprintf("%s [α=%g]</td><td class=\"%s\">%s</td>", html.EscapeString(res.Claim), res.Alpha, res.Status, res.Status)
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page lacks claim %q with status %s (%q)", res.Claim, res.Status, want)
		}
	}
	if len(rep.Results[0].Tests) != len(order)-1 {
		t.Errorf("the ordering claim has %d links, want %d", len(rep.Results[0].Tests), len(order)-1)
	}
}

// checkTraces expects, for every variant with violations, its lowest
// violating seed with a recording: a section with the timeline, the state
// change at the first violation and the replay command.
func checkTraces(t *testing.T, page []byte, rows []sourcedRow, long bool) {
	first := map[string]sourcedRow{}
	for _, r := range rows {
		if r.Verdict != dataset.Violated || r.RecordingPath == "" {
			continue
		}
		if f, ok := first[r.Variant]; !ok || r.Seed < f.Seed {
			first[r.Variant] = r
		}
	}
	if len(first) == 0 {
		t.Fatal("no violating run with a recording: the campaigns are too small to test traces")
	}
	longs := 0
	defer func() {
		if long && longs == 0 {
			t.Errorf("no traced run is longer than %d steps: the whole-run control is not tested", TraceSequenceSteps)
		}
	}()
	for v, r := range first {
		start := bytes.Index(page, []byte(fmt.Sprintf(`<section class="trace" data-variant="%s" data-seed="%d">`, html.EscapeString(v), r.Seed)))
		if start < 0 {
			t.Errorf("no traced failure for %s seed %d", v, r.Seed)
			continue
		}
		end := bytes.Index(page[start:], []byte("</section>"))
		sec := string(page[start : start+end])
		path := filepath.Join(r.dir, r.RecordingPath)
		rec, err := weftlog.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var last *weftlog.Event
		for i, e := range rec.Events {
			if e.Kind == "state" && e.Step <= JudgedStep(rec.Verdict) {
				last = &rec.Events[i]
			}
		}
		// chord judges its end state (check = "final"); election
		// its first violation
		where := fmt.Sprintf("first at step %d", rec.Verdict.FirstViolationStep)
		if EndJudged(rec.Verdict) {
			where = fmt.Sprintf("in the end state (step %d;", rec.Verdict.Steps)
		}
		wants := []string{`data-weft-chart="timeline"`, `data-weft-chart="sequence"`, ViolationText(rec.Verdict), "weft replay " + path, where}
		if last != nil {
			wants = append(wants, html.EscapeString(fmt.Sprintf("n%d.%s = %s", last.Node, last.Var, last.Value)))
		}
		for _, w := range wants {
			if !strings.Contains(sec, w) {
				t.Errorf("traced failure of %s seed %d lacks %q", v, r.Seed, w)
			}
		}
		if n := strings.Count(sec, `data-weft-chart="sequence"`); n != 1 {
			t.Errorf("traced failure of %s has %d sequence diagrams, want 1", v, n)
		}
		longs += checkWholeRun(t, sec, rec)
		faults := 0
		for _, e := range rec.Events {
			if (e.Kind == "crash" || e.Kind == "restart") && e.Step <= rec.Verdict.FirstViolationStep {
				faults++
				if w := html.EscapeString(fmt.Sprintf("%s n%d", strings.ToUpper(e.Kind), e.Node)); !strings.Contains(sec, w) {
					t.Errorf("traced failure of %s seed %d does not list the fault %q before the violation", v, r.Seed, w)
				}
			}
		}
		if n := strings.Count(sec, "<tr"); n < 2 || n > DefaultTraceRows+faults+1 {
			t.Errorf("traced failure of %s lists %d rows, want 1..%d", v, n-1, DefaultTraceRows+faults)
		}
	}
}

// checkWholeRun checks a traced failure's diagrams: a run longer than
// TraceSequenceSteps up to the judged step shows only its last steps,
// saying which, and the whole run's diagram (exactly weft trace --svg's)
// behind the "The whole run" control; a shorter one is drawn whole, with
// no control. It returns 1 for a long run.
func checkWholeRun(t *testing.T, sec string, rec *weftlog.Recording) int {
	t.Helper()
	whole, err := SequenceSVG(rec, 0)
	if err != nil {
		t.Fatal(err)
	}
	from, last := sequenceWindow(rec, TraceSequenceSteps)
	controls := strings.Count(sec, `<details class="seqwhole">`)
	if from == 0 {
		if controls != 0 || !strings.Contains(sec, string(whole)) {
			t.Errorf("a run of %d steps: %d whole-run controls, whole diagram drawn %v; want it drawn, no control", last, controls, strings.Contains(sec, string(whole)))
		}
		return 0
	}
	for _, w := range []string{
		fmt.Sprintf("steps %d–%d of the recording, the last %d up to the ", from, last, TraceSequenceSteps),
		fmt.Sprintf("<summary>The whole run: steps 0–%d (the diagram above shows steps %d–%d)</summary>", last, from, last),
		`<details class="seqwhole"><summary>`, string(whole),
	} {
		if !strings.Contains(sec, w) {
			t.Errorf("a run of %d steps: its traced failure lacks %.200q", last, w)
		}
	}
	if i, j := strings.Index(sec, `data-weft-chart="sequence"`), strings.Index(sec, string(whole)); controls != 1 || j < strings.Index(sec, "<details") || i > j {
		t.Errorf("a run of %d steps: %d whole-run controls; want its last steps drawn, then the whole run in the control", last, controls)
	}
	return 1
}

// checkInvariantSets: each violated run is counted once, so the counts
// per variant in the invariant chart and table equal the rates table's
// violated runs, and every variant is on the chart, violations or not.
func checkInvariantSets(t *testing.T, r *Report, page []byte, rows []sourcedRow) {
	violated := map[string]int{}
	for _, row := range rows {
		if row.Verdict == dataset.Violated {
			violated[row.Variant]++
		}
	}
	got := map[string]int{}
	for _, s := range r.BySet {
		got[s.Variant] += s.Runs
	}
	for _, v := range r.Rates {
		if got[v.Variant] != v.Violated || v.Violated != violated[v.Variant] {
			t.Errorf("%s: the invariant sets count %d violated runs, the rates table %d, the rows %d", v.Variant, got[v.Variant], v.Violated, violated[v.Variant])
		}
		if !bytes.Contains(page, []byte(fmt.Sprintf(`<tr data-set-variant="%s">`, html.EscapeString(v.Variant)))) {
			t.Errorf("variant %s is missing from the invariant table", v.Variant)
		}
	}
	if r.figs.invariants != nil {
		opt := r.figs.invariants.OptionJS()
		for _, v := range r.Rates {
			if !strings.Contains(opt, `"`+v.Variant+`"`) {
				t.Errorf("variant %s is not on the invariant chart's axis", v.Variant)
			}
		}
	}
}

// checkFacts: the page states each dataset's seeds, compute time, fault
// model, variant flags and invariant meanings, and the rates table once.
func checkFacts(t *testing.T, page []byte, dirs []string) {
	for _, d := range dirs {
		m, err := dataset.ReadManifest(d)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := model.Parse(m.ModelPath, []byte(m.ModelText))
		if err != nil {
			t.Fatalf("manifest model text: %v", err)
		}
		wants := []string{"<th>seeds</th><td>" + dataset.SeedsText(m.Seeds) + "</td>", "<th>compute time</th>", `<table class="faultmodel">`,
			"<th>machines</th><td>" + html.EscapeString(machines(m.Machines)) + "</td>"}
		for _, v := range m.Variants {
			if v.CFlags != "" {
				wants = append(wants, "<code>"+html.EscapeString(v.CFlags)+"</code>")
			}
		}
		for _, inv := range mod.Invariants {
			wants = append(wants, "<tr><td>"+html.EscapeString(inv.Name)+"</td>")
		}
		for _, w := range wants {
			if !bytes.Contains(page, []byte(w)) {
				t.Errorf("the page lacks %q", w)
			}
		}
	}
	if n := bytes.Count(page, []byte("<caption>Violation rates (")); n != 0 {
		t.Errorf("the summary's rates table repeats the variant table (%d times)", n)
	}
	if !bytes.Contains(page, []byte("break-inside: avoid")) {
		t.Error("charts may split across printed pages")
	}
}

func checkDrift(t *testing.T, page []byte, want bool) {
	got := bytes.Contains(page, []byte(`data-weft-chart="drift"`))
	if got != want {
		t.Errorf("drift chart present %v, want %v", got, want)
	}
}

// checkDeterministic builds and renders the report again from scratch.
func checkDeterministic(t *testing.T, page []byte, dirs []string, opt Options, lib *charts.Library) {
	r, err := Build(dirs, opt)
	if err != nil {
		t.Fatal(err)
	}
	again := r.Render(lib)
	if !bytes.Equal(page, again) {
		i := 0
		for i < len(page) && i < len(again) && page[i] == again[i] {
			i++
		}
		t.Errorf("two renders differ from byte %d: %q vs %q", i, snippet(page, i), snippet(again, i))
	}
}

func snippet(b []byte, i int) string {
	return string(b[max(0, i-40):min(len(b), i+40)])
}

// launchBrowser starts one headless Chromium for every page of the test,
// or returns nil when there is none (checkBrowser then fails or skips).
func launchBrowser(t *testing.T) *browsertest.Browser {
	t.Helper()
	chromium, err := browsertest.Chromium()
	if err != nil {
		return nil
	}
	b, err := browsertest.Launch(context.Background(), browsertest.Options{Chromium: chromium, Screenshot: true, Timeout: browserTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// browserTimeout bounds a report's visit in headless Chromium (loading,
// painting every chart, the whole-page screenshot). The chord report
// opens in about 10 s on an idle machine and took 47-82 s with its
// screenshot at load 40 (2 cores); CI shares its cores with other jobs:
// the bound is far above need, so that reaching it means the page hangs,
// not that the machine is busy.
const browserTimeout = 10 * time.Minute

// wholeRunJS opens each traced failure's "The whole run" control, measures
// the diagram it holds (closed, then open), counts its shapes and closes
// it again, before the screenshot; closed is the control's own height.
const wholeRunJS = `(function () {
  var out = [];
  document.querySelectorAll("details.seqwhole").forEach(function (d) {
    var svg = d.querySelector("svg");
    var closed = d.getBoundingClientRect().height;
    d.open = true;
    var box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    out.push({closed: closed, width: box.width, height: box.height, shapes: svg ? svg.querySelectorAll("line,path,text").length : 0});
    d.open = false;
  });
  return out;
})()`

// checkBrowser opens the page in headless Chromium: every chart must paint,
// with no console error and no network request, and each whole-run
// control must show its diagram once opened (not drawn while closed).
// Without Chromium it fails when CI=true and skips otherwise.
// WEFT_SCREENSHOT_DIR, if set, keeps a PNG of the page there.
func checkBrowser(t *testing.T, b *browsertest.Browser, name string, page []byte) {
	if b == nil {
		browsertest.Require(t)
		t.Fatal("browsertest.Require found a browser that browsertest.Chromium did not")
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteFile(path, page); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("WEFT_SCREENSHOT_DIR")
	start := time.Now()
	res, err := b.OpenURL(context.Background(), (&url.URL{Scheme: "file", Path: path}).String(), wholeRunJS)
	if err != nil {
		t.Fatalf("headless Chromium did not render the %d-byte report within %v (after %v): %v", len(page), browserTimeout, time.Since(start).Round(time.Second), err)
	}
	t.Logf("rendered %d bytes in %v", len(page), time.Since(start).Round(time.Millisecond))
	checkWholeRunControls(t, res.Value, bytes.Count(page, []byte(`<details class="seqwhole">`)))
	if shots != "" {
		if err := os.WriteFile(filepath.Join(shots, "report-"+name+".png"), res.Screenshot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if ps := res.Problems(); len(ps) > 0 {
		t.Errorf("the report rendered with problems:\n  %s", strings.Join(ps, "\n  "))
	}
	checkScreenshot(t, res.Screenshot)
	want := bytes.Count(page, []byte(`data-weft-chart="`))
	if len(res.Containers) != want || want < 4 {
		t.Errorf("%d chart containers drew, the page has %d (want at least 4)", len(res.Containers), want)
	}
	for _, c := range res.Containers {
		if !c.Painted || c.Canvases+c.SVGs == 0 {
			t.Errorf("chart %s (%s) did not draw: %+v", c.ID, c.Kind, c)
		}
	}
}

// checkWholeRunControls checks what wholeRunJS found: want controls,
// each hiding its diagram while closed and drawing it once opened.
func checkWholeRunControls(t *testing.T, value []byte, want int) {
	t.Helper()
	var got []struct {
		Closed, Width, Height float64
		Shapes                int
	}
	if err := json.Unmarshal(value, &got); err != nil {
		t.Fatalf("whole-run controls: %v in %s", err, value)
	}
	if len(got) != want {
		t.Errorf("%d whole-run controls in the browser, the page has %d", len(got), want)
	}
	for i, c := range got {
		if c.Closed <= 0 || c.Closed > 100 || c.Width < 100 || c.Height < 100 || c.Shapes < 10 {
			t.Errorf("whole-run control %d: %+v; want one line while closed, and its diagram drawn once opened", i, c)
		}
	}
}

// checkScreenshot decodes the page's screenshot: a full-width, long page
// with real content (many colours, a good share of non-white pixels).
func checkScreenshot(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	colours := map[[3]uint32]bool{}
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 10, g >> 10, bl >> 10}] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
		}
	}
	share := float64(ink) / float64((b.Dx()/2)*(b.Dy()/2))
	t.Logf("screenshot %dx%d: %d colours, %.1f%% ink", b.Dx(), b.Dy(), len(colours), 100*share)
	if b.Dx() < 1000 || b.Dy() < 2000 || len(colours) < 64 || share < 0.02 {
		t.Errorf("the screenshot (%dx%d, %d colours, %.2f%% ink) does not show a drawn report", b.Dx(), b.Dy(), len(colours), 100*share)
	}
}

// TestRunBrowser builds the report with AllRuns over an election campaign
// recorded in full: every run is listed with its verdict and fault
// schedule, every run opens its sequence diagram and events, and in
// headless Chromium the filter shows exactly the violated runs.
func TestRunBrowser(t *testing.T) {
	lib := requireLibrary(t)
	dir := filepath.Join(t.TempDir(), "election")
	m, err := model.Load("../targets/election/election.model")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcsdk.Campaign(context.Background(), m, mcsdk.CampaignOptions{Seeds: 30, Out: dir, Jobs: 2, RecordAll: true}); err != nil {
		t.Fatal(err)
	}
	r, err := Build([]string{dir}, Options{AllRuns: true})
	if err != nil {
		t.Fatal(err)
	}
	page := r.Render(lib)
	rows := readRows(t, []string{dir})
	violated := 0
	for _, row := range rows {
		if row.Verdict == dataset.Violated {
			violated++
		}
		e := RunEntry{Row: row.Row, Run: row.RunID}
		line := fmt.Sprintf(`<tr class="run" data-verdict="%s" data-run-variant="%s"><td>%s</td><td class="num">%d</td>`, row.Verdict, row.Variant, row.Variant, row.Seed)
		for _, want := range []string{line, html.EscapeString(FaultsText(row.Faults)), fmt.Sprintf(`<details class="run-detail" id="%s">`, e.ID()), `href="#` + e.ID() + `"`} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("%s seed %d: the run browser lacks %q", row.Variant, row.Seed, want)
			}
		}
		if !strings.Contains(FaultsText(row.Faults), "crash n2") {
			t.Errorf("%s seed %d: fault schedule %q lacks the crash of n2", row.Variant, row.Seed, FaultsText(row.Faults))
		}
	}
	if got := bytes.Count(page, []byte(`<details class="run-detail"`)); got != len(rows) {
		t.Errorf("%d runs open a diagram, want all %d", got, len(rows))
	}
	chromium, err := browsertest.Chromium()
	if err != nil {
		browsertest.Require(t)
	}
	ready := fmt.Sprintf(`window.weftFilterRuns && weftFilterRuns("", "violated", "") === "%d of %d runs"`, violated, len(rows))
	b, err := browsertest.Launch(context.Background(), browsertest.Options{Chromium: chromium, ReadyExpr: ready})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	path := filepath.Join(t.TempDir(), "runs.html")
	if err := WriteFile(path, page); err != nil {
		t.Fatal(err)
	}
	res, err := b.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if ps := res.Problems(); len(ps) > 0 || !res.Settled {
		t.Errorf("run browser in Chromium: settled %v (filter to violated runs), problems %v", res.Settled, ps)
	}
}

// TestReportEmbedsLinearizability: a campaign of the quorum register
// workload's bug variant fails linearizability on some seeds; the report's
// traced failure embeds Porcupine's visualisation of that run's history,
// and the dataset's rows count the operations.
func TestReportEmbedsLinearizability(t *testing.T) {
	m, err := model.Load("../targets/quorum/register.model")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "register")
	if _, err := mcsdk.Campaign(context.Background(), m, mcsdk.CampaignOptions{Seeds: 100, Out: dir, Jobs: 2, Variants: []string{"bug"}}); err != nil {
		t.Fatal(err)
	}
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	violated := 0
	for _, r := range rows {
		if r.Ops == nil || r.OpsIndeterminate == nil || *r.Ops == 0 || *r.OpsIndeterminate > *r.Ops {
			t.Fatalf("seed %d: ops %v, indeterminate %v", r.Seed, r.Ops, r.OpsIndeterminate)
		}
		if r.Verdict == dataset.Violated {
			violated++
		}
	}
	if violated == 0 {
		t.Fatal("no linearizability violation over 100 seeds")
	}
	rep, err := Build([]string{dir}, Options{NoDefaultClaim: true})
	if err != nil {
		t.Fatal(err)
	}
	page := string(rep.Render(requireLibrary(t)))
	if !strings.Contains(page, `<iframe class="porcupine"`) || !strings.Contains(page, "srcdoc=") {
		t.Fatal("the traced failure does not embed Porcupine's visualisation")
	}
}
