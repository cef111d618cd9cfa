package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/weft-mc/weft/cmd/weft/internal/cluster"
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

// campaignGC lets a campaign's heap grow to five times what is live
// before a collection (GOGC=400), under a soft limit of 1 GiB, unless
// GOGC or GOMEMLIMIT is set: a campaign keeps little alive and makes
// much short-lived garbage per run. Measured with farm-bench on 2 × 30
// Chord seeds, ten pairs: CPU ×0.92, wall ×0.92 (medians), peak memory
// 73 → 160 MiB.
func campaignGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
}

// campaignProcs gives Go's scheduler one processor more than the
// campaign has parallel runs (jobs; 0 means mcsdk.DefaultJobs), unless
// GOMAXPROCS is set. A world's goroutine spends most of a run blocked in
// system calls, and the goroutines it then waits for (the stop waiter,
// the tracer thread) need a processor of their own: with one processor
// per run they wait until Go's sysmon takes it back from the blocked
// call. That is the case whenever GOMAXPROCS equals -j, as on a Slurm
// shard given one CPU. Measured with farm-bench on Chord, 60 seeds of
// orig with -j 1 pinned to one core (GOMAXPROCS 1 there), three pairs,
// medians: wall ×0.77 with 2 processors (×0.80 with 3); 3 × 100 seeds
// with -j 2 on 2 cores, 4 processors against 2, four pairs: wall ×0.99.
func campaignProcs(jobs int) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if jobs <= 0 {
		jobs = mcsdk.DefaultJobs()
	}
	if runtime.GOMAXPROCS(0) < jobs+1 {
		runtime.GOMAXPROCS(jobs + 1)
	}
}

func init() {
	var (
		seeds     int
		firstSeed int
		variants  string
		out       string
		jobs      int
		runID     string
		shard     string
		recordAll bool
		record    string
		determ    bool
		asJSON    bool
		onCluster = cluster.Options{Version: Version} // --slurm, --status, --emit k8s (package cluster)
	)
	register(&command{
		name:    "campaign",
		usage:   "campaign MODEL --seeds N [--variants a,b] [--out DIR] [-j J] [--shard K/N] [--record failing|all] [--check-determinism] [--json]",
		summary: "seeded runs of every seed × variant into an Arrow dataset (resumable), with recordings of failing runs",
		flags: func(fs *flag.FlagSet) {
			boundedInt(fs, &seeds, "seeds", 1, maxSeeds, " (leave it out for the model's campaign.seeds)", "number of seeds, `N` ≥ 1 (default: the model's [campaign] seeds)")
			boundedInt(fs, &firstSeed, "first-seed", 0, maxFirstSeed, "", "first seed, `S` ≥ 0")
			fs.StringVar(&variants, "variants", "", "comma-separated variants (default: all)")
			fs.StringVar(&out, "out", "", "dataset directory (default: datasets/MODEL); rerunning into it resumes")
			boundedInt(fs, &jobs, "j", 1, maxJobs, " (leave it out for 1.5 per core)", "`J` ≥ 1 parallel runs (default: the number of cores and half as many again, rounded down)")
			fs.StringVar(&runID, "run", "run1", "name of this run of the campaign (repeat a campaign under run2, … to measure drift)")
			fs.StringVar(&shard, "shard", "", "run only shard K of N of the seed range, e.g. 2/4")
			fs.BoolVar(&recordAll, "record-all", false, "same as --record all")
			fs.StringVar(&record, "record", "failing", "which runs get a recording: `failing` (not holds) or all (for weft report --all)")
			fs.StringVar(&variants, "variant", "", "same as --variants")
			fs.StringVar(&out, "o", "", "same as --out")
			fs.BoolVar(&determ, "check-determinism", false, "run every seed twice and compare the recordings")
			fs.BoolVar(&asJSON, "json", false, "print the summary as JSON")
			onCluster.Declare(fs)
		},
		run: func(args []string) (int, error) {
			if onCluster.Active() {
				return onCluster.Run(args)
			}
			if len(args) != 1 {
				return exitUsage, fmt.Errorf("want exactly one MODEL")
			}
			campaignGC()
			campaignProcs(jobs)
			m, err := loadModel(args[0])
			if err != nil {
				return exitUsage, err
			}
			if runID == "" || strings.ContainsAny(runID, "/\\") || runID[0] == '.' {
				return exitUsage, fmt.Errorf("--run %q: want a plain name such as run2 (it names the run's recordings)", runID)
			}
			if out == "" {
				out = "datasets/" + strings.TrimSuffix(baseName(args[0]), ".model")
			}
			switch record {
			case "all":
				recordAll = true
			case "failing":
			default:
				return exitUsage, fmt.Errorf("--record %q: want failing or all", record)
			}
			opts := mcsdk.CampaignOptions{Variants: splitList(variants), Seeds: seeds, FirstSeed: firstSeed, Out: out, Jobs: jobs,
				RunID: runID, RecordAll: recordAll, CheckDeterminism: determ, Host: host()}
			if shard != "" {
				if opts.ShardK, opts.ShardN, err = dataset.ParseShard(shard); err != nil {
					return exitUsage, err
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			bar := newProgressBar(os.Stderr)
			opts.Progress = bar.update
			sum, err := mcsdk.Campaign(ctx, m, opts)
			bar.finish()
			if err != nil {
				return exitUsage, err
			}
			if asJSON {
				return exitHolds, printJSON(sum)
			}
			printSummary(sum)
			fmt.Printf("invariants checked: %s\n", checkedNames(m))
			if sum.Interrupted {
				fmt.Fprintf(os.Stderr, "interrupted: %d runs kept in %s; rerun the same command to resume\n", sum.Runs, sum.Dir)
				return 130, nil
			}
			if len(sum.Nondetermism) > 0 {
				for _, d := range sum.Nondetermism {
					fmt.Fprintln(os.Stderr, "nondeterminism:", d)
				}
				return exitViolated, fmt.Errorf("nondeterministic: %d of %d seeds differ", len(sum.Nondetermism), sum.Compared)
			}
			if determ {
				fmt.Printf("deterministic: %d of %d seeds identical (each run twice, recordings compared byte for byte)\n", sum.Compared, sum.Compared)
			}
			return exitHolds, nil
		},
	})
}

func printSummary(s *mcsdk.CampaignSummary) {
	fmt.Printf("dataset %s: %d runs (%d resumed) in %s\n", s.Dir, s.Runs, s.Resumed, s.Wall.Round(time.Millisecond))
	fmt.Printf("%-10s %6s %6s %8s %9s %7s %8s  %s\n", "variant", "runs", "valid", "invalid", "violated", "errors", "rate", "by invariant")
	for _, v := range s.Variants {
		var by []string
		for inv, n := range v.ByInvariant {
			by = append(by, fmt.Sprintf("%s=%d", inv, n))
		}
		sort.Strings(by)
		fmt.Printf("%-10s %6d %6d %8d %9d %7d %7.2f%%  %s\n", v.Variant, v.Runs, v.Valid, v.Invalid, v.Violated, v.Errors, 100*v.Rate, strings.Join(by, " "))
	}
}

// progressBar draws campaign progress on a terminal (runs done,
// violations, runs/s, ETA), or prints a line every 10% elsewhere.
type progressBar struct {
	out      *os.File
	tty      bool
	lastDraw time.Time
	lastTen  int
	drawn    bool
}

func newProgressBar(out *os.File) *progressBar {
	return &progressBar{out: out, tty: isTerminal(out)}
}

func (b *progressBar) update(p mcsdk.CampaignProgress) {
	if p.Total == 0 {
		return
	}
	ran := p.Done - p.Resumed
	rate := 0.0
	if p.Elapsed > 0 {
		rate = float64(ran) / p.Elapsed.Seconds()
	}
	eta := "?"
	if rate > 0 {
		eta = (time.Duration(float64(p.Total-p.Done)/rate) * time.Second).Round(time.Second).String()
	}
	line := fmt.Sprintf("%d/%d runs, %d violated, %d invalid, %d errors, %.1f runs/s, ETA %s", p.Done, p.Total, p.Violated, p.Invalid, p.Errors, rate, eta)
	if b.tty {
		if time.Since(b.lastDraw) < 100*time.Millisecond && p.Done < p.Total {
			return
		}
		const width = 30
		fill := width * p.Done / p.Total
		fmt.Fprintf(b.out, "\r[%s%s] %s\x1b[K", strings.Repeat("█", fill), strings.Repeat("·", width-fill), line)
		b.lastDraw, b.drawn = time.Now(), true
		return
	}
	if ten := 10 * p.Done / p.Total; ten > b.lastTen {
		b.lastTen = ten
		fmt.Fprintln(b.out, line)
	}
}

func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprintln(b.out)
	}
}
