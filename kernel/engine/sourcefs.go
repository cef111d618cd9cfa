package engine

import (
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// interpretedGo is the last Go release whose standard library yaegi
// v0.16.1 binds: files that need a later one (go1.23's iter) are left out.
const interpretedGo = 22

// sourceFS is the filesystem yaegi reads package sources from. yaegi
// honours only "// +build" lines; sourceFS applies go/build's rules to
// every file, "//go:build" lines included, as the go command would:
// release tags up to interpretedGo, cgo off (pure-Go fallbacks), the
// purego tag (no assembly), _test and GOOS/GOARCH file names.
type sourceFS struct{ ctx build.Context }

func newSourceFS() sourceFS {
	ctx := build.Default
	ctx.CgoEnabled = false
	ctx.BuildTags = []string{"purego"}
	ctx.ReleaseTags = nil
	for i := 1; i <= interpretedGo; i++ {
		ctx.ReleaseTags = append(ctx.ReleaseTags, fmt.Sprintf("go1.%d", i))
	}
	ctx.GOOS, ctx.GOARCH = runtime.GOOS, runtime.GOARCH
	return sourceFS{ctx: ctx}
}

// Open opens name, an absolute path as yaegi gives it.
func (s sourceFS) Open(name string) (fs.File, error) { return os.Open(name) }

// ReadDir lists dir without the Go files the build would not use.
func (s sourceFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, d := range entries {
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".go") {
			if ok, err := s.ctx.MatchFile(dir, d.Name()); err != nil || !ok {
				continue
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// Stat is os.Stat: yaegi looks packages up by absolute path.
func (s sourceFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(filepath.Clean(name)) }
