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
	once sync.Once
	path string
	err  error
	prog [2][]byte // the filter, without and with TSC patching's traced calls
	perr [2]error
	pon  [2]sync.Once
}

// nativeLauncher builds (once per source version, cached) and returns the
// native launcher.
func nativeLauncher() (string, error) {
	native.once.Do(func() {
		native.path, native.err = ccCached("the native launcher", "weft-launch-", "", [][]byte{launcherSource}, []string{".c"},
			func(srcs []string, out string) []string { return []string{"-O2", "-static", "-o", out, srcs[0]} })
	})
	return native.path, native.err
}

// native is the native launcher for r, or an error with Config.GoLauncher
// (the Go launcher then starts it).
func (r launchRequest) native() (string, error) {
	if r.goLauncher {
		return "", fmt.Errorf("native launcher disabled")
	}
	return nativeLauncher()
}

// ccCached builds, with cc ($CC), a file of weft's own once per content of
// its sources and caches it: CacheDir()/bin/PREFIX + a hash of the sources
// + ext. Each source is written beside it with its extension; args gets
// their paths and the path to build to, which is renamed into place.
func ccCached(what, prefix, ext string, sources [][]byte, exts []string, args func(srcs []string, out string) []string) (string, error) {
	h := sha256.New()
	for _, src := range sources {
		h.Write(src)
	}
	dir := filepath.Join(CacheDir(), "bin")
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
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if msg, err := exec.Command(cc, args(srcs, tmp)...).CombinedOutput(); err != nil {
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
