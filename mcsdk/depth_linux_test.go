//go:build linux

package mcsdk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestBoundedSearchIsComplete pins the completeness of exhaustive search
// within its depth bound (testdata/depth.c): a state S is reachable at
// depth 2 and at depth 3, depth-first search meets it at depth 3 first,
// and the violation lies two steps after S. An explorer that prunes S when
// it meets it again with more depth left says "holds" at depth 4.
func TestBoundedSearchIsComplete(t *testing.T) {
	src, err := filepath.Abs("testdata/depth.c")
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`[target]
nodes = 2
source = %q
args = ["{id}", "{base_port}"]
base_port = 7350

[state]
a = "int32"
b = "int32"
bad = "int32"

[environment]
depth = 4

[invariants]
never_bad = "node[0].bad == 0"
`, src)
	path := filepath.Join(t.TempDir(), "depth.model")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, abs := range []mcsdk.Abstraction{mcsdk.Memory, mcsdk.Globals} {
		for _, tc := range []struct {
			depth int
			want  mcsdk.Verdict
		}{{3, mcsdk.Holds}, {4, mcsdk.Violated}, {6, mcsdk.Violated}} {
			t.Run(fmt.Sprintf("%s/depth%d", abs, tc.depth), func(t *testing.T) {
				res, err := mcsdk.Check(m, mcsdk.CheckOptions{Depth: tc.depth, Abstraction: abs})
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != tc.want {
					t.Fatalf("verdict %s at depth %d, want %s (%d states)", res.Verdict, tc.depth, tc.want, res.States)
				}
				if res.Violation != nil && len(res.Violation.Path) > tc.depth {
					t.Fatalf("violating path of %d actions exceeds the bound %d", len(res.Violation.Path), tc.depth)
				}
				if tc.depth == 4 && res.Violation != nil && len(res.Violation.Path) != 4 {
					t.Fatalf("at the minimal depth the path has %d actions, want 4", len(res.Violation.Path))
				}
			})
		}
	}
}
