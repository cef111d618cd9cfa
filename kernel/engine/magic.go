package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// magic is one line magic: %name args.
type magic struct {
	name, usage, doc string
	run              func(e *Engine, ctx context.Context, args string) error
}

// magicTable is the table of line magics; %%time is the one cell magic.
func magicTable() []magic {
	return []magic{
		{"help", "%help", "lists the magics and the bound packages", (*Engine).magicHelp},
		{"time", "%time CODE", "runs the Go code on the rest of the line and prints its wall time", nil},
		{"env", "%env [NAME[=VALUE]]", "lists the environment, prints NAME, or sets it (for cells, !shell and %go get)", (*Engine).magicEnv},
		{"timeout", "%timeout [DURATION|off]", "interrupts each later cell after DURATION (e.g. 30s); off by default", (*Engine).magicTimeout},
		{"go", "%go get MODULE[@VERSION]", "fetches a module through the Go module proxy and makes its packages importable", (*Engine).magicGo},
	}
}

// helpText is what %help prints before the bound packages.
const helpText = `Cells are Go: declarations, statements, and a last expression whose value is shown.
Lines that open a cell may be:
  %%time            (first line) runs the rest of the cell and prints its wall time
  !COMMAND          runs COMMAND with sh -c; its output is the cell's
  ?NAME             shows the documentation of NAME (pkg.Name, a variable, a function)
`

func findMagic(name string) (magic, bool) {
	for _, m := range magicTable() {
		if m.name == name {
			return m, true
		}
	}
	return magic{}, false
}

// cellMagics runs the magic, shell and help lines that open code. It
// returns the Go code left, with the lines it consumed blanked so that
// positions in errors are the cell's, and the page ?NAME asked for.
// timeCell is set by %%time.
func (e *Engine) cellMagics(ctx context.Context, code string) (rest, page string, timeCell bool, err error) {
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if i == 0 || strings.TrimSpace(strings.Join(lines[:i], "")) == "" {
			if t == "%%time" {
				lines[i] = ""
				timeCell = true
				continue
			}
		}
		if !isMagic(t) {
			break
		}
		lines[i] = ""
		switch t[0] {
		case '!':
			e.shell(ctx, strings.TrimSpace(t[1:]))
		case '?':
			text, found := e.Inspect(strings.TrimSpace(t[1:]), len(t)-1)
			if !found {
				return "", "", false, magicError("?%s: not found", strings.TrimSpace(t[1:]))
			}
			page += text
		default:
			if err := e.lineMagic(ctx, t[1:]); err != nil {
				return "", "", false, err
			}
		}
	}
	return strings.Join(lines, "\n"), page, timeCell, nil
}

// lineMagic runs one %name args line.
func (e *Engine) lineMagic(ctx context.Context, line string) error {
	name, args, _ := strings.Cut(line, " ")
	args = strings.TrimSpace(args)
	if strings.HasPrefix(name, "%") {
		return magicError("%%%s must be the first line of the cell", name)
	}
	m, ok := findMagic(name)
	if !ok {
		return magicError("unknown magic %%%s (%%help lists the magics)", name)
	}
	if name == "time" {
		start := time.Now()
		_, err := e.goCode(ctx, args)
		fmt.Fprintf(e.io.stdout, "time: %v\n", time.Since(start).Round(time.Microsecond))
		return err
	}
	return m.run(e, ctx, args)
}

func magicError(format string, a ...any) error {
	v := fmt.Sprintf(format, a...)
	return &Error{Name: "MagicError", Value: v, Traceback: []string{"MagicError: " + v}}
}

func (e *Engine) magicHelp(_ context.Context, _ string) error {
	var b strings.Builder
	b.WriteString(helpText)
	for _, m := range magicTable() {
		fmt.Fprintf(&b, "  %-17s %s\n", m.usage, m.doc)
	}
	var paths []string
	for p := range e.packages {
		if !strings.HasPrefix(p, "weft.internal") && strings.Contains(p, ".") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	b.WriteString("Bound (import without %go get; the standard library too):\n")
	for _, p := range paths {
		b.WriteString("  " + p + "\n")
	}
	_, err := e.io.stdout.Write([]byte(b.String()))
	return err
}

func (e *Engine) magicEnv(ctx context.Context, args string) error {
	if args == "" {
		env := os.Environ()
		sort.Strings(env)
		_, err := fmt.Fprintln(e.io.stdout, strings.Join(env, "\n"))
		return err
	}
	name, value, set := strings.Cut(args, "=")
	if !set {
		name, value, set = strings.Cut(args, " ")
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !set {
		_, err := fmt.Fprintln(e.io.stdout, os.Getenv(name))
		return err
	}
	if err := os.Setenv(name, value); err != nil {
		return magicError("%%env: %v", err)
	}
	// Cells read the interpreter's copy of the environment.
	_, err := e.in.EvalWithContext(ctx, fmt.Sprintf("_weft_os.Setenv(%q, %q)", name, value))
	if err != nil {
		return magicError("%%env: %v", err)
	}
	fmt.Fprintf(e.io.stdout, "env: %s=%s\n", name, value)
	return nil
}

func (e *Engine) magicTimeout(_ context.Context, args string) error {
	switch args {
	case "":
		if e.timeout == 0 {
			fmt.Fprintln(e.io.stdout, "timeout: off")
		} else {
			fmt.Fprintf(e.io.stdout, "timeout: %v\n", e.timeout)
		}
		return nil
	case "off", "0":
		e.timeout = 0
		fmt.Fprintln(e.io.stdout, "timeout: off")
		return nil
	}
	d, err := time.ParseDuration(args)
	if err != nil || d < 0 {
		return magicError("%%timeout %s: want a duration such as 30s or 5m, or off", args)
	}
	e.timeout = d
	fmt.Fprintf(e.io.stdout, "timeout: later cells are interrupted after %v\n", d)
	return nil
}

func (e *Engine) magicGo(ctx context.Context, args string) error {
	f := strings.Fields(args)
	if len(f) != 2 || f[0] != "get" {
		return magicError("usage: %%go get MODULE[@VERSION]")
	}
	return e.goGet(ctx, f[1])
}

// shell runs command with sh -c; its output streams to the cell. A failure
// is reported on stderr and does not fail the cell, as in IPython.
func (e *Engine) shell(ctx context.Context, command string) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = e.cellEnv(ctx)
	cmd.Stdout, cmd.Stderr = e.io.stdout, e.io.stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(e.io.stderr, "!%s: %v\n", command, err)
	}
}

// cellEnv is the interpreter's copy of the environment, which cells change
// with os.Setenv, so that a !command sees what the cells before it set, as
// a Go program's child would.
func (e *Engine) cellEnv(ctx context.Context) []string {
	v, err := e.in.EvalWithContext(ctx, "_weft_os.Environ()")
	if err != nil {
		return os.Environ()
	}
	env, ok := v.Interface().([]string)
	if !ok {
		return os.Environ()
	}
	return env
}
