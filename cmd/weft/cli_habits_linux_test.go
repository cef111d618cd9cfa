//go:build linux

package main

import (
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// cliHabit is how one subcommand keeps the developers' guide's CLI habits.
type cliHabit struct {
	// arg is a positional argument that --help or a bad flag may follow
	// (it need not exist: the flag is parsed first).
	arg string
	// usage is an invocation that is a usage error: exit 2, a message on
	// stderr that names the command, nothing on stdout.
	usage []string
	// noTable says why the command prints no table (so has no --json); ""
	// for a command whose output is a table.
	noTable string
	// jsonRun is a cheap invocation with --json whose stdout must be JSON
	// ({rec}: a small recording); nil when noTable is set.
	jsonRun []string
}

// cliHabits lists every weft subcommand; TestCLIHabits fails for a command
// missing here, so a new one is held to the same habits.
var cliHabits = map[string]cliHabit{
	"campaign": {arg: "m.model", usage: []string{"campaign"}, jsonRun: []string{"campaign", "targets/repl/repl.model", "--variants", "bug", "--seeds", "1", "--out", "{dir}/ds"}},
	"check":    {arg: "m.model", usage: []string{"check"}, jsonRun: []string{"check", "targets/repl/repl.model", "--variant", "bug", "--depth", "4"}},
	"doctor":   {arg: "extra", usage: []string{"doctor", "extra"}, jsonRun: []string{"doctor"}},
	"export":   {arg: "ds", usage: []string{"export"}, noTable: "writes a file; its one-line summary has --json too"},
	"kernel":   {arg: "install", usage: []string{"kernel"}, noTable: "installs a Jupyter kernelspec"},
	"merge":    {arg: "ds", usage: []string{"merge"}, noTable: "writes a dataset; its one-line summary has --json too"},
	"replay":   {arg: "r.weftlog", usage: []string{"replay"}, noTable: "re-executes a recording and says whether it diverged"},
	"report":   {arg: "ds", usage: []string{"report"}, noTable: "writes an HTML page"},
	"run":      {arg: "m.model", usage: []string{"run"}, jsonRun: []string{"run", "targets/repl/repl.model", "--variant", "bug", "--seed", "1"}},
	"serve":    {arg: "ds", usage: []string{"serve"}, noTable: "serves web pages"},
	"shrink":   {arg: "r.weftlog", usage: []string{"shrink"}, noTable: "writes a smaller recording and says what remains"},
	"stats":    {arg: "ds", usage: []string{"stats"}, jsonRun: []string{"stats", "--counts", "a=1/10,b=4/10"}},
	"trace":    {arg: "r.weftlog", usage: []string{"trace"}, jsonRun: []string{"trace", "{rec}"}},
}

// TestCLIHabits holds every subcommand to the CLI habits of the
// developers' guide: --help, also after an argument (flags before or
// after the arguments); an unknown flag, before or after an argument, and
// a usage error exit 2 with the error on stderr and nothing on stdout;
// and --json where the output is a table, whose output then parses as
// JSON.
func TestCLIHabits(t *testing.T) {
	for name := range commands {
		if _, ok := cliHabits[name]; !ok {
			t.Errorf("weft %s is not in cliHabits: say how it keeps the CLI habits", name)
		}
	}
	dir := t.TempDir()
	rec := writeHabitRecording(t, dir)
	for name, h := range cliHabits {
		t.Run(name, func(t *testing.T) {
			c, ok := commands[name]
			if !ok {
				t.Fatalf("cliHabits names weft %s, which is not a command", name)
			}
			for _, args := range [][]string{{name, "--help"}, {name, h.arg, "--help"}} {
				out, errOut, code := weft(t, args...)
				if code != 0 || !strings.Contains(out, "usage: weft "+name) {
					t.Errorf("weft %s: exit %d, want 0 and the usage on stdout\n%s%s", strings.Join(args, " "), code, out, errOut)
				}
			}
			for _, args := range [][]string{{name, "--frobnicate"}, {name, h.arg, "--frobnicate"}, h.usage} {
				out, errOut, code := weft(t, args...)
				if code != 2 || out != "" || errOut == "" || strings.Contains(errOut, "panic") {
					t.Errorf("weft %s: exit %d, stdout %q, stderr %q; want exit 2, the error on stderr only", strings.Join(args, " "), code, out, errOut)
				}
				if args[len(args)-1] == "--frobnicate" && !strings.Contains(errOut, "frobnicate") {
					t.Errorf("weft %s: stderr does not name the unknown flag:\n%s", strings.Join(args, " "), errOut)
				}
			}
			fs := flag.NewFlagSet(name, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			if c.flags != nil {
				c.flags(fs)
			}
			hasJSON := fs.Lookup("json") != nil
			if h.noTable == "" && !hasJSON {
				t.Errorf("weft %s prints a table but has no --json", name)
			}
			if h.jsonRun == nil {
				return
			}
			args := make([]string, len(h.jsonRun))
			for i, a := range h.jsonRun {
				args[i] = strings.NewReplacer("{dir}", dir, "{rec}", rec).Replace(a)
			}
			out, errOut, code := weft(t, append(args, "--json")...)
			if code != 0 && code != 1 {
				t.Fatalf("weft %s --json: exit %d\n%s", strings.Join(args, " "), code, errOut)
			}
			dec, n := json.NewDecoder(strings.NewReader(out)), 0
			for ; dec.More(); n++ {
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("weft %s --json: not JSON: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
			if n == 0 {
				t.Errorf("weft %s --json printed nothing", strings.Join(args, " "))
			}
		})
	}
	var tables []string
	for name, h := range cliHabits {
		if h.noTable == "" {
			tables = append(tables, name)
		}
	}
	slices.Sort(tables)
	t.Logf("commands whose output is a table (with --json): %s", strings.Join(tables, ", "))
}

// writeHabitRecording writes a small recording for weft trace.
func writeHabitRecording(t *testing.T, dir string) string {
	t.Helper()
	rec := &weftlog.Recording{Header: weftlog.Header{Model: "m.model", Variant: "v", Seed: 1, Nodes: 2, State: []string{"stored"}}}
	rec.AddEvent(weftlog.Event{Step: 1, T: 10, Kind: "deliver", Node: 1, Peer: 0, Value: "SYNC 5"})
	rec.AddEvent(weftlog.Event{Step: 2, T: 20, Kind: "state", Node: 1, Peer: -1, Var: "stored", Value: "5"})
	rec.Verdict = weftlog.Verdict{Verdict: "holds", FirstViolationStep: -1, Steps: 2}
	path := filepath.Join(dir, "r.weftlog")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}
