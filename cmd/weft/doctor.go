package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

// finding is one check of weft doctor: what was looked at, what was found,
// whether it is there, and what its absence disables.
type finding struct {
	Check string `json:"check"`
	Found string `json:"found"`
	// Status is "ok", "missing" (weft cannot run without it),
	// "degraded" (weft runs, slower or with less) or "info".
	Status   string `json:"status"`
	Disables string `json:"disables,omitempty"` // what its absence disables
}

// Statuses of a finding.
const (
	statusOK       = "ok"
	statusMissing  = "missing"
	statusDegraded = "degraded"
	statusInfo     = "info"
)

func init() {
	var asJSON bool
	register(&command{
		name:    "doctor",
		usage:   "doctor [--json]",
		summary: "check this machine for what weft needs (kernel, seccomp notification, ptrace, CPUID faulting, user namespaces, cores) and say what each missing piece disables; exit 1 if weft cannot run",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&asJSON, "json", false, "print the checks as JSON")
		},
		run: func(args []string) (int, error) {
			if len(args) > 0 {
				return exitUsage, fmt.Errorf("doctor takes no arguments, got %q", args[0])
			}
			fs := doctorChecks()
			code := exitHolds
			for _, f := range fs {
				if f.Status == statusMissing {
					code = exitViolated
				}
			}
			if asJSON {
				return code, printJSON(fs)
			}
			printFindings(os.Stdout, fs)
			return code, nil
		},
	})
}

// printFindings writes the checks as a table, then what is disabled.
func printFindings(w io.Writer, fs []finding) {
	for _, f := range fs {
		fmt.Fprintf(w, "%-9s %-30s %s\n", f.Status, f.Check, f.Found)
		if f.Status != statusOK && f.Disables != "" {
			fmt.Fprintf(w, "          %-30s → %s\n", "", f.Disables)
		}
	}
}
