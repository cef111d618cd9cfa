// Command testtimes shows where a test suite's time goes. scripts/test.sh
// runs go test with -json and keeps the events in build/*.json.
//
//	go test -json ./... 2>&1 | testtimes
//
// writes what go test writes without -json: a package's ok or FAIL line,
// a failing test's output, and any line that is not an event (build
// errors, go's own messages) as it came.
//
//	testtimes -slowest 15 build/test.json build/test-weftverify.json
//
// writes the 15 slowest top-level tests of those runs and every package's
// time, longest first. A file's events must be go test -json's; lines that
// are not events are skipped.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// event is the part of a go test -json event (cmd/test2json) testtimes
// reads.
type event struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output events
}

func main() {
	slowest := flag.Int("slowest", 0, "write the `N` slowest tests and every package's time from the files named")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: testtimes < go-test-json\n       testtimes -slowest N FILE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *slowest > 0 {
		if flag.NArg() == 0 {
			flag.Usage()
			os.Exit(2)
		}
		var runs []run
		for _, name := range flag.Args() {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "testtimes:", err)
				os.Exit(1)
			}
			r, err := readTimes(f, strings.TrimSuffix(filepath.Base(name), ".json"))
			f.Close()
			if err != nil {
				fmt.Fprintf(os.Stderr, "testtimes: reading %s: %v\n", name, err)
				os.Exit(1)
			}
			runs = append(runs, r)
		}
		writeSlowest(os.Stdout, runs, *slowest)
		return
	}
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := filter(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
}

// lines calls fn with each line of r (its newline kept), however long.
func lines(r io.Reader, fn func(line string) error) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// parse returns line's event, or false if line is not one.
func parse(line string) (event, bool) {
	var e event
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
		return event{}, false
	}
	return e, true
}

// top is the top-level test of test (a subtest's parent).
func top(test string) string {
	name, _, _ := strings.Cut(test, "/")
	return name
}

// filter writes go test's usual output for the events read from r.
// A test's output is kept until it ends and written if it failed; a
// package's own output (its ok, FAIL or "no test files" line, a panic
// outside a test, a timeout) when the package ends, with the output of
// its tests that never ended if it failed.
func filter(r io.Reader, w io.Writer) error {
	tests := map[string]map[string][]string{} // package, top-level test: output
	pkgs := map[string][]string{}
	write := func(out []string) {
		for _, s := range out {
			if !strings.HasPrefix(s, "=== ") {
				io.WriteString(w, s)
			}
		}
	}
	return lines(r, func(line string) error {
		e, ok := parse(line)
		if !ok {
			_, err := io.WriteString(w, line)
			return err
		}
		switch {
		case e.Action == "build-output":
			io.WriteString(w, e.Output)
		case e.Test != "":
			t := top(e.Test)
			if tests[e.Package] == nil {
				tests[e.Package] = map[string][]string{}
			}
			switch {
			case e.Action == "output":
				tests[e.Package][t] = append(tests[e.Package][t], e.Output)
			case e.Test != t:
			case e.Action == "fail":
				write(tests[e.Package][t])
				delete(tests[e.Package], t)
			case e.Action == "pass" || e.Action == "skip":
				delete(tests[e.Package], t)
			}
		case e.Action == "output":
			pkgs[e.Package] = append(pkgs[e.Package], e.Output)
		case e.Action == "fail":
			for _, out := range tests[e.Package] {
				write(out)
			}
			write(pkgs[e.Package])
			delete(tests, e.Package)
			delete(pkgs, e.Package)
		case e.Action == "pass" || e.Action == "skip":
			for _, s := range pkgs[e.Package] {
				if s != "PASS\n" {
					io.WriteString(w, s)
				}
			}
			delete(tests, e.Package)
			delete(pkgs, e.Package)
		}
		return nil
	})
}

// timed is a top-level test's or a package's time in one run.
type timed struct {
	pkg, test, action string
	elapsed           float64
}

// run is the times read from one file, named by label.
type run struct {
	label       string
	tests, pkgs []timed
}

// readTimes reads the ended top-level tests and packages from r.
func readTimes(r io.Reader, label string) (run, error) {
	out := run{label: label}
	err := lines(r, func(line string) error {
		e, ok := parse(line)
		if !ok || e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
			return nil
		}
		t := timed{pkg: e.Package, test: e.Test, action: e.Action, elapsed: e.Elapsed}
		switch {
		case e.Test == "":
			out.pkgs = append(out.pkgs, t)
		case top(e.Test) == e.Test:
			out.tests = append(out.tests, t)
		}
		return nil
	})
	return out, err
}

// writeSlowest writes the n slowest tests of runs and every package's
// time, longest first; with more than one run each row names its run.
func writeSlowest(w io.Writer, runs []run, n int) {
	var tests, pkgs []timed
	for _, r := range runs {
		for _, t := range r.tests {
			if len(runs) > 1 {
				t.pkg += " (" + r.label + ")"
			}
			tests = append(tests, t)
		}
		for _, p := range r.pkgs {
			if len(runs) > 1 {
				p.pkg += " (" + r.label + ")"
			}
			pkgs = append(pkgs, p)
		}
	}
	byTime := func(s []timed) {
		sort.SliceStable(s, func(i, j int) bool { return s[i].elapsed > s[j].elapsed })
	}
	byTime(tests)
	byTime(pkgs)
	sum := 0.0
	for _, t := range tests {
		sum += t.elapsed
	}
	fmt.Fprintf(w, "The %d slowest of %d tests (%.0f s in all):\n", min(n, len(tests)), len(tests), sum)
	for _, t := range tests[:min(n, len(tests))] {
		fmt.Fprintf(w, "%8.1f s  %-4s  %s  %s\n", t.elapsed, t.action, t.test, t.pkg)
	}
	fmt.Fprintln(w, "Packages:")
	for _, p := range pkgs {
		if p.action == "skip" {
			continue
		}
		fmt.Fprintf(w, "%8.1f s  %-4s  %s\n", p.elapsed, p.action, p.pkg)
	}
}
