package kernel

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/wire"
)

// Run serves the kernel described by the connection file until a
// shutdown_request, SIGTERM or the end of ctx. SIGINT interrupts the
// running cell (interrupt_mode "signal"); interrupt_request does the same
// over the control channel. Diagnostics go to log.
func Run(ctx context.Context, connectionFile string, opts Options, log io.Writer) error {
	ci, err := wire.ReadConnectionFile(connectionFile)
	if err != nil {
		return err
	}
	eng, err := engine.New(opts.Engine)
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	socks, err := wire.Listen(ctx, ci, log)
	if err != nil {
		return err
	}
	defer socks.Close()
	k := New(socks, eng, log)
	if opts.CaptureStdout {
		restore, err := k.captureStdout()
		if err != nil {
			return fmt.Errorf("kernel: capture stdout: %w", err)
		}
		defer restore()
	}
	k.Starting()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
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
		case s := <-sigs:
			if s != os.Interrupt {
				fmt.Fprintf(log, "weft kernel: %v: shutting down\n", s)
				return nil
			}
			k.Interrupt()
		}
	}
}
