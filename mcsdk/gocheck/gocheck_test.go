package gocheck

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

// chordFiles are the Chord target's checks, as chord.model names them.
func chordFiles(t testing.TB) []string {
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

// TestChecksAgree loads the Chord checks from source, as a model does,
// compiled (a helper program) and interpreted, and compares every
// invariant and the precondition with the package compiled into this test
// on random snapshots.
func TestChecksAgree(t *testing.T) {
	for _, mode := range []string{"native", "interp"} {
		t.Run(mode, func(t *testing.T) {
			c, err := Load(chordFiles(t), Mode(mode))
			if err != nil {
				t.Fatal(err)
			}
			if c.Compiled != (mode == "native") {
				t.Fatalf("Compiled = %v (%s)", c.Compiled, c.NotCompiled)
			}
			agree(t, c)
		})
	}
}

func agree(t *testing.T, c *Checks) {
	compiled := chordcheck.Registry()
	if len(c.Registry) != len(compiled) || len(c.Registry) == 0 {
		t.Fatalf("%d loaded invariants, %d compiled", len(c.Registry), len(compiled))
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
				t.Fatalf("%s: compiled (%v, %q), loaded (%v, %q)", name, ok1, why1, ok2, why2)
			}
			differ[ok1]++
		}
		for n := range s.Nodes {
			ok1, why1 := chordcheck.CrashPrecondition(s, n)
			ok2, why2 := pre(s, n)
			if ok1 != ok2 || why1 != why2 {
				t.Fatalf("precondition node %d: compiled (%v, %q), loaded (%v, %q)", n, ok1, why1, ok2, why2)
			}
		}
	}
	if differ[true] == 0 || differ[false] == 0 {
		t.Fatalf("the snapshots exercise one outcome only: %v", differ)
	}
}

// TestCompiledConcurrent: concurrent callers (a campaign's workers) each
// get an answer of their own.
func TestCompiledConcurrent(t *testing.T) {
	c, err := Load(chordFiles(t), Native)
	if err != nil {
		t.Fatal(err)
	}
	compiled := chordcheck.Registry()
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range 100 {
				s := randomState(r)
				for name, f := range compiled {
					ok1, why1 := f(s)
					if ok2, why2 := c.Registry[name](s); ok1 != ok2 || why1 != why2 {
						errs <- name
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s: a concurrent caller got another answer", name)
	}
}

// moduleChecks writes src as the checks of a throwaway module beside
// weft's (its go.mod requires weft from this checkout) and returns the file.
func moduleChecks(t *testing.T, src string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module example.com/checks\n\ngo 1.26.0\n\nrequire github.com/weft-mc/weft v0.0.0\n\nreplace github.com/weft-mc/weft => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// The throwaway go.mod lists weft alone; the build resolves the rest
	// from go.sum and the module cache, as a user's tidy module would.
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	for name, data := range map[string]string{"go.mod": mod, "go.sum": string(sum), "checks/checks.go": src} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "checks/checks.go")
}

// TestCompiledModule: checks in a user's own module compile against the
// weft that module requires; a check that panics, compiled or
// interpreted, panics at its caller with the check's message (the model
// turns that into an error), and the helper survives it.
func TestCompiledModule(t *testing.T) {
	f := moduleChecks(t, `package mine

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/model"
)

func Registry() model.Registry {
	return model.Registry{
		"Small": func(s model.State) (bool, string) {
			n, _ := s.Nodes[0].Vars["x"].AsInt()
			return n < 3, fmt.Sprintf("x = %d", n)
		},
		"Boom": func(s model.State) (bool, string) { panic("boom") },
		"Logs": func(s model.State) (bool, string) { return true, fmt.Sprint(s.Logs["log"], s.Nodes[0].Vars["r"]) },
	}
}
`)
	s := model.State{
		Nodes: []model.NodeState{{Alive: true, Vars: map[string]model.Value{"x": model.Int(5), "r": model.Record([]model.Field{{Name: "a", Value: model.List(model.Str("é\x00"), model.Bool(true))}})}}},
		Logs:  map[string][]model.Value{"log": {model.Int(-9), model.Str("")}},
	}
	for _, mode := range []string{"native", "interp"} {
		t.Run(mode, func(t *testing.T) {
			c, err := Load([]string{f}, Mode(mode))
			if err != nil {
				t.Fatal(err)
			}
			if c.Compiled != (mode == "native") {
				t.Fatalf("Compiled = %v (%s)", c.Compiled, c.NotCompiled)
			}
			if ok, why := c.Registry["Small"](s); ok || why != "x = 5" {
				t.Fatalf("Small: (%v, %q)", ok, why)
			}
			if ok, why := c.Registry["Logs"](s); !ok || why != `[-9 ""] {a: ["é\x00", true]}` {
				t.Fatalf("Logs: (%v, %q)", ok, why)
			}
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "boom") {
						t.Fatalf("Boom: recovered %v", r)
					}
				}()
				c.Registry["Boom"](s)
			}()
			if ok, _ := c.Registry["Small"](model.State{Nodes: []model.NodeState{{Vars: map[string]model.Value{"x": model.Int(1)}}}}); !ok {
				t.Fatal("Small after a panic")
			}
		})
	}
}

// TestCompileErrorFallsBack: a file the compiler rejects is reported as
// the interpreter reports it (positioned), not as a build log, unless
// the Native mode asks for compiled checks only.
func TestCompileErrorFallsBack(t *testing.T) {
	f := moduleChecks(t, "package mine\n\nimport \"github.com/weft-mc/weft/mcsdk/model\"\n\nfunc Registry() model.Registry { return undefinedName }\n")
	_, err := Load([]string{f}, Auto)
	if err == nil || strings.Contains(err.Error(), "go build") || !strings.Contains(err.Error(), "checks.go:5") {
		t.Fatalf("error %v, want the interpreter's, positioned", err)
	}
	if _, err := Load([]string{f}, Native); err == nil || !strings.Contains(err.Error(), "go build") {
		t.Fatalf("Native: error %v, want the build's", err)
	}
}

// TestWireRoundTrip: every kind of value, nested, survives the helper's
// wire format, and truncated or corrupt frames are errors.
func TestWireRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var value func(depth int) model.Value
	value = func(depth int) model.Value {
		k := r.IntN(6)
		if depth > 3 {
			k %= 4
		}
		switch k {
		case 0:
			return model.Int(r.Int64() - r.Int64())
		case 1:
			return model.Str(string(rune(r.IntN(0x2000))) + "\x00\"")
		case 2:
			return model.Bool(r.IntN(2) == 0)
		case 3:
			return model.Value{}
		case 4:
			var elems []model.Value
			for range r.IntN(4) {
				elems = append(elems, value(depth+1))
			}
			return model.List(elems...)
		}
		var fields []model.Field
		for i := range r.IntN(4) {
			fields = append(fields, model.Field{Name: fmt.Sprint("f", i), Value: value(depth + 1)})
		}
		return model.Record(fields)
	}
	for range 200 {
		var s model.State
		for range r.IntN(4) {
			ns := model.NodeState{Alive: r.IntN(2) == 0, Vars: map[string]model.Value{}}
			for i := range r.IntN(4) {
				ns.Vars[fmt.Sprint("v", i)] = value(0)
			}
			s.Nodes = append(s.Nodes, ns)
		}
		if r.IntN(2) == 0 {
			s.Logs = map[string][]model.Value{"log": {value(0), value(0)}}
		}
		b := wireState(nil, s)
		rd := &wireReader{b: b}
		got := rd.state()
		if rd.err != nil || len(rd.b) != 0 {
			t.Fatalf("decoding: %v, %d bytes left", rd.err, len(rd.b))
		}
		if len(got.Nodes) != len(s.Nodes) || len(got.Logs) != len(s.Logs) {
			t.Fatalf("round trip: %d nodes %d logs, want %d %d", len(got.Nodes), len(got.Logs), len(s.Nodes), len(s.Logs))
		}
		for i := range s.Nodes {
			if len(got.Nodes[i].Vars) != len(s.Nodes[i].Vars) || got.Nodes[i].Alive != s.Nodes[i].Alive {
				t.Fatalf("node %d: %v, want %v", i, got.Nodes[i], s.Nodes[i])
			}
			for name, v := range s.Nodes[i].Vars {
				if w := got.Nodes[i].Vars[name]; !w.Equal(v) {
					t.Fatalf("node %d %s: %v, want %v", i, name, w, v)
				}
			}
		}
		for i, v := range s.Logs["log"] {
			if !got.Logs["log"][i].Equal(v) {
				t.Fatalf("log entry %d: %v, want %v", i, got.Logs["log"][i], v)
			}
		}
		// Decoding consumes exactly the encoding, so every strict prefix
		// is an error.
		for cut := 0; cut < len(b); cut += 1 + len(b)/7 {
			rd := &wireReader{b: b[:cut]}
			if rd.state(); rd.err == nil {
				t.Fatalf("a prefix of %d of %d bytes decoded", cut, len(b))
			}
		}
	}
	rd := &wireReader{b: []byte{0xff, 0xff, 0xff, 0x7f}}
	rd.state()
	if rd.err == nil {
		t.Fatal("a node count larger than the frame decoded")
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
			_, err := Load([]string{f}, Auto)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Load([]string{"/nonexistent/x.go"}, Auto); err == nil {
		t.Fatal("a missing file loaded")
	}
}
