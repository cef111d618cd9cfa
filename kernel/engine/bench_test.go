package engine

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCompiledModule measures a module run compiled (issue 40):
// "first" is `%go get github.com/google/uuid@v1.6.0` in a session whose
// GoPath has no plugin yet (a download if the module cache lacks it, the
// symbol tables generated, the plugin built and opened; Go's build cache
// is warm after the first iteration); "cached" is the same %go get in a new
// session with the GoPath of an earlier one (the plugin opened from the
// cache); "cell" is a cell calling into the compiled package.
func BenchmarkCompiledModule(b *testing.B) {
	const get = "%go get github.com/google/uuid@v1.6.0"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	run := func(b *testing.B, e *Engine, code string) {
		if _, err := e.Execute(ctx, code, newRecorder()); err != nil {
			b.Fatalf("%s: %v", code, err)
		}
	}
	session := func(b *testing.B, gopath string) *Engine {
		e, err := New(Options{GoPath: gopath})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close() })
		return e
	}
	b.Run("first", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			e := session(b, b.TempDir())
			b.StartTimer()
			run(b, e, get)
		}
	})
	gopath := b.TempDir()
	run(b, session(b, gopath), get)
	b.Run("cached", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			e := session(b, gopath)
			b.StartTimer()
			run(b, e, get)
		}
	})
	b.Run("cell", func(b *testing.B) {
		e := session(b, gopath)
		run(b, e, get+"\nimport \"github.com/google/uuid\"")
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			run(b, e, `uuid.NewSHA1(uuid.NameSpaceDNS, []byte("weft")).String()`)
		}
	})
}
