package supervisor

import (
	"testing"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// TestSignalTimerName checks the names of signal timer events: the main
// process's as they always read, another process's with its place in
// fork order.
func TestSignalTimerName(t *testing.T) {
	for _, c := range []struct {
		task int
		want string
	}{
		{vkernel.RealTimerTask, "ITIMER_REAL (SIGALRM) timer"},
		{vkernel.TimerTask(3), "POSIX timer 3"},
		{vkernel.ProcTimerTask(1, vkernel.RealTimerTask), "ITIMER_REAL (SIGALRM) timer of process #1 (fork order)"},
		{vkernel.ProcTimerTask(2, vkernel.TimerTask(0)), "POSIX timer 0 of process #2 (fork order)"},
	} {
		if got := SignalTimerName(c.task); got != c.want {
			t.Errorf("SignalTimerName(%d) = %q, want %q", c.task, got, c.want)
		}
	}
}
