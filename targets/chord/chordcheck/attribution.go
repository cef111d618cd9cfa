package chordcheck

import (
	"fmt"
	"math"
	"math/bits"
	"path/filepath"
	"slices"
	"strings"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// CheckNames are the checks of CHORD_CHECKS in bit order (bit 0 =
// stabilize … bit 3 = responder), the factors of the attribution design.
func CheckNames() []string {
	return []string{CheckStabilize, CheckReconcile, CheckUpdate, CheckResponder}
}

// LevelMasks are the masks of levels 0, 1 and 2.
func LevelMasks() []int { return []int{0, 1, 15} }

// MaskVariant names mask's variant in chord-attribution.model ("c05").
func MaskVariant(mask int) string { return fmt.Sprintf("c%02d", mask) }

// MaskLetters spells a mask as SRUG with "-" for checks off ("S-U-").
func MaskLetters(mask int) string {
	b := []byte("SRUG")
	for i := range b {
		if mask&(1<<i) == 0 {
			b[i] = '-'
		}
	}
	return string(b)
}

// MaskRow is one variant's outcome: the spec's rate (violated / valid,
// Wilson) and the intention-to-treat rate (violated or invalid / runs).
type MaskRow struct {
	Mask    int               `json:"mask"`
	Variant string            `json:"variant"`
	Tally   analysis.TallyRow `json:"tally"`
	Spec    analysis.Interval `json:"spec_interval"`
	ITT     analysis.ITTRow   `json:"itt"`
}

// LevelCause is why one level's run of a seed was invalid.
type LevelCause struct {
	Level   int           `json:"level"`
	Variant string        `json:"variant"`
	Cause   *InvalidCause `json:"cause,omitempty"`
	Err     string        `json:"error,omitempty"` // the recording could not explain it
}

// SeedCauses lists, for a seed invalid at some levels only, each invalid
// level's cause.
type SeedCauses struct {
	Seed   int64        `json:"seed"`
	Rule   string       `json:"rule"` // which masks are invalid (MaskRule)
	Causes []LevelCause `json:"causes"`
}

// RuleCount counts the seeds invalid at some masks only by MaskRule.
type RuleCount struct {
	Rule  string `json:"rule"`
	Seeds int    `json:"seeds"`
}

// MaskRule describes the set of masks at which a seed is invalid (bit m
// of invalid set for mask m) by the checks that make it valid: "valid iff
// the reconcile check is on", "valid iff any of stabilize, reconcile is
// on", "valid iff all of … are on", or the list of invalid masks.
func MaskRule(invalid uint16) string {
	var sets []int
	for b := 1; b < 16; b++ {
		sets = append(sets, b)
	}
	slices.SortStableFunc(sets, func(x, y int) int { return bits.OnesCount(uint(x)) - bits.OnesCount(uint(y)) })
	names := func(b int) string {
		var out []string
		for i, n := range CheckNames() {
			if b&(1<<i) != 0 {
				out = append(out, n)
			}
		}
		return strings.Join(out, ", ")
	}
	for _, b := range sets {
		anyOn, allOn := true, true
		for m := range 16 {
			inv := invalid&(1<<m) != 0
			anyOn = anyOn && inv == (m&b == 0)
			allOn = allOn && inv == (m&b != b)
		}
		switch {
		case anyOn && bits.OnesCount(uint(b)) == 1:
			return "valid iff the " + names(b) + " check is on"
		case anyOn:
			return "valid iff any of " + names(b) + " is on"
		case allOn:
			return "valid iff all of " + names(b) + " are on"
		}
	}
	var masks []string
	for m := range 16 {
		if invalid&(1<<m) != 0 {
			masks = append(masks, MaskVariant(m))
		}
	}
	return "invalid at " + strings.Join(masks, " ")
}

// CauseCount counts invalid runs by cause category and refusing check.
type CauseCount struct {
	Category string `json:"category"`
	Refused  string `json:"refused"`
	Runs     int    `json:"runs"`
}

// PerfectRow is one level under perfect failure detection; Upper is the
// exact one-sided 95 % upper bound (Clopper–Pearson) on the spec's rate.
type PerfectRow struct {
	Level int     `json:"level"`
	Row   MaskRow `json:"row"`
	Upper float64 `json:"upper"`
}

// Attribution is the analysis of issue 21 (targets/chord/README.md, "Beyond
// the seed"): the 16 masks over the same seeds, the levels compared by the
// intention-to-treat outcome, the causes of invalid runs, and the levels
// under perfect failure detection.
type Attribution struct {
	Dir     string    `json:"dir"`
	Rows    []MaskRow `json:"rows"` // by mask
	Seeds   int       `json:"seeds"`
	Dropped int       `json:"dropped"` // seeds left out of the effects (an error somewhere)
	// Effects by outcome ("violated", "invalid", "itt"): 2⁴ factorial
	// contrasts over seeds, 95 % normal intervals.
	Effects map[string][]analysis.FactorialEffect `json:"effects"`
	// Levels: ITT paired tests of levels 0–1, 1–2, 0–2, with Holm's
	// adjustment of the first two (the ordering claim).
	Levels   []analysis.ITTPairedTest `json:"levels"`
	HolmP    []float64                `json:"holm_p"`
	Ordered  bool                     `json:"ordered"` // level 0 > 1 > 2 by the pre-registered rule
	Spec     []analysis.PairedTest    `json:"spec_paired"`
	Invalid  []SeedCauses             `json:"invalid_some_levels"`
	Causes   []CauseCount             `json:"causes"` // over every mask, seeds not invalid at all 16
	Rules    []RuleCount              `json:"rules"`  // seeds invalid at some masks only, by MaskRule
	Perfect  []PerfectRow             `json:"perfect,omitempty"`
	PerfectP []analysis.ITTPairedTest `json:"perfect_levels,omitempty"`
}

// outcomeNames are the outcomes of the effects, in display order.
func outcomeNames() []string { return []string{"violated", "invalid", "itt"} }

// outcomeTitle names an outcome's rate.
func outcomeTitle(name string) string {
	return map[string]string{"violated": "P(violated)", "invalid": "P(invalid)", "itt": "P(failed, ITT)"}[name]
}

// Attribute analyses the dataset of chord-attribution.model in dir (all 16
// variants over the same seeds) and, if perfect is not "", the dataset of
// chord-perfect.model (variants orig, fix1, fix2).
func Attribute(dir, perfect string) (*Attribution, error) {
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		return nil, err
	}
	a := &Attribution{Dir: dir, Effects: map[string][]analysis.FactorialEffect{}}
	outcomes := toOutcomes(rows)
	variants := make([]string, 16)
	for m := range variants {
		variants[m] = MaskVariant(m)
	}
	if a.Rows, err = maskRows(outcomes, variants); err != nil {
		return nil, err
	}
	for _, name := range outcomeNames() {
		resp := map[string]func(string) float64{"violated": analysis.ResponseViolated, "invalid": analysis.ResponseInvalid, "itt": analysis.ResponseITT}[name]
		y, seeds, dropped, err := analysis.FactorialResponses(outcomes, variants, resp)
		if err != nil {
			return nil, err
		}
		a.Seeds, a.Dropped = len(seeds), dropped
		if a.Effects[name], err = analysis.FactorialEffects(y, CheckNames(), 0.95); err != nil {
			return nil, err
		}
	}
	if err := a.levels(outcomes); err != nil {
		return nil, err
	}
	if err := a.explain(dir, rows); err != nil {
		return nil, err
	}
	if perfect != "" {
		if err := a.perfect(perfect); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func toOutcomes(rows []dataset.Row) []analysis.Outcome {
	out := make([]analysis.Outcome, len(rows))
	for i, r := range rows {
		out[i] = analysis.Outcome{Variant: r.Variant, Run: r.RunID, Verdict: r.Verdict, Seed: r.Seed}
	}
	return out
}

// maskRows tallies each variant (named by variants, mask = index) by the
// spec's rate and by the ITT outcome.
func maskRows(outcomes []analysis.Outcome, variants []string) ([]MaskRow, error) {
	table, err := analysis.Tally(firstRun(outcomes))
	if err != nil {
		return nil, err
	}
	itt, err := analysis.IntentionToTreat(outcomes, 0.95)
	if err != nil {
		return nil, err
	}
	var out []MaskRow
	for m, v := range variants {
		t, ok := table.Variant(v)
		if !ok {
			return nil, fmt.Errorf("chordcheck: the dataset has no variant %s", v)
		}
		r := MaskRow{Mask: m, Variant: v, Tally: t}
		if t.Valid > 0 {
			if r.Spec, err = analysis.WilsonInterval(t.Count(), 0.95); err != nil {
				return nil, err
			}
		}
		for _, x := range itt {
			if x.Variant == v {
				r.ITT = x
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// firstRun keeps the outcomes of the first run (as the paired tests do).
func firstRun(outcomes []analysis.Outcome) []analysis.Outcome {
	var out []analysis.Outcome
	for _, o := range outcomes {
		if o.Run == outcomes[0].Run {
			out = append(out, o)
		}
	}
	return out
}

// levels compares levels 0, 1 and 2 seed by seed.
func (a *Attribution) levels(outcomes []analysis.Outcome) error {
	lv := levelVariants(MaskVariant)
	var err error
	if a.Levels, err = analysis.IntentionToTreatPaired(outcomes, lv); err != nil {
		return err
	}
	// IntentionToTreatPaired orders the pairs 0–1, 0–2, 1–2.
	a.Levels = []analysis.ITTPairedTest{a.Levels[0], a.Levels[2], a.Levels[1]}
	a.HolmP = analysis.HolmAdjust([]float64{a.Levels[0].PValue, a.Levels[1].PValue})
	a.Ordered = true
	for i := range 2 {
		a.Ordered = a.Ordered && a.Levels[i].OnlyA > a.Levels[i].OnlyB && a.HolmP[i] < 0.05
	}
	a.Spec, err = analysis.PairedComparisons(outcomes, lv)
	return err
}

func levelVariants(name func(int) string) []string {
	var out []string
	for _, m := range LevelMasks() {
		out = append(out, name(m))
	}
	return out
}

// explain finds the cause of every invalid run on a seed that is not
// invalid everywhere, from its recording.
func (a *Attribution) explain(dir string, rows []dataset.Row) error {
	bySeed := map[int64]map[string]dataset.Row{}
	for _, r := range rows {
		if r.RunID != rows[0].RunID {
			continue
		}
		if bySeed[r.Seed] == nil {
			bySeed[r.Seed] = map[string]dataset.Row{}
		}
		bySeed[r.Seed][r.Variant] = r
	}
	seeds := make([]int64, 0, len(bySeed))
	for s := range bySeed {
		seeds = append(seeds, s)
	}
	slices.Sort(seeds)
	counts, rules := map[[2]string]int{}, map[string]int{}
	for _, s := range seeds {
		runs := bySeed[s]
		var invalid uint16
		for m := range 16 {
			if runs[MaskVariant(m)].Verdict == dataset.Invalid {
				invalid |= 1 << m
			}
		}
		if invalid == 0 || invalid == 0xffff {
			continue
		}
		rule := MaskRule(invalid)
		rules[rule]++
		for m := range 16 {
			r := runs[MaskVariant(m)]
			if r.Verdict != dataset.Invalid {
				continue
			}
			lc := explainRow(dir, r)
			key := [2]string{"recording not explained", ""}
			if lc.Cause != nil {
				key = [2]string{lc.Cause.Category(), lc.Cause.Refused()}
			}
			counts[key]++
		}
		a.levelCauses(dir, s, rule, runs)
	}
	for r, n := range rules {
		a.Rules = append(a.Rules, RuleCount{Rule: r, Seeds: n})
	}
	slices.SortFunc(a.Rules, func(x, y RuleCount) int {
		if x.Seeds != y.Seeds {
			return y.Seeds - x.Seeds
		}
		return strings.Compare(x.Rule, y.Rule)
	})
	for k, n := range counts {
		a.Causes = append(a.Causes, CauseCount{Category: k[0], Refused: k[1], Runs: n})
	}
	slices.SortFunc(a.Causes, func(x, y CauseCount) int {
		if x.Runs != y.Runs {
			return y.Runs - x.Runs
		}
		return strings.Compare(x.Category+x.Refused, y.Category+y.Refused)
	})
	return nil
}

// levelCauses records seed s if it is invalid at some of the levels only.
func (a *Attribution) levelCauses(dir string, s int64, rule string, runs map[string]dataset.Row) {
	sc := SeedCauses{Rule: rule}
	n := 0
	for level, m := range LevelMasks() {
		r := runs[MaskVariant(m)]
		if r.Verdict != dataset.Invalid {
			continue
		}
		n++
		lc := explainRow(dir, r)
		lc.Level = level
		sc.Causes = append(sc.Causes, lc)
	}
	if n > 0 && n < len(LevelMasks()) {
		sc.Seed = s
		a.Invalid = append(a.Invalid, sc)
	}
}

// explainRow explains an invalid run from its recording.
func explainRow(dir string, r dataset.Row) LevelCause {
	lc := LevelCause{Variant: r.Variant}
	if r.RecordingPath == "" {
		lc.Err = "no recording"
		return lc
	}
	rec, err := weftlog.ReadFile(filepath.Join(dir, r.RecordingPath))
	if err == nil {
		var c InvalidCause
		if c, err = ExplainInvalid(rec); err == nil {
			lc.Cause = &c
			return lc
		}
	}
	lc.Err = err.Error()
	return lc
}

// perfect tallies the levels of chord-perfect.model (orig, fix1, fix2).
func (a *Attribution) perfect(dir string) error {
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		return err
	}
	outcomes := toOutcomes(rows)
	lv := []string{"orig", "fix1", "fix2"}
	mr, err := maskRows(outcomes, lv)
	if err != nil {
		return err
	}
	for level, r := range mr {
		r.Mask = LevelMasks()[level]
		p := PerfectRow{Level: level, Row: r}
		if r.Tally.Valid > 0 {
			if p.Upper, err = analysis.ClopperPearsonBound(r.Tally.Count(), 0.95, analysis.Less); err != nil {
				return err
			}
		}
		a.Perfect = append(a.Perfect, p)
	}
	a.PerfectP, err = analysis.IntentionToTreatPaired(outcomes, lv)
	return err
}

// Charts returns one chart per outcome: the four main effects and the
// interactions whose interval excludes 0.
func (a *Attribution) Charts() ([]*charts.Chart, error) {
	var out []*charts.Chart
	for _, name := range outcomeNames() {
		var bars []charts.EffectBar
		for _, e := range a.Effects[name] {
			if len(e.Factors) == 1 || matters(e) {
				lo, hi := e.Lower, e.Upper
				if math.IsNaN(lo) || math.IsNaN(hi) { // one seed: no interval
					lo, hi = e.Value, e.Value
				}
				bars = append(bars, charts.EffectBar{Effect: e.Name(), Value: e.Value, Lo: lo, Hi: hi, Units: e.Units})
			}
		}
		c, err := charts.Effects("chord-effects-"+name, "Effect of each liveness check on "+outcomeTitle(name), "effect on "+outcomeTitle(name), bars)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// matters: an interaction whose 95 % interval excludes 0.
func matters(e analysis.FactorialEffect) bool {
	return len(e.Factors) > 1 && (e.Lower > 0 || e.Upper < 0)
}
