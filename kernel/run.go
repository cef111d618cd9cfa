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
//
// The process Run starts in binds the sockets and runs the cells in an
// executor, a child process it starts again if a cell kills it (see
// executor.go); opts apply to the executor.
func Run(ctx context.Context, connectionFile string, opts Options, log io.Writer) error {
	ci, err := wire.ReadConnectionFile(connectionFile)
	if err != nil {
		return err
	}
	if os.Getenv(executorEnv) != "1" {
		return supervise(ctx, ci, log)
	}
	os.Unsetenv(executorEnv)
	return runExecutor(ctx, ci, opts, log)
}

// watchProcess does what both of the kernel's processes do first: it
// makes this process a subreaper, takes its signals (SIGINT, SIGTERM,
// SIGHUP) and watches its parent, until stop.
func watchProcess(ctx context.Context, log io.Writer) (_ context.Context, sigs <-chan os.Signal, orphaned <-chan string, stop func()) {
	if err := becomeReaper(); err != nil {
		fmt.Fprintf(log, "weft kernel: cannot become a subreaper (orphans of cells may outlive the kernel): %v\n", err)
	}
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(ctx)
	return ctx, ch, watchParent(ctx, parentPoll, log), func() {
		cancel()
		signal.Stop(ch)
	}
}

// runExecutor serves as the executor of a kernel whose parent process
// owns the sockets (supervise.go): messages come and go on file
// descriptors 3 and 4.
func runExecutor(ctx context.Context, ci wire.ConnectionInfo, opts Options, log io.Writer) error {
	// The pipes are the executor's own: the processes it starts must not
	// hold them, or the parent would not see its end.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	// Signals are taken before anything slow, so that an early SIGTERM
	// still ends the kernel cleanly.
	ctx, sigs, orphaned, stop := watchProcess(ctx, log)
	defer stop()
	eng, err := engine.New(opts.Engine)
	if err != nil {
		return err
	}
	signer, err := ci.Signer()
	if err != nil {
		return err
	}
	pipe := executorPipes()
	t := &pipeTransport{p: pipe, signer: signer}
	k := New(t, eng, log)
	t.session = func() sessionRecord { return sessionRecord{Names: eng.SessionNames(), Count: k.currentCount()} }
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
	go func() { errc <- serveExecutor(pipe, signer, k.Handle, log) }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-k.Done():
			return nil
		case err := <-errc:
			fmt.Fprintf(log, "weft kernel executor: %v: shutting down\n", err)
			return nil
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
