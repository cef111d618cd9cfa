package kernel

import (
	"context"
	"errors"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/weft-mc/weft/kernel/display"
	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/symbols"
)

// TestBoundPackagesImport imports every weft package bound into the kernel
// and takes the type of one of its functions, so a broken or stale symbol
// table fails here rather than in a notebook.
func TestBoundPackagesImport(t *testing.T) {
	eng, err := engine.New(DefaultOptions().Engine)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := BoundPackages()
	if len(pkgs) == 0 {
		t.Fatal("no weft packages bound")
	}
	if _, err := eng.Execute(context.Background(), `import "fmt"`, discard{}); err != nil {
		t.Fatal(err)
	}
	tables := symbols.Exports()
	for i, p := range pkgs {
		t.Run(p, func(t *testing.T) {
			fn := aFunction(tables[p+"/"+path.Base(p)])
			if fn == "" {
				t.Skipf("%s exports no function", p)
			}
			alias := fmt.Sprintf("w%d_%s", i, path.Base(p)) // analysis/charts and go-echarts' charts share a name
			code := "import " + alias + ` "` + p + `"` + "\n" + `fmt.Sprintf("%T", ` + alias + "." + fn + ")"
			res, err := eng.Execute(context.Background(), code, discard{})
			if err != nil {
				t.Fatalf("%s: %v", code, err)
			}
			if s, _ := res.Data.Data[display.MIMETypeText].(string); !strings.HasPrefix(s, "func(") {
				t.Fatalf("%s = %q, want a func type", code, s)
			}
		})
	}
}

// aFunction returns the first exported function of a symbol table, by name.
func aFunction(table map[string]reflect.Value) string {
	var names []string
	for n, v := range table {
		if v.Kind() == reflect.Func {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// discard is a Publisher that drops everything.
type discard struct{}

func (discard) Stream(string, string)              {}
func (discard) Display(display.Data) error         { return nil }
func (discard) Update(string, display.Data) error  { return nil }
func (discard) Clear(bool) error                   { return nil }
func (discard) Input(string, bool) (string, error) { return "", errors.New("no input") }
