//go:build linux && amd64

package supervisor

import (
	"os"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestGetdentsFull (issue 36 §5): weft reads a node's directory with its
// own getdents call, and Linux stops filling the buffer early when the
// calling thread has a signal pending (fs/readdir.c). weft's threads get
// signals the host times: Go's runtime preempts goroutines with SIGURG,
// and every stop of a traced node sends weft SIGCHLD. A directory listing
// then took more calls in one run than in another, and a threaded node's
// schedule followed (RabbitMQ's and etcd's runs differed under load). The
// test floods every thread of weft's process with SIGURG while a node
// lists a directory of 2,000 entries five times: every call must fill
// its buffer as natively, the same count of calls each round.
func TestGetdentsFull(t *testing.T) {
	bin := buildProbe(t, "dents", "-O1")
	stop := floodSignals(t)
	out, w := runAlone(t, bin, 1, "2000")
	stop()
	w.Close()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 5 {
		t.Fatalf("want 5 rounds, got:\n%s", out)
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, ": 2002 entries in 5 calls, 0 short") {
			t.Errorf("a listing under weft beside signals: %q, want 2002 entries in 5 calls, none short (natively so)", l)
		}
	}
}

// floodSignals sends SIGURG to every thread of this process, over and
// over, until the returned function is called. Go's runtime takes SIGURG
// as a preemption request, so nothing else happens.
func floodSignals(t *testing.T) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pid := os.Getpid()
		for {
			select {
			case <-done:
				return
			default:
			}
			ents, err := os.ReadDir("/proc/self/task")
			if err != nil {
				return
			}
			for range 50 {
				for _, e := range ents {
					var tid int
					for _, ch := range e.Name() {
						tid = tid*10 + int(ch-'0')
					}
					unix.Tgkill(pid, tid, unix.SIGURG)
				}
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
