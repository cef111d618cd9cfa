package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusConstructs returns the constructs of the differential corpus's
// language cases (testdata/diff/lang_*.go), with the cases holding each.
func corpusConstructs(t *testing.T) map[string][]string {
	files, err := filepath.Glob("../testdata/diff/lang_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	out := map[string][]string{}
	for _, p := range files {
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".go")
		declared := func(n string) bool { return f.Scope != nil && f.Scope.Lookup(n) != nil }
		for _, d := range f.Decls {
			constructs(d, declared, func(c string, _ ast.Node) {
				if !slices.Contains(out[c], name) {
					out[c] = append(out[c], name)
				}
			})
		}
	}
	return out
}

// TestAllowListInCorpus: every construct the interpreter is trusted with
// occurs in the differential corpus's language cases, which
// scripts/kernel-diff.sh runs in the kernel and with go run.
func TestAllowListInCorpus(t *testing.T) {
	got := corpusConstructs(t)
	for c := range allowedConstructs {
		if len(got[c]) == 0 {
			t.Errorf("%s is allowed but no language case of testdata/diff holds it", c)
		}
	}
	if os.Getenv("ALLOW_LIST") != "" {
		var all []string
		for c, cases := range got {
			all = append(all, c+" "+strings.Join(cases, ","))
		}
		slices.Sort(all)
		t.Log("\n" + strings.Join(all, "\n"))
	}
}
