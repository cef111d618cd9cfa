//go:build linux && amd64

package supervisor

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

//go:embed native/launch.c
var launcherSource []byte

var native struct {
	launchers byToolchain[string] // the native launcher's path
	prog      [2][]byte           // the filter, without and with TSC patching's traced calls
	perr      [2]error
	pon       [2]sync.Once
}

// byToolchain holds what is built once per process and Toolchain.
type byToolchain[T any] struct {
	mu   sync.Mutex
	done map[Toolchain]func() (T, error)
}

// get returns what build makes for tc, building it once.
func (b *byToolchain[T]) get(tc Toolchain, build func(Toolchain) (T, error)) (T, error) {
	b.mu.Lock()
	f, ok := b.done[tc]
	if !ok {
		if b.done == nil {
			b.done = map[Toolchain]func() (T, error){}
		}
		f = sync.OnceValues(func() (T, error) { return build(tc) })
		b.done[tc] = f
	}
	b.mu.Unlock()
	return f()
}

// nativeLauncher builds with tc (once per source version, cached) and
// returns the native launcher.
func nativeLauncher(tc Toolchain) (string, error) {
	return native.launchers.get(tc, func(tc Toolchain) (string, error) {
		return ccCached(tc, "the native launcher", "weft-launch-", "", [][]byte{launcherSource}, []string{".c"},
			func(srcs []string, out string) []string { return []string{"-O2", "-static", "-o", out, srcs[0]} })
	})
}

// native is the native launcher for r, or an error with Config.GoLauncher
// (the Go launcher then starts it).
func (r launchRequest) native() (string, error) {
	if r.goLauncher {
		return "", fmt.Errorf("native launcher disabled")
	}
	return nativeLauncher(r.toolchain)
}

// ccCached builds, with tc's compiler, a file of weft's own once per
// content of its sources and caches it: tc.Cache()/bin/PREFIX + a hash of
// the sources + ext. Each source is written beside it with its extension;
// args gets their paths and the path to build to, which is renamed into
// place.
func ccCached(tc Toolchain, what, prefix, ext string, sources [][]byte, exts []string, args func(srcs []string, out string) []string) (string, error) {
	h := sha256.New()
	for _, src := range sources {
		h.Write(src)
	}
	dir := filepath.Join(tc.Cache(), "bin")
	out := filepath.Join(dir, prefix+hex.EncodeToString(h.Sum(nil)[:8])+ext)
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
	var srcs []string
	for i, src := range sources {
		path := fmt.Sprintf("%s.%d%s", out, os.Getpid(), exts[i])
		defer os.Remove(path)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return "", err
		}
		srcs = append(srcs, path)
	}
	if msg, err := exec.Command(tc.Compiler(), args(srcs, tmp)...).CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("building %s: %v: %s", what, err, msg)
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", err
	}
	return out, nil
}

// filterBytes is the seccomp program as raw struct sock_filter bytes,
// built once.
// With patchTSC it is the variant that traces the calls that can make
// code executable (tracedMappings).
func filterBytes(patchTSC bool) ([]byte, error) {
	k := 0
	if patchTSC {
		k = 1
	}
	native.pon[k].Do(func() {
		prog, err := buildFilterAllowing(passedNumbers(), patchTSC)
		if err != nil {
			native.perr[k] = err
			return
		}
		n := len(prog) * int(unsafe.Sizeof(unix.SockFilter{}))
		native.prog[k] = append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), n)...)
	})
	return native.prog[k], native.perr[k]
}
