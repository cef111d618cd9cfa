package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/traefik/yaegi/interp"
)

// A cell runs in the kernel's process, so a cell that would kill a Go
// program must be stopped before it kills the kernel: the engine stops a
// cell whose goroutine stacks or heap pass a limit (Go's own reaction, a
// fatal error at 1 GB of stack or when the OS refuses memory, cannot be
// recovered), and turns os.Exit into an error of the cell. Nothing of the
// session is lost: the cell's own allocations become garbage, earlier
// variables stay.

// stackLimit stops a cell whose goroutine stacks pass it: Go's fatal
// limit is 1 GB per goroutine, and a stack grows by doubling, so a
// recursion seen at 256 MB still has 768 MB of frames to fill before Go's limit.
const stackLimit = 256 << 20

// pollEvery is how often the guard reads the runtime's memory metrics.
const pollEvery = 10 * time.Millisecond

// limitError is why the guard stopped a cell.
type limitError struct {
	name, what   string
	used, limit  uint64
	limitSetting string
}

func (l *limitError) Error() string {
	msg := fmt.Sprintf("%s reached %s (limit %s%s): the cell was stopped; the session's variables are kept",
		l.what, mb(l.used), mb(l.limit), l.limitSetting)
	if l.name == "MemoryError" {
		msg += " (if one of them holds the memory, later cells stop too until it is set to nil)"
	}
	return msg
}

func mb(n uint64) string { return fmt.Sprintf("%d MB", n>>20) }

// exitRequest is the panic value of os.Exit in a cell.
type exitRequest struct{ code int }

// heapLimit is the heap size at which a cell is stopped, and the text
// its messages give after the limit: set (Options.CellMemory), else three
// quarters of the memory the system has. setting names where the user
// sets it.
func heapLimit(set uint64, setting string) (uint64, string) {
	switch {
	case set > 0 && setting != "":
		return set, ", " + setting
	case set > 0:
		return set, ""
	}
	how := ""
	if setting != "" {
		how = "; set " + setting
	}
	if n := memTotal(); n > 0 {
		return n / 4 * 3, ", 3/4 of MemTotal" + how
	}
	return 4 << 30, how
}

// memTotal is /proc/meminfo's MemTotal in bytes, 0 if unknown.
func memTotal() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// guard watches the runtime's heap and stack metrics while a cell runs
// and cancels the cell, with a *limitError as cause, when one passes its
// limit. stop ends the watch.
func guard(cancel context.CancelCauseFunc, heap uint64, heapSetting string) (stop func()) {
	done := make(chan struct{})
	go func() {
		samples := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(samples)
		base := samples[0].Value.Uint64() // stacks of other goroutines and earlier cells
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(samples)
			stacks, objects := samples[0].Value.Uint64(), samples[1].Value.Uint64()
			switch {
			case stacks > base+stackLimit:
				cancel(&limitError{name: "StackOverflow", what: "goroutine stacks (deep or endless recursion?)", used: stacks - base, limit: stackLimit})
				return
			case objects > heap && !liveAbove(samples, heap):
				// Garbage, of this cell or of a stopped one: not a reason.
			case objects > heap:
				cancel(&limitError{name: "MemoryError", what: "the heap", used: objects, limit: heap, limitSetting: heapSetting})
				return
			}
		}
	}()
	return func() { close(done) }
}

// liveAbove collects garbage and reports whether the heap's objects
// still pass limit. The metric counts objects the last cycle has not
// swept, and after a cell stopped at the limit its garbage stays until
// the next cycle, which Go starts only when the heap doubles: without a
// collection every later cell that runs past one poll would be stopped.
func liveAbove(samples []metrics.Sample, limit uint64) bool {
	runtime.GC()
	metrics.Read(samples)
	return samples[1].Value.Uint64() > limit
}

// exitExports rebinds os.Exit for cells: it panics with an exitRequest,
// which the engine reports as the cell's error.
func exitExports() interp.Exports {
	return interp.Exports{"os/os": map[string]reflect.Value{
		"Exit": reflect.ValueOf(func(code int) { panic(exitRequest{code}) }),
	}}
}
