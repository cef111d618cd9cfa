package engine

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkCompiledModule measures a module used by compiled cells (issue
// 40): "first" is `%go get github.com/google/uuid@v1.6.0` in a new session
// (a download if the module cache lacks it, then `go get`, `go list` and a
// `go build` of the package; Go's build cache is warm after the first
// iteration); "cell" is a cell calling into the package, compiled and run
// in a child process (its build is cached after the first iteration: the
// same program).
func BenchmarkCompiledModule(b *testing.B) {
	const get = "%go get github.com/google/uuid@v1.6.0"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	b.Run("first", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			e := benchSession(b, b.TempDir())
			b.StartTimer()
			benchRun(ctx, b, e, get)
		}
	})
	b.Run("cell", func(b *testing.B) {
		e := benchSession(b, b.TempDir())
		benchRun(ctx, b, e, get+"\nimport \"github.com/google/uuid\"")
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			benchRun(ctx, b, e, `uuid.NewSHA1(uuid.NameSpaceDNS, []byte("weft")).String()`)
		}
	})
}

// BenchmarkCompiledCell measures a cell the interpreter cannot run (a
// generic function), compiled with the go toolchain and run in a child
// process: "first" is a program never built before (each iteration
// another constant, so another compile and link), "cached" the same cell
// again (its binary, kept by the digest of the program, is run without a build).
func BenchmarkCompiledCell(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	const decl = "func Sum[T ~int | ~float64](xs []T) T {\n\tvar s T\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}"
	e := benchSession(b, b.TempDir())
	benchRun(ctx, b, e, decl)
	start := time.Now().UnixNano()
	b.Run("first", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			benchRun(ctx, b, e, fmt.Sprintf("Sum([]int{%d, %d})", start, i))
		}
	})
	b.Run("cached", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			benchRun(ctx, b, e, "Sum([]int{1, 2, 3})")
		}
	})
}

func benchSession(b *testing.B, gopath string) *Engine {
	e, err := New(Options{GoPath: gopath})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

func benchRun(ctx context.Context, b *testing.B, e *Engine, code string) {
	if _, err := e.Execute(ctx, code, newRecorder()); err != nil {
		b.Fatalf("%s: %v", code, err)
	}
}
