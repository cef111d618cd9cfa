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

// TestDeepeningMatchesOneSearch: a check that deepens (depth 1, 2, ...,
// as weft check --time does) reaches the verdict of one search with the
// full bound, covers the bound, counts the same distinct states when it
// holds, and reports the same shortest violating path.
func TestDeepeningMatchesOneSearch(t *testing.T) {
	m, err := model.Load("../targets/repl/repl.model")
	if err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"correct", "bug"} {
		t.Run(variant, func(t *testing.T) {
			one, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: variant})
			if err != nil {
				t.Fatal(err)
			}
			var covered []int
			deep, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: variant, Deepen: true,
				Deepened: func(d, _, _ int) { covered = append(covered, d) }})
			if err != nil {
				t.Fatal(err)
			}
			if deep.Verdict != one.Verdict || !deep.Deepened || deep.Interrupted {
				t.Fatalf("verdict %s deepening, %s in one search", deep.Verdict, one.Verdict)
			}
			if one.Violation == nil {
				if deep.States != one.States || deep.Covered != one.Depth || one.Covered != one.Depth || len(covered) == 0 || covered[len(covered)-1] != one.Depth {
					t.Errorf("deepening: %d states, covered %d (%v); one search: %d states, covered %d", deep.States, deep.Covered, covered, one.States, one.Covered)
				}
				return
			}
			if fmt.Sprint(deep.Violation.Path) != fmt.Sprint(one.Violation.Path) || !deep.Shortest {
				t.Errorf("deepening's path %v (shortest %v), one search's %v", deep.Violation.Path, deep.Shortest, one.Violation.Path)
			}
			if deep.Covered != len(deep.Violation.Path)-1 && deep.Covered != len(deep.Violation.Path) {
				t.Errorf("covered %d with a violation of %d actions", deep.Covered, len(deep.Violation.Path))
			}
		})
	}
}
