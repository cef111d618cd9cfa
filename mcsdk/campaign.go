package mcsdk

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
)

// CampaignOptions configures a campaign: every seed of a range for every
// variant, each run a pure function of (model, variant binary, seed).
type CampaignOptions struct {
	Variants  []string // default: every variant, in model order
	Seeds     int      // seeds 0 .. Seeds-1 (default: [campaign] seeds)
	FirstSeed int      // the first seed (default 0)
	// Shard K of N runs only its part of the seed range (K in 1..N).
	ShardK, ShardN int
	Out            string // the dataset directory (resumed if it exists)
	Jobs           int    // parallel runs (default: DefaultJobs)
	RunID          string // names this run of the campaign (default "run1")
	RecordAll      bool   // write a recording for every run, not only failing ones
	// CheckDeterminism runs each seed twice and compares the recordings.
	CheckDeterminism bool
	Registry         model.Registry
	Preconditions    map[string]FaultPrecondition
	Watchdog         time.Duration
	Host             Host // how this host runs nodes (Host)
	// Progress, if set, is called after every run (from one goroutine).
	Progress func(CampaignProgress)
	_        struct{}
}

// CampaignProgress is reported after every run.
type CampaignProgress struct {
	Done, Total int // runs done (including resumed ones) and planned
	Violated    int
	Invalid     int
	Errors      int
	Elapsed     time.Duration
	Resumed     int // runs skipped because the dataset already had them
}

// VariantSummary tallies one variant's runs.
type VariantSummary struct {
	Variant     string         `json:"variant"`
	Runs        int            `json:"runs"`
	Valid       int            `json:"valid"`
	Invalid     int            `json:"invalid"`
	Violated    int            `json:"violated"`
	Errors      int            `json:"errors"`
	Rate        float64        `json:"rate"` // violated / valid (errors excluded)
	ByInvariant map[string]int `json:"by_invariant"`
}

// CampaignSummary is the outcome of a campaign.
type CampaignSummary struct {
	Dir          string           `json:"dir"`
	Variants     []VariantSummary `json:"variants"`
	Runs         int              `json:"runs"`
	Resumed      int              `json:"resumed"`
	Wall         time.Duration    `json:"wall_ns"`
	Interrupted  bool             `json:"interrupted"`
	Nondetermism []string         `json:"nondeterminism,omitempty"`
	// Compared counts the runs whose seed was run twice and compared
	// (CampaignOptions.CheckDeterminism; resumed runs are not).
	Compared int `json:"compared,omitempty"`
}

type job struct {
	variant string
	seed    int
}

// DefaultJobs is how many runs a campaign makes at once when
// CampaignOptions.Jobs is not set: half as many again as the cores weft
// may use (1 on one core, 3 on two). A run spends much of its time waiting
// for a wake-up, on two cores the cores were idle about a fifth of the
// time with one run per core, and a third run fills that. Measured with
// farm-bench on Chord, 3 × 100 seeds on 2 cores, six pairs, medians:
// -j 3 against -j 2 wall ×0.86 (every pair faster), CPU ×1.03; -j 4
// against -j 3 wall ×1.06. On one core (taskset -c 0, orig × 60) -j 2
// against -j 1 was slower, wall ×1.16, so one core keeps one run.
// Machines with more cores were not measured. The datasets are the same
// whatever the number of runs at once.
func DefaultJobs() int { return defaultJobs(runtime.NumCPU()) }

func defaultJobs(cores int) int { return cores + cores/2 }

// Campaign runs the seeds × variants of m into a dataset directory. It
// resumes: runs already in the dataset are skipped. Cancelling ctx stops
// dispatching new runs; runs in flight finish but are not kept (the signal
// that interrupted the campaign may have reached their nodes too), so an
// interrupted campaign keeps only true outcomes, resumes where it stopped
// and leaves no node process behind.
func Campaign(ctx context.Context, m *model.Model, opts CampaignOptions) (*CampaignSummary, error) {
	sp := specsOf(m)
	if opts.Seeds == 0 {
		opts.Seeds = sp.campaign.Seeds
	}
	if opts.Seeds <= 0 {
		return nil, fmt.Errorf("no seeds: give --seeds or [campaign] seeds")
	}
	if opts.Out == "" {
		return nil, fmt.Errorf("no output directory")
	}
	if opts.Jobs <= 0 {
		opts.Jobs = DefaultJobs()
	}
	if opts.RunID == "" {
		opts.RunID = "run1"
	}
	if err := withChecks(m, opts.Host, &opts.Registry, &opts.Preconditions); err != nil {
		return nil, err
	}
	if opts.Registry != nil {
		if err := m.Bind(opts.Registry); err != nil {
			return nil, err
		}
	}
	if len(opts.Variants) == 0 {
		for _, v := range m.Variants {
			opts.Variants = append(opts.Variants, v.Name)
		}
	}
	lo, hi := opts.FirstSeed, opts.FirstSeed+opts.Seeds
	if opts.ShardN > 0 {
		a, b, err := dataset.ShardRange(opts.ShardK, opts.ShardN, opts.Seeds)
		if err != nil {
			return nil, err
		}
		lo, hi = opts.FirstSeed+a, opts.FirstSeed+b
	}
	bins := map[string]Binary{}
	man := dataset.Manifest{
		CampaignID: fmt.Sprintf("%s-%s", filepath.Base(m.Path), m.Hash[:12]), ModelPath: m.Path, ModelHash: m.Hash,
		Seeds: []dataset.SeedRange{{Lo: int64(lo), Hi: int64(hi)}}, Runs: []string{opts.RunID}, ToolVersion: ToolVersion,
	}
	prep := &prepared{sp: sp, syms: map[string]*symbolTable{}}
	for _, name := range opts.Variants {
		b, err := BuildWith(m, name, opts.Host.Toolchain)
		if err != nil {
			return nil, err
		}
		if prep.syms[name], err = readSymbols(b.Path, m.State); err != nil {
			return nil, err
		}
		bins[name] = b
		v, _ := m.Variant(name)
		man.Variants = append(man.Variants, dataset.Variant{Name: b.Variant, BinaryHash: b.Hash, CFlags: v.CFlags})
	}
	if err := describeModel(&man, m); err != nil {
		return nil, err
	}
	w, done, err := openDataset(opts.Out, man)
	if err != nil {
		return nil, err
	}
	var jobs []job
	for _, v := range opts.Variants {
		for seed := lo; seed < hi; seed++ {
			if !done[dataset.Key{Variant: v, Seed: int64(seed), Run: opts.RunID}] {
				jobs = append(jobs, job{v, seed})
			}
		}
	}
	c := &campaign{m: m, opts: opts, bins: bins, prep: prep, w: w, man: w.Manifest(), start: time.Now()}
	c.prog.Total = len(opts.Variants) * (hi - lo)
	c.prog.Resumed = c.prog.Total - len(jobs)
	c.prog.Done = c.prog.Resumed
	c.runAll(ctx, jobs)
	if err := w.Close(); err != nil && c.err == nil {
		c.err = err
	}
	if c.err != nil {
		return nil, c.err
	}
	sum, err := Summarize(opts.Out, opts.Variants)
	if err != nil {
		return nil, err
	}
	sum.Resumed = c.prog.Resumed
	sum.Wall = time.Since(c.start)
	sum.Interrupted = ctx.Err() != nil
	sum.Nondetermism = c.nondet
	sum.Compared = c.compared
	return sum, nil
}

// RecordingName is the file name of the recording of one run of a
// campaign: VARIANT-SEED.weftlog for the first run ("run1"), and
// VARIANT-SEED.RUN.weftlog for any other, so that a rerun of the same
// seeds into the same dataset never overwrites an earlier run's
// recordings.
func RecordingName(variant string, seed int64, run string) string {
	if run == "" || run == "run1" {
		return fmt.Sprintf("%s-%d.weftlog", variant, seed)
	}
	return fmt.Sprintf("%s-%d.%s.weftlog", variant, seed, run)
}

// openDataset creates the dataset or, if it exists, checks that it belongs
// to the same model and binaries and returns what it already holds.
func openDataset(dir string, man dataset.Manifest) (*dataset.Writer, map[dataset.Key]bool, error) {
	if _, err := os.Stat(filepath.Join(dir, dataset.ManifestName)); err != nil {
		w, err := dataset.Create(dir, man, dataset.FlushEvery(64))
		return w, map[dataset.Key]bool{}, err
	}
	old, err := dataset.ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	if old.ModelHash != man.ModelHash {
		return nil, nil, fmt.Errorf("%s holds a campaign of another model (hash %.12s, this model %.12s): use another --out", dir, old.ModelHash, man.ModelHash)
	}
	for _, v := range man.Variants {
		for _, o := range old.Variants {
			if o.Name == v.Name && o.BinaryHash != v.BinaryHash {
				return nil, nil, fmt.Errorf("%s: variant %s was run with another binary (hash %.12s, now %.12s): the target changed; use another --out", dir, v.Name, o.BinaryHash, v.BinaryHash)
			}
		}
	}
	done, err := dataset.Completed(dir)
	if err != nil {
		return nil, nil, err
	}
	w, err := dataset.OpenAppend(dir, dataset.FlushEvery(64))
	if err != nil {
		return nil, nil, err
	}
	// A grown or resumed campaign: the manifest covers the union.
	if err := w.Extend(man.Seeds, man.Runs, man.Variants); err != nil {
		return nil, nil, err
	}
	return w, done, nil
}

type campaign struct {
	m      *model.Model
	opts   CampaignOptions
	bins   map[string]Binary
	prep   *prepared
	w      *dataset.Writer
	man    dataset.Manifest
	start  time.Time
	mu     sync.Mutex
	prog   CampaignProgress
	err    error
	nondet []string
	// compared counts the runs checked for determinism.
	compared int
}

func (c *campaign) runAll(ctx context.Context, jobs []job) {
	ch := make(chan job)
	var wg sync.WaitGroup
	for i := 0; i < c.opts.Jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				c.one(ctx, j)
			}
		}()
	}
	lastFlush := time.Now()
dispatch:
	for _, j := range jobs {
		select {
		case <-ctx.Done():
			break dispatch
		case ch <- j:
		}
		if time.Since(lastFlush) > time.Second {
			c.mu.Lock()
			c.w.Flush()
			c.mu.Unlock()
			lastFlush = time.Now()
		}
		c.mu.Lock()
		failed := c.err != nil
		c.mu.Unlock()
		if failed {
			break
		}
	}
	close(ch)
	wg.Wait()
}

// one runs a job and writes its row (and recording) under the lock.
func (c *campaign) one(ctx context.Context, j job) {
	bin := c.bins[j.variant]
	opts := RunOptions{Variant: j.variant, Seed: uint64(j.seed), Preconditions: c.opts.Preconditions,
		Watchdog: c.opts.Watchdog, Host: c.opts.Host, Build: &bin, prep: c.prep}
	res, err := Run(c.m, opts)
	if cutShort(ctx, res, err) {
		return
	}
	// The recording is encoded only when it is written or compared: its
	// zstd encoding was 7% of weft's CPU time in a holding Chord run.
	var recBytes []byte
	if err == nil && (res.Verdict != Holds || c.opts.RecordAll || c.opts.CheckDeterminism) {
		recBytes, err = res.Recording(c.m).Bytes()
	}
	var nondet string
	compared := false
	if err == nil && c.opts.CheckDeterminism {
		again, err2 := Run(c.m, opts)
		compared = err2 == nil
		if err2 != nil {
			err = err2
		} else if b, _ := again.Recording(c.m).Bytes(); !bytes.Equal(b, recBytes) {
			d := firstDifference(res.Events, again.Events)
			nondet = fmt.Sprintf("%s seed %d: two runs differ", j.variant, j.seed)
			if d != nil {
				nondet += " at " + d.Error()
			}
		}
	}
	row := dataset.Row{CampaignID: c.man.CampaignID, RunID: c.opts.RunID, ModelHash: c.m.Hash, BinaryHash: bin.Hash,
		Variant: j.variant, Seed: int64(j.seed)}
	if err != nil {
		row.Verdict, row.Detail = dataset.Error, err.Error()
	} else {
		row.Verdict = string(res.Verdict)
		row.ViolatedInvariants = res.Violated
		if res.FirstViolationStep >= 0 {
			s, t := int64(res.FirstViolationStep), res.FirstViolationTime
			row.FirstViolationStep, row.FirstViolationTime = &s, &t
		}
		row.Steps = int64(res.Steps)
		row.DistinctStates = int64(res.DistinctStates)
		row.VirtualDuration = res.VirtualTime
		row.WallTime = res.Wall
		row.Detail = res.Detail
		for _, p := range res.Params {
			row.Detail += fmt.Sprintf("%s%s=%s", sep(row.Detail), p.Name, p.Value)
		}
		fillStructured(&row, res)
		if res.Verdict != Holds || c.opts.RecordAll {
			rel := filepath.Join(dataset.RecordingsDir, RecordingName(j.variant, int64(j.seed), c.opts.RunID))
			if werr := writeAtomic(filepath.Join(c.w.Dir(), rel), recBytes); werr != nil {
				// The verdict is kept (the writer's reserve takes it on a
				// full disk); the recording can be made again by rerunning
				// the seed. The campaign stops.
				row.Detail += sep(row.Detail) + "recording not written (" + werr.Error() + "): weft run reproduces it"
				err = fmt.Errorf("recording of %s seed %d: %w", j.variant, j.seed, werr)
			} else if _, werr := writeVisualisation(filepath.Join(c.w.Dir(), rel), res.FirstViolation); werr != nil {
				row.Detail += sep(row.Detail) + "visualisation not written (" + werr.Error() + ")"
				err = fmt.Errorf("visualisation of %s seed %d: %w", j.variant, j.seed, werr)
			} else {
				row.RecordingPath = rel
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil && row.Verdict != dataset.Error && c.err == nil {
		c.err = err
	}
	if werr := c.w.Write(row); werr != nil && c.err == nil {
		c.err = werr
	}
	if nondet != "" {
		c.nondet = append(c.nondet, nondet)
	}
	if compared {
		c.compared++
	}
	c.prog.Done++
	switch row.Verdict {
	case dataset.Violated:
		c.prog.Violated++
	case dataset.Invalid:
		c.prog.Invalid++
	case dataset.Error:
		c.prog.Errors++
	}
	c.prog.Elapsed = time.Since(c.start)
	if c.opts.Progress != nil {
		c.opts.Progress(c.prog)
	}
}

// interruptGrace is how long a run whose node crashed waits for the
// campaign's interruption before its outcome is believed; outsideGrace is
// that wait for an outcome a job's cancellation typically causes: an
// error (a node or its launcher killed while starting) or a node killed
// by a termination signal weft did not send.
const (
	interruptGrace = 50 * time.Millisecond
	outsideGrace   = 3 * time.Second
)

// cutShort reports whether a run's outcome may be the campaign's
// interruption rather than the target's: the signal that stops a campaign
// on a batch system (scancel, a time limit) reaches every process of the
// job, the nodes too, which then die or fail to start. Such a run is not
// kept; resuming the campaign reruns it. Only an error or a node crash can
// be caused so. The signal reaches weft within microseconds of its nodes,
// but Go hands it to the campaign only when its signal goroutine runs,
// which on a loaded machine takes far longer than the run's end takes to
// be seen: outcomes a cancellation typically causes wait outsideGrace for
// it, other crashes (SIGSEGV, an exit status) interruptGrace, and the
// common outcomes not at all.
//
// Why wall-clock time (issue 36 §5): the interruption comes from outside
// the model (a batch system's signal), so no count of the scheduler's can
// say whether it is coming. The grace never changes a run's verdict or
// recording: it decides only whether a row is kept, and drops one only
// when the campaign was in fact cancelled (ctx done); a campaign that is
// not interrupted keeps every row, whatever the machine's load.
func cutShort(ctx context.Context, res *RunResult, err error) bool {
	if ctx.Err() != nil {
		return true
	}
	grace := cutGrace(res, err)
	if grace == 0 {
		return false
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return true
	case <-t.C:
		return false
	}
}

// cutGrace is how long cutShort waits for an interruption before it
// believes a run's outcome (0: at once).
func cutGrace(res *RunResult, err error) time.Duration {
	switch {
	case err != nil || res.Verdict == Error:
		return outsideGrace
	case !slices.Contains(res.Violated, "no_node_crash"):
		return 0
	case res.FirstViolation != nil && killedByTermination(res.FirstViolation.Why):
		return outsideGrace
	}
	return interruptGrace
}

// killedByTermination reports whether a no_node_crash explanation ("node
// 1 was killed by SIGTERM") names a signal batch systems and shells stop
// jobs with.
func killedByTermination(why string) bool {
	_, sig, _ := strings.Cut(why, " was killed by ")
	switch sig {
	case "SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGKILL":
		return true
	}
	return false
}

func sep(s string) string {
	if s == "" {
		return ""
	}
	return "; "
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// Summarize tallies a dataset per variant (in the given order, then any
// others alphabetically).
func Summarize(dir string, order []string) (*CampaignSummary, error) {
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		return nil, err
	}
	by := map[string]*VariantSummary{}
	for _, r := range rows {
		s := by[r.Variant]
		if s == nil {
			s = &VariantSummary{Variant: r.Variant, ByInvariant: map[string]int{}}
			by[r.Variant] = s
		}
		s.Runs++
		switch r.Verdict {
		case dataset.Invalid:
			s.Invalid++
		case dataset.Error:
			s.Errors++
		case dataset.Violated:
			s.Violated++
			s.Valid++
			for _, inv := range r.ViolatedInvariants {
				s.ByInvariant[inv]++
			}
		default:
			s.Valid++
		}
	}
	sum := &CampaignSummary{Dir: dir, Runs: len(rows)}
	seen := map[string]bool{}
	for _, v := range order {
		if s := by[v]; s != nil && !seen[v] {
			sum.Variants = append(sum.Variants, *s)
			seen[v] = true
		}
	}
	var rest []string
	for v := range by {
		if !seen[v] {
			rest = append(rest, v)
		}
	}
	sort.Strings(rest)
	for _, v := range rest {
		sum.Variants = append(sum.Variants, *by[v])
	}
	for i := range sum.Variants {
		if s := &sum.Variants[i]; s.Valid > 0 {
			s.Rate = float64(s.Violated) / float64(s.Valid)
		}
	}
	return sum, nil
}
