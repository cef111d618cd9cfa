package mcsdk

import (
	"context"
	"runtime"
	"testing"
	"time"
)

func TestDefaultJobs(t *testing.T) {
	for _, c := range []struct{ cores, want int }{
		{1, 1}, // one core keeps one run: a second was slower (DefaultJobs)
		{2, 3},
		{3, 4},
		{4, 6},
		{64, 96},
	} {
		if got := defaultJobs(c.cores); got != c.want {
			t.Errorf("defaultJobs(%d) = %d, want %d", c.cores, got, c.want)
		}
	}
	if got, want := DefaultJobs(), defaultJobs(runtime.NumCPU()); got != want {
		t.Errorf("DefaultJobs() = %d, want %d for %d cores", got, want, runtime.NumCPU())
	}
}

// TestCutShortGrace: the outcomes a job's cancellation causes (an error, a
// node killed by a termination signal) are kept back until the campaign's
// interruption arrives, other crashes only briefly, the rest not at all.
func TestCutShortGrace(t *testing.T) {
	crash := func(why string) *RunResult {
		return &RunResult{Verdict: Violated, Violated: []string{"no_node_crash"}, FirstViolation: &Violation{Invariant: "no_node_crash", Why: why}}
	}
	tests := []struct {
		name string
		res  *RunResult
		want time.Duration // the grace, or 0 for none
	}{
		{"holds", &RunResult{Verdict: Holds}, 0},
		{"violated", &RunResult{Verdict: Violated, Violated: []string{"agreement"}}, 0},
		{"error", &RunResult{Verdict: Error}, outsideGrace},
		{"SIGTERM", crash("node 1 was killed by SIGTERM"), outsideGrace},
		{"SIGKILL", crash("node 0 was killed by SIGKILL"), outsideGrace},
		{"SIGSEGV", crash("node 0 was killed by SIGSEGV"), interruptGrace},
		{"exit status", crash("node 2 exited with status 1"), interruptGrace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if !cutShort(ctx, tc.res, nil) {
				t.Error("an interrupted campaign kept the run")
			}
			if got := cutGrace(tc.res, nil); got != tc.want {
				t.Errorf("grace %v, want %v", got, tc.want)
			}
		})
	}
}
