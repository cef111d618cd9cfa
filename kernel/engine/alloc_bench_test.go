package engine

import (
	"context"
	"testing"
	"time"
)

// BenchmarkAllocChecks measures interpreted cells whose allocations pass
// through the checks of alloc.go: "trivial" has none (the rewrite only
// scans it), "make" makes and fills one slice, "makes" makes 10000 small
// slices (the check's cost per make). The same file run on a tree
// without alloc.go gives the cost of the checks.
func BenchmarkAllocChecks(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for _, c := range []struct{ name, cell string }{
		{"trivial", "1 + 1"},
		{"make", "xs := make([]float64, 1000)\nfor i := range xs {\n\txs[i] = float64(i)\n}\nlen(xs)"},
		{"makes", "n := 0\nfor i := 0; i < 10000; i++ {\n\tn += len(make([]byte, 16))\n}\nn"},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := benchSession(b, b.TempDir())
			benchRun(ctx, b, e, c.cell)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				benchRun(ctx, b, e, c.cell)
			}
		})
	}
}
