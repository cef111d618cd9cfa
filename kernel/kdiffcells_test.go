package kernel_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kdiffCase is a session of cells and the Go program that computes the
// same: the kernel's standard output of all its cells must be the
// program's under `go run`.
type kdiffCase struct {
	name    string
	cells   []string
	program string
}

// preludeCell declares what the cases share (cell 1 of the defect found
// writing notebooks/09-etcd.ipynb); preludeDecls is the same in a program.
const (
	preludeCell = `import ("fmt"; "sort"; "strconv"; "github.com/weft-mc/weft/mcsdk/dataset")
func pr(d string) (string, int) { n, _ := strconv.Atoi(d); return d, n }`
	preludeDecls = `package main

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

func pr(d string) (string, int) { n, _ := strconv.Atoi(d); return d, n }

var _ = sort.Strings
var _ = fmt.Sprint
var _ dataset.Row
`
)

// kdiffCellCases are sessions that use weft's own types (bound in the
// kernel from its symbol tables; interpreted, they must not need the
// compiled fallback). Top-level statements with blocks that declare names: yaegi runs
// a cell's statements in its global scope, where `res, n := f()` inside a
// block was undefined and `x := …` inside one assigned the session's x.
func kdiffCellCases(etcd string) []kdiffCase {
	return []kdiffCase{
		{
			name: "a := beside a new name assigns the session's variable",
			cells: []string{preludeCell,
				"x := 1",
				"f := func() int { return x }",
				"x, y := 2, 3",
				`rows := []dataset.Row{{Detail: "4"}}
x, err := strconv.Atoi(rows[0].Detail)
fmt.Println(f(), x, y, err)`},
			program: preludeDecls + `
func main() {
	x := 1
	f := func() int { return x }
	x, y := 2, 3
	rows := []dataset.Row{{Detail: "4"}}
	x, err := strconv.Atoi(rows[0].Detail)
	fmt.Println(f(), x, y, err)
}
`,
		},
		{
			name: "a builtin's value as a later result of a return",
			cells: []string{preludeCell,
				`func twice(d string) (string, int) { s := d + d; return s, len(d) }
func sizes(r dataset.Row) (int, int) { return 1, len(r.Detail) }`,
				`s, n := twice("ab")
fmt.Println(s, n)
fmt.Println(sizes(dataset.Row{Detail: "xyz"}))`},
			program: preludeDecls + `
func twice(d string) (string, int) { s := d + d; return s, len(d) }
func sizes(r dataset.Row) (int, int) { return 1, len(r.Detail) }

func main() {
	s, n := twice("ab")
	fmt.Println(s, n)
	fmt.Println(sizes(dataset.Row{Detail: "xyz"}))
}
`,
		},
		{
			name: "loop with a two-value define (brief a)",
			cells: []string{preludeCell,
				`rows := []dataset.Row{{Verdict: "holds", Detail: "3"}}
verdicts, porcupine := map[string]int{}, map[string]int{}
ops := 0
for _, r := range rows { verdicts[r.Verdict]++; res, n := pr(r.Detail); porcupine[res]++; ops += n }`,
				`fmt.Println(verdicts, porcupine, ops)`},
			program: preludeDecls + `
func main() {
	rows := []dataset.Row{{Verdict: "holds", Detail: "3"}}
	verdicts, porcupine := map[string]int{}, map[string]int{}
	ops := 0
	for _, r := range rows { verdicts[r.Verdict]++; res, n := pr(r.Detail); porcupine[res]++; ops += n }
	fmt.Println(verdicts, porcupine, ops)
}
`,
		},
		{
			name: "range over a map with comma-ok and shadowing",
			cells: []string{preludeCell,
				`byVerdict := map[string][]dataset.Row{"holds": {{Detail: "4"}, {Detail: "5"}}, "violated": {{Detail: "7"}}}
seen := map[string]bool{"holds": true}
sum, n := 0, -1
for v, rs := range byVerdict {
	if ok, found := seen[v]; found && ok {
		for _, r := range rs {
			d, n := pr(r.Detail)
			sum += n
			_ = d
		}
		continue
	}
	n := len(rs)
	sum += 100 * n
}`,
				`fmt.Println(sum, n)`},
			program: preludeDecls + `
func main() {
	byVerdict := map[string][]dataset.Row{"holds": {{Detail: "4"}, {Detail: "5"}}, "violated": {{Detail: "7"}}}
	seen := map[string]bool{"holds": true}
	sum, n := 0, -1
	for v, rs := range byVerdict {
		if ok, found := seen[v]; found && ok {
			for _, r := range rs {
				d, n := pr(r.Detail)
				sum += n
				_ = d
			}
			continue
		}
		n := len(rs)
		sum += 100 * n
	}
	fmt.Println(sum, n)
}
`,
		},
		{
			name: "switch with := inside the loop",
			cells: []string{preludeCell,
				`rows := []dataset.Row{{Verdict: "holds", Detail: "2"}, {Verdict: "violated", Detail: "9"}, {Verdict: "error"}}
k := "none"
var out []string
for i, r := range rows {
	switch k := r.Verdict; k {
	case "holds", "violated":
		d, n := pr(r.Detail)
		out = append(out, fmt.Sprint(i, k, d, n))
	default:
		k := strconv.Itoa(i)
		out = append(out, k)
	}
}`,
				`fmt.Println(k, out)`},
			program: preludeDecls + `
func main() {
	rows := []dataset.Row{{Verdict: "holds", Detail: "2"}, {Verdict: "violated", Detail: "9"}, {Verdict: "error"}}
	k := "none"
	var out []string
	for i, r := range rows {
		switch k := r.Verdict; k {
		case "holds", "violated":
			d, n := pr(r.Detail)
			out = append(out, fmt.Sprint(i, k, d, n))
		default:
			k := strconv.Itoa(i)
			out = append(out, k)
		}
	}
	fmt.Println(k, out)
}
`,
		},
		{
			name: "closures made in a loop, and a literal called at once",
			cells: []string{preludeCell,
				`rows := []dataset.Row{{Verdict: "holds", Detail: "1"}, {Verdict: "violated", Detail: "2"}}
r := dataset.Row{Verdict: "session"}
var fs []func() string
for _, r := range rows {
	v := r.Verdict
	d, n := pr(r.Detail)
	fs = append(fs, func() string { return fmt.Sprint(v, d, n) })
}`,
				`func() {
	for _, f := range fs {
		fmt.Println(f())
	}
}()
fmt.Println(r.Verdict)`},
			program: preludeDecls + `
func main() {
	rows := []dataset.Row{{Verdict: "holds", Detail: "1"}, {Verdict: "violated", Detail: "2"}}
	r := dataset.Row{Verdict: "session"}
	var fs []func() string
	for _, r := range rows {
		v := r.Verdict
		d, n := pr(r.Detail)
		fs = append(fs, func() string { return fmt.Sprint(v, d, n) })
	}
	func() {
		for _, f := range fs {
			fmt.Println(f())
		}
	}()
	fmt.Println(r.Verdict)
}
`,
		},
		{
			name: "a function reading an earlier cell's rows (brief b)",
			cells: []string{preludeCell,
				fmt.Sprintf("rows, err := dataset.ReadRows(%q)", etcd),
				`func count(verdict string) int { k := 0; for _, r := range rows { if r.Verdict == verdict { k++ } }; return k }`,
				`fmt.Println(count("holds"), err)`},
			program: preludeDecls + fmt.Sprintf(`
var rows, err = dataset.ReadRows(%q)

func count(verdict string) int { k := 0; for _, r := range rows { if r.Verdict == verdict { k++ } }; return k }

func main() {
	fmt.Println(count("holds"), err)
}
`, etcd),
		},
		{
			name: "a loop over read rows that shadows a session variable",
			cells: []string{preludeCell,
				fmt.Sprintf("rows, err := dataset.ReadRows(%q)\nsteps := -1", etcd),
				`for _, r := range rows {
	if steps := r.Steps; steps > 0 {
		continue
	}
	steps, detail := r.Steps, r.Detail
	_, _ = steps, detail
}`,
				`fmt.Println(len(rows), err, steps)`},
			program: preludeDecls + fmt.Sprintf(`
func main() {
	rows, err := dataset.ReadRows(%q)
	steps := -1
	for _, r := range rows {
		if steps := r.Steps; steps > 0 {
			continue
		}
		steps, detail := r.Steps, r.Detail
		_, _ = steps, detail
	}
	fmt.Println(len(rows), err, steps)
}
`, etcd),
		},
	}
}

// TestKdiffCells runs each case's cells in one kernel through
// jupyter_client and its program with `go run` (in a scratch module that
// requires this checkout of weft), and demands that every cell succeeds
// and that the outputs are identical.
func TestKdiffCells(t *testing.T) {
	requireJupyter(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cases := kdiffCellCases(filepath.Join(root, "datasets", "shipped", "etcd-100"))
	_, jp := buildAndInstall(t, "weft-kdiffcells")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := goRunWeft(t, root, c.program)
			var got strings.Builder
			for i, r := range runCells(t, "weft-kdiffcells", jp, c.cells) {
				if r.Status != "ok" {
					t.Errorf("cell %d: %s: %s\n%s", i+1, r.Ename, r.Evalue, c.cells[i])
				}
				got.WriteString(r.Stdout)
			}
			if got.String() != want {
				t.Errorf("the kernel printed\n%s\ngo run printed\n%s", got.String(), want)
			}
		})
	}
}

// goRunWeft runs program with `go run` in a scratch module that requires
// weft's module replaced by the checkout at root, and returns its
// standard output. It needs no network: the build list is weft's own.
func goRunWeft(t *testing.T, root, program string) string {
	t.Helper()
	dir := t.TempDir()
	mod := "module kdiff.local/cells\n\ngo 1.26.0\n\nrequire github.com/weft-mc/weft v0.0.0\n\nreplace github.com/weft-mc/weft => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "main.go": []byte(program)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run: %v\n%s\n%s", err, stderr.String(), program)
	}
	return out.String()
}
