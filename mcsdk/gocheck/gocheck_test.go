package gocheck

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

// chordFiles are the Chord target's checks, as chord.model names them.
func chordFiles(t *testing.T) []string {
	var out []string
	for _, f := range []string{"chordcheck.go", "invariants.go", "weft.go"} {
		p, err := filepath.Abs(filepath.Join("../../targets/chord/chordcheck", f))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// randomState is a Chord snapshot of six nodes with random pointers.
func randomState(r *rand.Rand) model.State {
	ids := []int64{1, 22, 43, 4, 25, 46}
	ptr := func() model.Value {
		if r.IntN(5) == 0 {
			return model.Int(-1)
		}
		return model.Int(ids[r.IntN(len(ids))])
	}
	var s model.State
	for _, id := range ids {
		s.Nodes = append(s.Nodes, model.NodeState{Alive: r.IntN(4) != 0, Vars: map[string]model.Value{
			"chord_id": model.Int(id), "succ": ptr(), "succ2": ptr(), "pred": ptr(),
		}})
	}
	return s
}

// TestInterpretedChecksAgree loads the Chord checks from source, as a
// model does, and compares every invariant and the precondition with the
// compiled package on random snapshots.
func TestInterpretedChecksAgree(t *testing.T) {
	c, err := Load(chordFiles(t))
	if err != nil {
		t.Fatal(err)
	}
	compiled := chordcheck.Registry()
	if len(c.Registry) != len(compiled) || len(c.Registry) == 0 {
		t.Fatalf("%d interpreted invariants, %d compiled", len(c.Registry), len(compiled))
	}
	pre := c.Preconditions["CrashPrecondition"]
	if pre == nil {
		t.Fatal("no CrashPrecondition")
	}
	r := rand.New(rand.NewPCG(1, 2))
	differ := map[bool]int{}
	for range 300 {
		s := randomState(r)
		for name, f := range compiled {
			ok1, why1 := f(s)
			ok2, why2 := c.Registry[name](s)
			if ok1 != ok2 || why1 != why2 {
				t.Fatalf("%s: compiled (%v, %q), interpreted (%v, %q)", name, ok1, why1, ok2, why2)
			}
			differ[ok1]++
		}
		for n := range s.Nodes {
			ok1, why1 := chordcheck.CrashPrecondition(s, n)
			ok2, why2 := pre(s, n)
			if ok1 != ok2 || why1 != why2 {
				t.Fatalf("precondition node %d: compiled (%v, %q), interpreted (%v, %q)", n, ok1, why1, ok2, why2)
			}
		}
	}
	if differ[true] == 0 || differ[false] == 0 {
		t.Fatalf("the snapshots exercise one outcome only: %v", differ)
	}
}

// TestLoadErrors: bad check files are errors, never panics.
func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"syntax", "package x\nfunc Registry( {", "checks"},
		{"no registry", "package x\nfunc Other() int { return 1 }", "must export func Registry"},
		{"wrong type", "package x\nfunc Registry() int { return 1 }", "want func() model.Registry"},
		{"panics", "package x\nimport \"github.com/weft-mc/weft/mcsdk/model\"\nfunc Registry() model.Registry { panic(\"boom\") }", "boom"},
		{"bad preconditions", "package x\nimport \"github.com/weft-mc/weft/mcsdk/model\"\nfunc Registry() model.Registry { return nil }\nfunc Preconditions() int { return 0 }", "Preconditions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "checks.go")
			if err := os.WriteFile(f, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load([]string{f})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Load([]string{"/nonexistent/x.go"}); err == nil {
		t.Fatal("a missing file loaded")
	}
}
