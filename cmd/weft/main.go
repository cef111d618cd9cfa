// Command weft model-checks real, unmodified distributed-system
// implementations and turns the results into evidence.
//
// Each subcommand lives in its own file and registers itself with
// register in an init function, so commands can be added without touching
// this file.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"

	"github.com/weft-mc/weft/mcsdk/gocheck"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// Exit codes shared by every command (ARCHITECTURE.md, CLI contract).
const (
	exitHolds    = 0 // the property holds / the command succeeded
	exitViolated = 1 // an invariant was violated / a replay diverged
	exitUsage    = 2 // usage or tool error
)

// command is one weft subcommand.
type command struct {
	name    string
	usage   string // e.g. "check MODEL [--variant V]"
	summary string // one line for the command list
	// flags declares the command's flags on fs.
	flags func(fs *flag.FlagSet)
	// run executes the command with the positional arguments that remain
	// after flag parsing. It returns the process exit code; an error is
	// printed to stderr and yields exitUsage unless it is an *exitError.
	run func(args []string) (int, error)
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("weft: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// exitError carries a specific exit code together with a message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	code := profiled(func() int { return runMain(os.Args[1:], os.Stdout, os.Stderr) })
	gocheck.Shutdown() // compiled checks' helpers end with weft
	if err := supervisor.ReleaseHost(); err != nil {
		fmt.Fprintf(os.Stderr, "weft: %v\n", err) // what its worlds left on the host
	}
	os.Exit(code)
}

// profiled runs f, writing a CPU profile of it to $WEFT_CPUPROFILE when
// that is set (for scripts/bench.sh and for finding where a run's time
// goes: go tool pprof bin/weft FILE).
func profiled(f func() int) int {
	path := os.Getenv("WEFT_CPUPROFILE")
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "weft: WEFT_CPUPROFILE: %v\n", err)
		return exitUsage
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintf(os.Stderr, "weft: WEFT_CPUPROFILE: %v\n", err)
		return exitUsage
	}
	defer pprof.StopCPUProfile()
	return f()
}

func runMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 && args[0] == "help" {
			if c, ok := commands[args[1]]; ok {
				fs := newFlagSet(c, stdout)
				fs.Usage()
				return exitHolds
			}
		}
		printCommands(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitHolds
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, "weft", Version)
		return exitHolds
	}
	c, ok := commands[args[0]]
	if !ok {
		if near := nearestCommand(args[0]); near != "" {
			fmt.Fprintf(stderr, "weft: unknown command %q; did you mean %q? (run 'weft --help' for the list)\n", args[0], near)
			return exitUsage
		}
		fmt.Fprintf(stderr, "weft: unknown command %q (run 'weft --help' for the list)\n", args[0])
		return exitUsage
	}
	if wantsHelp(args[1:]) {
		newFlagSet(c, stdout).Usage()
		return exitHolds
	}
	fs := newFlagSet(c, stderr)
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return exitUsage // flag package already printed the error and usage
	}
	code, err := c.run(pos)
	if err != nil {
		fmt.Fprintf(stderr, "weft %s: %v\n", c.name, err)
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		if code == exitHolds {
			code = exitUsage
		}
	}
	return code
}

// wantsHelp reports a -h, -help or --help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// Version is the tool version written into recordings and manifests.
var Version = "0.1.0-dev"

func newFlagSet(c *command, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("weft "+c.name, flag.ContinueOnError)
	fs.SetOutput(out)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: weft %s\n\n%s\n", c.usage, c.summary)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(w, "\nflags (before or after the arguments):")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseInterspersed parses flags that may appear before or after
// positional arguments. "--" ends flag parsing; everything after it is
// positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		// fs.Parse stops at the first non-flag or after "--".
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func printCommands(w io.Writer) {
	fmt.Fprintln(w, "weft: model-check real distributed-system implementations")
	fmt.Fprintln(w, "\nusage: weft COMMAND [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'weft COMMAND --help' for a command's flags.")
}

// printJSON writes v to stdout as indented JSON (the --json form of a
// command's output).
func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// intFlag is an integer flag that refuses, when given, a value outside
// [min, max]; hint says what leaving it out means.
type intFlag struct {
	p        *int
	min, max int
	hint     string
}

// boundedInt defines an integer flag with bounds (see intFlag).
func boundedInt(fs *flag.FlagSet, p *int, name string, min, max int, hint, usage string) {
	fs.Var(&intFlag{p: p, min: min, max: max, hint: hint}, name, usage)
}

// Bounds of the integer flags: no more seeds than a campaign's seed list
// can hold (as [campaign] seeds), seeds far from overflowing.
const (
	maxSeeds     = 10_000_000
	maxFirstSeed = 1 << 62
	maxJobs      = 4096
	maxDepth     = 1 << 20
)

func (f *intFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f *intFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("not an integer")
	}
	if err != nil || n < int64(f.min) || n > int64(f.max) {
		return fmt.Errorf("want %d to %d%s", f.min, f.max, f.hint)
	}
	*f.p = int(n)
	return nil
}

// seedFlag is a required --seed: set reports whether it was given.
type seedFlag struct {
	v   uint64
	set bool
}

func (f *seedFlag) String() string {
	if f == nil {
		return "0"
	}
	return strconv.FormatUint(f.v, 10)
}

func (f *seedFlag) Set(s string) error {
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("want an integer from 0 to %d", uint64(math.MaxUint64))
	}
	f.v, f.set = n, true
	return nil
}

// loadModel loads a model to check or run: besides parsing, it must have
// invariants, or a verdict would be "holds" of nothing.
func loadModel(path string) (*model.Model, error) {
	m, err := model.Load(path)
	if err != nil {
		return nil, err
	}
	if len(m.Invariants) == 0 {
		return nil, model.ErrorAt(m.KeyPos("invariants"), "the model has no invariants: there is nothing to check (add an [invariants] section, e.g. up = \"all i in nodes : alive(i)\")")
	}
	return m, nil
}
