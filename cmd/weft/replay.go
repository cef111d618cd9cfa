package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// loadRecording reads the one recording in args and the model it names
// (or the one given with --model), and checks that the recording fits the
// model (mcsdk.ValidateRecording): a corrupted or foreign recording is
// refused before anything runs.
func loadRecording(args []string, given string) (*weftlog.Recording, *model.Model, error) {
	if len(args) != 1 {
		return nil, nil, fmt.Errorf("want exactly one recording")
	}
	rec, err := weftlog.ReadFile(args[0])
	if err != nil {
		return nil, nil, err
	}
	path := given
	if path == "" {
		path = rec.Header.Model
	}
	m, err := model.Load(path)
	if err != nil && given == "" {
		return nil, nil, fmt.Errorf("%v (the recording names %s: pass --model)", err, rec.Header.Model)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := mcsdk.ValidateRecording(m, rec); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", args[0], err)
	}
	return rec, m, nil
}

func init() {
	var modelPath string
	register(&command{
		name:    "replay",
		usage:   "replay REC [--model MODEL]",
		summary: "re-execute a recording's choices against the real binaries and verify every observation; exit 0 same, 1 diverged",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&modelPath, "model", "", "the model (default: the path the recording names)")
		},
		run: func(args []string) (int, error) {
			rec, m, err := loadRecording(args, modelPath)
			if err != nil {
				return exitUsage, err
			}
			in := watchInterrupts("replay", os.Stderr, interruptGrace)
			res, div, err := mcsdk.Replay(m, rec, mcsdk.RunOptions{Host: host()})
			if sig := in.stop(); sig != nil {
				return interrupted("replay", sig, "the replay was abandoned")
			}
			if err != nil {
				return exitUsage, err
			}
			if div != nil {
				fmt.Printf("diverged at %s\n", div)
				return exitViolated, nil
			}
			fmt.Printf("replayed %s: %d choices, %d observations verified; verdict %s", args[0], len(rec.Choices), len(rec.Events), res.Verdict)
			if len(res.Violated) > 0 {
				fmt.Printf(" (%s)", strings.Join(res.Violated, ", "))
			}
			fmt.Println()
			return exitHolds, nil
		},
	})

	var (
		shrinkModel string
		shrinkOut   string
	)
	register(&command{
		name:    "shrink",
		usage:   "shrink REC [--model MODEL] [-o OUT]",
		summary: "reduce a failing run to a locally minimal one (fewer faults, shorter) that violates the same invariant",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&shrinkModel, "model", "", "the model (default: the path the recording names)")
			fs.StringVar(&shrinkOut, "o", "", "the shrunk recording (default: REC with .shrunk.weftlog)")
		},
		run: func(args []string) (int, error) {
			rec, m, err := loadRecording(args, shrinkModel)
			if err != nil {
				return exitUsage, err
			}
			in := watchInterrupts("shrink", os.Stderr, interruptGrace)
			sr, err := mcsdk.ShrinkWithProgress(m, rec.Header.Variant, rec.Header.Seed, mcsdk.RunOptions{Host: host()}, func(t mcsdk.ShrinkTry) {
				what := "still violates: kept"
				if !t.Violated {
					what = "holds: dropped"
				}
				if t.Try == 0 {
					what = "the original run violates"
				}
				fmt.Fprintf(os.Stderr, "shrink: run %d (%s; ending at %s): %s\n", t.Try, t.Remains, time.Duration(t.EndUS)*time.Microsecond, what)
			})
			if sig := in.stop(); sig != nil {
				return interrupted("shrink", sig, "shrinking was abandoned (nothing written)")
			}
			if err != nil {
				return exitUsage, err
			}
			if shrinkOut == "" {
				shrinkOut = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + ".shrunk.weftlog"
			}
			out := sr.Shrunk.Recording(m)
			out.Header.ShrunkFrom = args[0]
			for _, f := range sr.Faults {
				out.Header.Faults = append(out.Header.Faults, f.String())
			}
			if err := out.WriteFile(shrinkOut); err != nil {
				return exitUsage, err
			}
			o, s := sr.Original, sr.Shrunk
			fmt.Printf("shrunk %s (%s seed %d) in %d runs:\n", args[0], o.Variant, o.Seed, sr.Tries)
			for _, st := range sr.Steps {
				fmt.Printf("  %s\n", st)
			}
			fmt.Printf("  remains: %s\n", sr.Remains)
			fmt.Printf("  steps %d → %d, virtual time %s → %s; still violates %s\n",
				o.Steps, s.Steps, o.VirtualTime, s.VirtualTime, strings.Join(s.Violated, ", "))
			fmt.Printf("wrote %s (weft replay %s)\n", shrinkOut, shrinkOut)
			return exitHolds, nil
		},
	})
}
