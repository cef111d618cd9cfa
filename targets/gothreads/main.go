// Command gothreads is an ordinary Go program for weft: goroutines on
// several OS threads (GOMAXPROCS is the runtime's default, from the CPU
// count weft reports), a sync.Mutex, channels, time.Sleep, a Ticker and
// the garbage collector. Which worker takes the lock first, and how the
// ticks interleave with the workers, depends on the scheduling, which
// under weft is a function of the seed.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname
)

// workersDone counts finished workers, and balance is what they added;
// weft reads them by symbol (the model's state): the invariant is that the
// workers' sums never exceed what four workers can add.
//
//go:linkname workersDone workers_done
var workersDone atomic.Int64

//go:linkname balance workers_balance
var balance atomic.Int64

// ledger is the shared state the workers append to under the mutex.
type ledger struct {
	mu    sync.Mutex
	order []string
}

func (l *ledger) add(s string) {
	l.mu.Lock()
	l.order = append(l.order, s)
	l.mu.Unlock()
}

func main() {
	fmt.Printf("GOMAXPROCS %d, CPUs %d\n", runtime.GOMAXPROCS(0), runtime.NumCPU())
	var l ledger
	var wg sync.WaitGroup
	results := make(chan int, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			sum := 0
			for i := 0; i < 3; i++ {
				buf := make([]byte, 64<<10) // garbage for the collector
				sum += len(buf) + w
				l.add(fmt.Sprintf("w%d.%d", w, i))
				time.Sleep(time.Duration(1+w) * time.Millisecond)
			}
			balance.Add(int64(sum))
			workersDone.Add(1)
			results <- sum
		}(w)
	}
	ticker := time.NewTicker(2 * time.Millisecond)
	done := make(chan struct{})
	go func() {
		for k := 0; ; k++ {
			select {
			case <-ticker.C:
				l.add(fmt.Sprintf("tick%d", k))
			case <-done:
				return
			}
		}
	}()
	wg.Wait()
	close(done)
	ticker.Stop()
	close(results)
	total := 0
	for s := range results {
		total += s
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	l.mu.Lock()
	fmt.Printf("order %s\n", strings.Join(l.order, " "))
	l.mu.Unlock()
	fmt.Printf("total %d, GC cycles ≥ 1: %v\n", total, ms.NumGC >= 1)
	if total != 4*3*(64<<10)+3*(0+1+2+3) {
		os.Exit(1)
	}
}
