package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// syscallsFlag is weft run's --syscalls: off, on (the notified calls), or
// "all" (every call notified, passthrough ones included).
type syscallsFlag struct{ on, all bool }

func (f *syscallsFlag) String() string {
	switch {
	case f.all:
		return "all"
	case f.on:
		return "true"
	}
	return "false"
}

func (f *syscallsFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "true", "1", "on", "notified":
		*f = syscallsFlag{on: true}
	case "all":
		*f = syscallsFlag{on: true, all: true}
	case "false", "0", "off":
		*f = syscallsFlag{}
	default:
		return fmt.Errorf("want --syscalls (the calls weft sees) or --syscalls=all (every call, passthrough ones too), not %q", s)
	}
	return nil
}

// IsBoolFlag lets --syscalls stand alone.
func (f *syscallsFlag) IsBoolFlag() bool { return true }

// printSyscalls writes the survey as one table per node: every syscall the
// node made, by descending count, with how weft answered each call.
func printSyscalls(out io.Writer, uses []supervisor.SyscallUse, all bool, nodeName func(int) string) {
	if all {
		fmt.Fprintln(out, "syscalls (every call notified: passthrough calls counted too; execve of the launch is not a node call)")
	} else {
		fmt.Fprintln(out, "syscalls (the calls weft sees; passthrough calls are allowed by the filter unseen and not counted,")
		fmt.Fprintln(out, "nor the clock reads weft's vDSO answers without a stop: --syscalls=all counts them)")
	}
	if len(uses) == 0 {
		fmt.Fprintln(out, "  none")
		return
	}
	for i := 0; i < len(uses); {
		node := uses[i].Node
		fmt.Fprintf(out, "%s:\n", nodeName(node))
		width := len("syscall")
		for _, u := range uses[i:] {
			if u.Node == node {
				width = max(width, len(u.Name))
			}
		}
		row := "  %-*s  %-11s  %6v  %6v  %6v  %6v  %7v  %s\n"
		fmt.Fprintf(out, row, width, "syscall", "table", "calls", "served", "kernel", "failed", "pending", "errno")
		for ; i < len(uses) && uses[i].Node == node; i++ {
			u := uses[i]
			fmt.Fprintf(out, row, width, u.Name, u.Decision, u.Count, u.Served, u.Kernel, u.Failed, u.Pending, errnoList(u.Errors))
		}
		for _, u := range uses {
			if u.Node == node && (u.Failed > 0 || u.Decision == "refused" || u.Decision == "unsupported") && u.Note != "" {
				fmt.Fprintf(out, "  %s: %s\n", u.Name, u.Note)
			}
		}
	}
}

func errnoList(es []supervisor.ErrnoN) string {
	if len(es) == 0 {
		return "-"
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%s×%d", e.Errno, e.N)
	}
	return strings.Join(parts, ",")
}

// roleList renders a recording's roles: "n0 primary, n1 replica".
func roleList(roles []string) string {
	parts := make([]string, 0, len(roles))
	for i, r := range roles {
		if r != "" {
			parts = append(parts, fmt.Sprintf("n%d %s", i, r))
		}
	}
	return strings.Join(parts, ", ")
}
