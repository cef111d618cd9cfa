//go:build !linux

package kernel

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// becomeReaper does nothing outside Linux.
func becomeReaper() error { return nil }

// killDescendants finds no process tree outside Linux; weft runs no node
// processes there.
func killDescendants(nodesOnly bool) int { return 0 }

// watchParent polls the kernel's parent pid: it changes when the parent
// exits.
func watchParent(ctx context.Context, pollEvery time.Duration, _ io.Writer) <-chan string {
	out := make(chan string, 1)
	ppid := os.Getppid()
	go func() {
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			if p := os.Getppid(); p != ppid {
				out <- fmt.Sprintf("parent process %d exited", ppid)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return out
}
