package mcsdk

import (
	"runtime"
	"testing"
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
