package docs

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A README line and the names it shows: its inline code spans, or the
// whole line inside a fenced block of commands (sh, console). Other
// fenced blocks (a model's TOML) are examples, their names made up.
type readmeLine struct {
	n     int // 1-based
	text  string
	spans []string
}

// readmeLines splits a Markdown document into lines with their code.
func readmeLines(doc string) []readmeLine {
	var out []readmeLine
	fenced, shell := false, false
	for i, text := range strings.Split(doc, "\n") {
		if info, ok := strings.CutPrefix(strings.TrimSpace(text), "```"); ok {
			fenced = !fenced
			shell = fenced && (info == "sh" || info == "console" || info == "bash")
			continue
		}
		l := readmeLine{n: i + 1, text: text}
		if shell {
			l.spans = []string{text}
		} else if !fenced {
			for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
				l.spans = append(l.spans, m[1])
			}
		}
		out = append(out, l)
	}
	return out
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	// A Go test, or a test and its subtest (the parent must exist).
	testName = regexp.MustCompile(`\bTest[A-Z0-9_]\w*`)
	testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	word     = regexp.MustCompile(`\w+`)
	// A constant-like name: an environment variable (WEFT_TSC=trap,
	// CHORD_CHECKS) or a kernel constant (PR_SET_TSC, or UNICAST_HOPS for
	// IPV6_UNICAST_HOPS); code must name it. A kernel build option
	// (CONFIG_...) is the kernel's, not weft's.
	constName = regexp.MustCompile(`\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b`)
	// Kernel names README uses for what weft leaves to the kernel or
	// refuses without naming: futex operations other than those
	// sys_futex.go serves end the run; the kernel applies SA_RESETHAND.
	kernelOnly = map[string]bool{"FUTEX_LOCK_PI": true, "SA_RESETHAND": true}
	// weft (or bin/weft) and the word after it.
	weftCommand = regexp.MustCompile(`(?:^|[\s/(])weft ([a-z][a-z-]*)`)
	flagToken   = regexp.MustCompile(`^--?([a-z][a-z0-9-]*)`)
	// Paths in the repository a reader would look for.
	pathPrefixes = []string{"scripts/", "mcsdk/", "targets/", "cmd/", "docs/", "kernel/", "notebooks/", "analysis/", "report/", "internal/"}
	pathSuffixes = []string{".go", ".model", ".sh", ".c"}
)

// TestReadmeNames checks that every name README.md shows exists: each Go
// test it names is a func in some _test.go file (for Parent/sub, the
// parent); each repository path (scripts/..., mcsdk/..., targets/...,
// *.go, *.model...) is a file or directory; each weft COMMAND is one, and
// each flag shown after it (in code, or anywhere in a row of the Commands
// table) is in that command's --help, a flag alone in prose in some
// command's; each constant-like NAME in code (environment variables,
// kernel constants) appears in some source file. A mismatch is reported
// as README.md:LINE and the name, so the README cannot name what was
// renamed or removed. It needs Go to build weft (or WEFT_TEST_BIN), no
// seccomp.
func TestReadmeNames(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src := loadSources(t, "..")
	help := weftHelp(t)
	for _, p := range checkReadme(string(readme), src, help, "..") {
		t.Error(p)
	}
	// Each wrong name is caught, at its line; the right ones pass.
	for _, c := range []struct{ doc, want string }{
		{"`TestReadmeNames` and `TestReadmeNames/sub`", ""},
		{"run `TestNoSuchThing`", "README.md:1: no test func TestNoSuchThing"},
		{"`go test ./docs -run TestNoSuchThing/sub`", "README.md:1: no test func TestNoSuchThing"},
		{"`scripts/test.sh`, `sys_net.go`, `notebooks/05-paxos`, `targets/repl/repl.model`", ""},
		{"x\n`scripts/nosuch.sh`", "README.md:2: no file or directory scripts/nosuch.sh"},
		{"`nosuch_linux.go`", "README.md:1: no file or directory nosuch_linux.go"},
		{"`weft check MODEL --depth N --strategy bfs`", ""},
		{"`weft check MODEL --no-such-flag`", "README.md:1: weft check --help has no flag no-such-flag"},
		{"```sh\nbin/weft run --seed 1 --nosuch -- prog --its-own\n```", "README.md:2: weft run --help has no flag nosuch"},
		{"| `weft stats DATASET` | rates (`--jsonx`) | 0 |", "README.md:1: weft stats --help has no flag jsonx"},
		{"`--threads fixed`", ""},
		{"`--threadz fixed`", "README.md:1: no weft command has a flag threadz"},
		{"`weft frobnicate`", `README.md:1: weft has no command "frobnicate"`},
		{"`WEFT_NO_VDSO=1`, `WEFT_TSC=trap`", ""},
		{"`WEFT_NO_SUCH_VAR=1`", "README.md:1: WEFT_NO_SUCH_VAR is not named in any source file"},
	} {
		got := strings.Join(checkReadme(c.doc, src, help, ".."), "\n")
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("checkReadme(%q) = %q, want %q", c.doc, got, c.want)
		}
	}
}

// sources is what the repository holds: its test funcs, its files' names
// and the words of its source files.
type sources struct {
	tests     map[string]bool
	basenames map[string]bool
	words     map[string]bool // the words of every source file, and their parts after each _
}

func loadSources(t *testing.T, root string) *sources {
	t.Helper()
	s := &sources{tests: map[string]bool{}, basenames: map[string]bool{}, words: map[string]bool{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch rel {
			case ".git", "build", "bin", "datasets":
				return filepath.SkipDir
			}
			if d.Name() == "node_modules" {
				return filepath.SkipDir
			}
		}
		if rel != "." {
			s.basenames[d.Name()] = true
		}
		if d.IsDir() {
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".c", ".h", ".sh", ".py", ".model", ".toml", ".js", ".mjs", ".s", ".conf", ".cfg", ".lua":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, "_test.go") {
			for _, m := range testFunc.FindAllSubmatch(b, -1) {
				s.tests[string(m[1])] = true
			}
		}
		if rel == "docs/readme_test.go" { // its wrong names are examples
			return nil
		}
		for _, w := range word.FindAll(b, -1) {
			for {
				s.words[string(w)] = true
				i := bytes.IndexByte(w, '_')
				if i < 0 {
					break
				}
				w = w[i+1:]
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// weftHelp builds weft (or takes scripts/test.sh's, WEFT_TEST_BIN) and
// returns each command's --help text.
func weftHelp(t *testing.T) map[string]string {
	t.Helper()
	bin := os.Getenv("WEFT_TEST_BIN")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "weft")
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/weft").CombinedOutput(); err != nil {
			t.Fatalf("building weft: %v\n%s", err, out)
		}
	}
	top, _ := exec.Command(bin, "--help").CombinedOutput()
	cmds := regexp.MustCompile(`(?m)^  ([a-z]+) {2,}`).FindAllSubmatch(top, -1)
	if len(cmds) < 10 {
		t.Fatalf("weft --help lists %d commands:\n%s", len(cmds), top)
	}
	help := map[string]string{}
	for _, c := range cmds {
		name := string(c[1])
		out, _ := exec.Command(bin, name, "--help").CombinedOutput()
		if !bytes.Contains(out, []byte("weft "+name)) {
			t.Fatalf("weft %s --help does not show its usage:\n%s", name, out)
		}
		help[name] = string(out)
	}
	return help
}

// hasFlag reports whether a command's help shows the flag name: as
// Go's flag package lists it (-name) or in its usage (--name); --help is
// every command's.
func hasFlag(help, name string) bool {
	if name == "help" { // every command's, from the flag package
		return true
	}
	return regexp.MustCompile(`(?:^|[\s\[|(])--?` + regexp.QuoteMeta(name) + `\b`).MatchString(help)
}

// checkReadme returns a README.md:LINE: problem for every name in doc
// that src and help do not have.
func checkReadme(doc string, src *sources, help map[string]string, root string) []string {
	var problems []string
	bad := func(l readmeLine, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("README.md:%d: %s", l.n, fmt.Sprintf(format, args...)))
	}
	for _, l := range readmeLines(doc) {
		for _, name := range testName.FindAllString(l.text, -1) {
			if !src.tests[name] {
				bad(l, "no test func %s in any _test.go file", name)
			}
		}
		// A row of the Commands table: its flags are the command's.
		var rowCmd string
		if m := regexp.MustCompile("^\\| `weft ([a-z]+)").FindStringSubmatch(l.text); m != nil {
			rowCmd = m[1]
		}
		for _, span := range l.spans {
			for _, name := range constName.FindAllString(span, -1) {
				if strings.HasPrefix(name, "CONFIG_") || kernelOnly[name] {
					continue
				}
				if !src.words[name] {
					bad(l, "%s is not named in any source file", name)
				}
			}
			for _, w := range strings.Fields(span) {
				if p, ok := repoPath(w); ok && !src.exists(p, root) {
					bad(l, "no file or directory %s", p)
				}
			}
			checkFlags(l, span, rowCmd, help, bad)
		}
	}
	return problems
}

// checkFlags checks the flags a span gives weft commands.
func checkFlags(l readmeLine, span, rowCmd string, help map[string]string, bad func(readmeLine, string, ...any)) {
	cmd := ""
	if !strings.Contains(span, "weft ") {
		cmd = rowCmd
	}
	if m := flagToken.FindStringSubmatch(span); m != nil && cmd == "" && !strings.Contains(span, "weft ") {
		// A flag on its own in prose (`--threads fixed`): some
		// command's.
		if !slices.ContainsFunc(slices.Collect(maps.Values(help)), func(h string) bool { return hasFlag(h, m[1]) }) {
			bad(l, "no weft command has a flag %s", m[1])
		}
		return
	}
	for _, w := range strings.Fields(span) {
		if w == "--" { // what follows is the program's
			cmd = ""
			continue
		}
		if w == "weft" || strings.HasSuffix(w, "/weft") {
			cmd = ""
			continue
		}
		if cmd == "" {
			if _, ok := help[w]; ok && strings.Contains(span, "weft "+w) {
				cmd = w
			}
			continue
		}
		for _, alt := range strings.Split(strings.Trim(w, "[]()|\\,;."), "|") {
			alt = strings.Trim(alt, "[]()\\")
			m := flagToken.FindStringSubmatch(alt)
			if m == nil {
				continue
			}
			if !hasFlag(help[cmd], m[1]) {
				bad(l, "weft %s --help has no flag %s", cmd, m[1])
			}
		}
	}
	for _, m := range weftCommand.FindAllStringSubmatch(span, -1) {
		if _, ok := help[m[1]]; !ok {
			bad(l, "weft has no command %q", m[1])
		}
	}
}

// repoPath returns the repository path a word of code names, if any.
func repoPath(w string) (string, bool) {
	w = strings.Trim(w, "(),;:\"'")
	w, _, _ = strings.Cut(w, ":") // file.go:123
	if strings.Contains(w, "://") || w == "" {
		return "", false
	}
	for _, p := range pathPrefixes {
		if strings.HasPrefix(w, p) {
			return w, true
		}
	}
	for _, s := range pathSuffixes {
		if strings.HasSuffix(w, s) && !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return w, true
		}
	}
	return "", false
}

// exists reports whether the repository has path p: relative to the root
// when it has a directory, else as any file's name; * matches as in
// path.Match.
func (s *sources) exists(p, root string) bool {
	p = strings.TrimSuffix(p, "/")
	if !strings.Contains(p, "/") {
		if !strings.Contains(p, "*") {
			return s.basenames[p]
		}
		for b := range s.basenames {
			if ok, _ := filepath.Match(p, b); ok {
				return true
			}
		}
		return false
	}
	if strings.Contains(p, "*") {
		m, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)))
		return len(m) > 0
	}
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil && filepath.Ext(p) == "" { // notebooks/05-paxos
		m, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)) + ".*")
		return len(m) > 0
	}
	return err == nil
}
