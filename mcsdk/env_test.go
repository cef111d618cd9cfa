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

// notYetMoved are the WEFT_ variables mcsdk still reads itself, each
// with where: issue 38 §4 moves them to cmd/ too. The test fails on any
// other, and on one of these no longer read (then drop it here).
var notYetMoved = map[string]string{
	"WEFT_CACHE": "supervisor/api.go: CacheDir, used by Build, gocheck and the native launcher's cache",
}

// TestNoWeftEnvironment: mcsdk reads no WEFT_ environment variable (the
// settings are decoded in cmd/ and passed down, as mcsdk.Host): it scans
// every non-test Go file under mcsdk/ for os.Getenv, os.LookupEnv and
// syscall.Getenv calls whose argument is a "WEFT_..." literal (or a
// constant so spelled in the same file).
func TestNoWeftEnvironment(t *testing.T) {
	found := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
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
			if strings.HasPrefix(name, "WEFT_") {
				found[name] = append(found[name], fset.Position(call.Pos()).String())
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, at := range found {
		if _, ok := notYetMoved[name]; !ok {
			t.Errorf("mcsdk reads %s (%s): decode it in cmd/ and pass it down as configuration", name, strings.Join(at, ", "))
		}
	}
	for name, where := range notYetMoved {
		if found[name] == nil {
			t.Errorf("mcsdk no longer reads %s (%s): drop it from notYetMoved", name, where)
		}
	}
	if len(found) == 0 && len(notYetMoved) > 0 {
		t.Error("the scan found nothing: it is broken")
	}
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
