package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/report"
)

func init() {
	o := &serveOptions{}
	register(&command{
		name: "serve",
		usage: `serve DATASET… [--port N]

Serves the report of the datasets with its run browser on 127.0.0.1 (never
another interface): every run with its verdict and fault schedule,
filterable, each opening its sequence diagram and events, read from its
recording when opened (campaign --record all records every run). Ctrl-C
stops.`,
		summary: "browse every run of a dataset in a local web page (127.0.0.1 only)",
		flags:   o.declare,
		run: func(args []string) (int, error) {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return o.run(ctx, args, os.Stdout, nil)
		},
	})
}

type serveOptions struct {
	port  int
	level float64
}

func (o *serveOptions) declare(fs *flag.FlagSet) {
	fs.IntVar(&o.port, "port", 8019, "TCP `PORT` on 127.0.0.1 (0: any free port)")
	fs.Float64Var(&o.level, "level", report.DefaultLevel, "confidence level of intervals")
}

// run serves until ctx ends. ready, if set, receives the address once the
// server listens.
func (o *serveOptions) run(ctx context.Context, args []string, w io.Writer, ready chan<- string) (int, error) {
	if len(args) == 0 {
		return exitUsage, errors.New("give one or more DATASET directories")
	}
	if o.port < 0 || o.port > 65535 {
		return exitUsage, fmt.Errorf("--port %d: want 0..65535", o.port)
	}
	lib, err := charts.LoadLibrary()
	if err != nil {
		return exitUsage, err
	}
	h, err := report.Handler(args, report.Options{Level: o.level}, lib)
	if err != nil {
		return exitUsage, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.port)))
	if err != nil {
		return exitUsage, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	addr := ln.Addr().String()
	fmt.Fprintf(w, "serving http://%s/ (Ctrl-C stops)\n", addr)
	if ready != nil {
		ready <- addr
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return exitUsage, err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return exitHolds, srv.Shutdown(sctx)
	}
}
