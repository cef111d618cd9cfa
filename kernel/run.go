package kernel

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/wire"
)

// parentPoll is how often the kernel checks that its parent lives, as
// ipykernel's parent poller does (a parent-death signal wakes it sooner).
const parentPoll = time.Second

// Run serves the kernel described by the connection file until a
// shutdown_request, SIGTERM, SIGHUP, the death of the process that started
// it (its parent, or the Jupyter client named by JPY_PARENT_PID), or the
// end of ctx. SIGINT interrupts the running cell (interrupt_mode
// "signal"); interrupt_request does the same over the control channel.
// Before it returns, the running cell is stopped and every process the
// kernel's cells started (node processes of runs, `!` commands, compilers)
// is killed. Diagnostics go to log.
func Run(ctx context.Context, connectionFile string, opts Options, log io.Writer) error {
	ci, err := wire.ReadConnectionFile(connectionFile)
	if err != nil {
		return err
	}
	if err := becomeReaper(); err != nil {
		fmt.Fprintf(log, "weft kernel: cannot become a subreaper (orphans of cells may outlive the kernel): %v\n", err)
	}
	// Signals are taken before anything slow, so that an early SIGTERM
	// still ends the kernel cleanly.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	orphaned := watchParent(ctx, parentPoll, log)
	eng, err := engine.New(opts.Engine)
	if err != nil {
		return err
	}
	socks, err := wire.Listen(ctx, ci, log)
	if err != nil {
		return err
	}
	defer socks.Close()
	k := New(socks, eng, log)
	k.ownsProcess = true
	if opts.CaptureStdout {
		restore, err := k.captureStdout()
		if err != nil {
			return fmt.Errorf("kernel: capture stdout: %w", err)
		}
		defer restore()
	}
	// Runs before restore: once the processes holding the captured
	// standard output are dead, restoring it does not wait for them.
	defer k.stopAll(interruptGrace)
	k.Starting()
	errc := make(chan error, 1)
	go func() { errc <- socks.Serve(ctx, k.Handle) }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-k.Done():
			return nil
		case err := <-errc:
			return err
		case why := <-orphaned:
			fmt.Fprintf(log, "weft kernel: %s: shutting down\n", why)
			return nil
		case s := <-sigs:
			if s != os.Interrupt {
				fmt.Fprintf(log, "weft kernel: %v: shutting down\n", s)
				return nil
			}
			k.Interrupt()
		}
	}
}
