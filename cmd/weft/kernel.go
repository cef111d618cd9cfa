package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/weft-mc/weft/kernel"
)

func init() {
	o := &kernelOptions{}
	register(&command{
		name: "kernel",
		usage: `kernel install [--user | --prefix P] [--name N]
       weft kernel run -f CONNECTION_FILE

A Jupyter kernel for Go (display name "Go (weft)"): cells keep their state,
the standard library and weft's packages are bound in (import them as usual),
and "display" (gophernotes-compatible) is imported for rich output.

  install   writes the kernelspec (kernel.json with interrupt_mode "message",
            logo-32x32.png, logo-64x64.png) to the user's Jupyter data dir
            (--user, the default) or to P/share/jupyter/kernels/N (--prefix).
            Its argv runs this binary as: weft kernel run -f {connection_file}
  run       serves a kernel; Jupyter starts it with the connection file it
            wrote (weft kernel CONNECTION_FILE works too).

Settings (environment, read when the kernel starts; a bad value stops it):
  WEFT_CELL_MEMORY  heap size at which a running cell is stopped, e.g. 2G
                    (default 3/4 of the system's memory)
  WEFT_GOPATH       where %go get links module sources
                    (default weft/gopath in the user's cache directory)`,
		summary: "Jupyter kernel for Go with weft's packages: install the kernelspec; run (Jupyter starts it)",
		flags:   o.declare,
		run:     o.run,
	})
}

// kernelOptions are the flags of weft kernel.
type kernelOptions struct {
	connection string
	user       bool
	prefix     string
	name       string
}

func (o *kernelOptions) declare(fs *flag.FlagSet) {
	fs.StringVar(&o.connection, "f", "", "`CONNECTION_FILE` written by Jupyter (run)")
	fs.BoolVar(&o.user, "user", false, "install into the user's Jupyter data directory (the default)")
	fs.StringVar(&o.prefix, "prefix", "", "install under `P`/share/jupyter/kernels")
	fs.StringVar(&o.name, "name", "weft", "kernelspec directory `N`ame")
}

func (o *kernelOptions) run(args []string) (int, error) {
	if len(args) == 0 {
		return exitUsage, errors.New("missing subcommand: install or run (see weft kernel --help)")
	}
	switch sub := args[0]; {
	case sub == "install" && len(args) == 1:
		return o.install()
	case sub == "run" && len(args) <= 2:
		if len(args) == 2 && o.connection == "" {
			o.connection = args[1]
		}
		return o.serve()
	case len(args) == 1 && strings.HasSuffix(sub, ".json"):
		o.connection = sub
		return o.serve()
	}
	return exitUsage, fmt.Errorf("unknown arguments %q (see weft kernel --help)", args)
}

func (o *kernelOptions) install() (int, error) {
	if o.user && o.prefix != "" {
		return exitUsage, errors.New("--user and --prefix exclude each other")
	}
	exe, err := os.Executable()
	if err != nil {
		return exitUsage, err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return exitUsage, err
	}
	dir, err := kernel.SpecDir(o.prefix, o.name)
	if err != nil {
		return exitUsage, err
	}
	if err := kernel.Install(dir, kernel.NewSpec(exe)); err != nil {
		return exitUsage, err
	}
	pkgs := kernel.BoundPackages()
	sort.Strings(pkgs)
	fmt.Printf("installed kernelspec %q in %s\nweft packages bound: %s\n", o.name, dir, strings.Join(pkgs, ", "))
	return exitHolds, nil
}

func (o *kernelOptions) serve() (int, error) {
	if o.connection == "" {
		return exitUsage, errors.New("run needs -f CONNECTION_FILE")
	}
	opts, err := kernel.OptionsFromEnv(os.Getenv)
	if err != nil {
		return exitUsage, fmt.Errorf("kernel run: %w", err)
	}
	if err := kernel.Run(context.Background(), o.connection, opts, os.Stderr); err != nil {
		return exitUsage, err
	}
	return exitHolds, nil
}
