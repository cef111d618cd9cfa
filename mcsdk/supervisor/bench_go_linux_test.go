//go:build linux && amd64

package supervisor

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildGoEcho builds testdata/goecho (the Go workload) once per test
// binary.
func buildGoEcho(tb testing.TB) string {
	tb.Helper()
	out := filepath.Join(probeDir, "goecho")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	if msg, err := exec.Command("go", "build", "-o", out, "./testdata/goecho").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, msg)
	}
	return out
}

// BenchmarkGoRoundTrip compares one request/response round trip of a Go
// program (net TCP, a goroutine on the server; two messages, each through
// the scheduler) under weft with the same program on native loopback.
func BenchmarkGoRoundTrip(b *testing.B) {
	bin := buildGoEcho(b)
	const n = 500
	var sup, nat float64
	for i := 0; i < b.N; i++ {
		sup += perOp(runSupervised(b, bin, 2, "pingpong", n), runSupervised(b, bin, 2, "pingpong", 0), n)
		port := 20000 + (os.Getpid()+i)%20000
		nat += perOp(runNative(b, bin, 2, "pingpong", n, port), runNative(b, bin, 2, "pingpong", 0, port+2), n)
	}
	b.ReportMetric(sup/float64(b.N)/1e3, "µs/supervised-go-rtt")
	b.ReportMetric(nat/float64(b.N)/1e3, "µs/native-go-rtt")
	b.ReportMetric(sup/nat, "ratio")
}

// BenchmarkGoStartup compares the start-up of a Go binary (runtime
// initialisation, its threads, exit) under weft with a native start.
func BenchmarkGoStartup(b *testing.B) {
	bin := buildGoEcho(b)
	var sup, nat float64
	for i := 0; i < b.N; i++ {
		sup += float64(runSupervised(b, bin, 1, "start", 0))
		nat += float64(runNative(b, bin, 1, "start", 0, 0))
	}
	b.ReportMetric(sup/float64(b.N)/1e6, "ms/supervised-go-start")
	b.ReportMetric(nat/float64(b.N)/1e6, "ms/native-go-start")
	b.ReportMetric(sup/nat, "ratio")
}

// TestGoBenchWorkloadRuns keeps the Go workload honest in the normal
// suite: it runs to completion under weft and natively.
func TestGoBenchWorkloadRuns(t *testing.T) {
	bin := buildGoEcho(t)
	runSupervised(t, bin, 2, "pingpong", 10)
	runSupervised(t, bin, 1, "start", 0)
	runNative(t, bin, 2, "pingpong", 10, 21500+os.Getpid()%10000)
}
