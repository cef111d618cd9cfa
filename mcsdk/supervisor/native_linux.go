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
	prog []byte
	perr error
	pon  sync.Once
}

// nativeLauncher builds (once per source version, cached) and returns the
// native launcher. WEFT_GO_LAUNCHER=1 forces the Go launcher.
func nativeLauncher() (string, error) {
	native.once.Do(func() {
		if os.Getenv("WEFT_GO_LAUNCHER") == "1" {
			native.err = fmt.Errorf("native launcher disabled")
			return
		}
		sum := sha256.Sum256(launcherSource)
		dir := filepath.Join(CacheDir(), "bin")
		out := filepath.Join(dir, "weft-launch-"+hex.EncodeToString(sum[:8]))
		if _, err := os.Stat(out); err == nil {
			native.path = out
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			native.err = err
			return
		}
		src := fmt.Sprintf("%s.%d.c", out, os.Getpid())
		tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
		defer os.Remove(src)
		if err := os.WriteFile(src, launcherSource, 0o644); err != nil {
			native.err = err
			return
		}
		cc := os.Getenv("CC")
		if cc == "" {
			cc = "cc"
		}
		if msg, err := exec.Command(cc, "-O2", "-static", "-o", tmp, src).CombinedOutput(); err != nil {
			os.Remove(tmp)
			native.err = fmt.Errorf("building the native launcher: %v: %s", err, msg)
			return
		}
		if err := os.Rename(tmp, out); err != nil {
			native.err = err
			return
		}
		native.path = out
	})
	return native.path, native.err
}

// filterBytes is the seccomp program as raw struct sock_filter bytes,
// built once.
func filterBytes() ([]byte, error) {
	native.pon.Do(func() {
		prog, err := buildFilter()
		if err != nil {
			native.perr = err
			return
		}
		n := len(prog) * int(unsafe.Sizeof(unix.SockFilter{}))
		native.prog = append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), n)...)
	})
	return native.prog, native.perr
}
