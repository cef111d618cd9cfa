package mcsdk_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoWeftEnvironment: mcsdk reads no WEFT_ environment variable, nor
// CC (the settings are decoded in cmd/ and passed down, as mcsdk.Host):
// it scans every non-test Go file under mcsdk/ for os.Getenv, os.LookupEnv
// and syscall.Getenv calls whose argument is such a literal (or a constant
// so spelled in the same file).
func TestNoWeftEnvironment(t *testing.T) {
	// The scan itself, on a file that reads both ways.
	probe := "package p\nimport \"os\"\nconst cache = \"WEFT_CACHE\"\nvar a, b, c = os.Getenv(cache), os.Getenv(\"CC\"), os.Getenv(\"HOME\")\n"
	got, err := envReads("probe.go", probe)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["WEFT_CACHE"] == nil || got["CC"] == nil {
		t.Fatalf("the scan is broken: it found %v in %q, want WEFT_CACHE and CC", got, probe)
	}
	found := map[string][]string{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		reads, err := envReads(path, nil)
		for name, at := range reads {
			found[name] = append(found[name], at...)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, at := range found {
		t.Errorf("mcsdk reads %s (%s): decode it in cmd/ and pass it down as configuration", name, strings.Join(at, ", "))
	}
}

// envReads maps each WEFT_ variable (or CC) the Go file at path (src, if
// not nil) reads to where.
func envReads(path string, src any) (map[string][]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return nil, err
	}
	found := map[string][]string{}
	consts := fileConstants(f)
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 || !readsEnv(call.Fun) {
			return true
		}
		name := ""
		switch a := call.Args[0].(type) {
		case *ast.BasicLit:
			name, _ = strconv.Unquote(a.Value)
		case *ast.Ident:
			name = consts[a.Name]
		}
		if strings.HasPrefix(name, "WEFT_") || name == "CC" {
			found[name] = append(found[name], fset.Position(call.Pos()).String())
		}
		return true
	})
	return found, nil
}

// readsEnv reports whether fun is os.Getenv, os.LookupEnv or
// syscall.Getenv.
func readsEnv(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch pkg.Name + "." + sel.Sel.Name {
	case "os.Getenv", "os.LookupEnv", "syscall.Getenv", "unix.Getenv":
		return true
	}
	return false
}

// fileConstants maps f's string constants to their values.
func fileConstants(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[n.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	return out
}
