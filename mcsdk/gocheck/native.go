package gocheck

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed" // the helper's sources
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// Compiled checks. Interpreted checks cost hundreds of microseconds to
// milliseconds a call (yaegi); a campaign calls them at every state that
// changes what they read, so on Chord they were a sixth of weft's CPU. When
// the check files lie inside a Go module (which then provides mcsdk/model)
// and a Go toolchain is on PATH, weft compiles them instead into a helper
// program, with the files' own package unchanged, and asks it over a pipe:
// tens of microseconds a call. The helper is built with go build, its
// packages added through an overlay (nothing is written into the module),
// and kept in weft's cache, where go build relinks it only when a source
// changed. Its main package is helper.go.txt and wire.go.

//go:embed helper.go.txt
var helperMain string

//go:embed wire.go
var wireSource string

// errNoCompiler is the cause when compiling is not possible here.
var errNoCompiler = errors.New("no Go toolchain on PATH")

// loadCompiled builds (if stale, in cacheDir; "": supervisor.CacheDir())
// and starts the helper for files.
func loadCompiled(files []string, cacheDir string) (*Checks, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, errNoCompiler
	}
	abs := make([]string, len(files))
	seen := map[string]bool{}
	for i, f := range files {
		if abs[i], err = filepath.Abs(f); err != nil {
			return nil, err
		}
		base := filepath.Base(f)
		if seen[base] {
			return nil, fmt.Errorf("two check files named %s", base)
		}
		seen[base] = true
	}
	root, modPath, err := findModule(filepath.Dir(abs[0]))
	if err != nil {
		return nil, err
	}
	hasPre, err := exportsPreconditions(abs)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(root + "\x00" + strings.Join(abs, "\x00")))
	key := hex.EncodeToString(sum[:8])
	pkgDir := "weftchecks_" + key
	cache := filepath.Join(supervisor.Toolchain{CacheDir: cacheDir}.Cache(), "checks", key)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	pre := ""
	if hasPre {
		pre = "pre = checks.Preconditions()"
	}
	main := strings.NewReplacer("{{CHECKS}}", modPath+"/"+pkgDir+"/checks", "{{PRECONDITIONS}}", pre).Replace(helperMain)
	wire := strings.Replace(wireSource, "package gocheck", "package main", 1)
	overlay := map[string]string{
		filepath.Join(root, pkgDir, "main.go"): filepath.Join(cache, "main.go"),
		filepath.Join(root, pkgDir, "wire.go"): filepath.Join(cache, "wire.go"),
	}
	for _, f := range abs {
		overlay[filepath.Join(root, pkgDir, "checks", filepath.Base(f))] = f
	}
	ov, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(cache, "checks")
	err = withLock(filepath.Join(cache, "lock"), func() error {
		for name, data := range map[string]string{"main.go": main, "wire.go": wire, "overlay.json": string(ov)} {
			if err := writeIfChanged(filepath.Join(cache, name), data); err != nil {
				return err
			}
		}
		cmd := exec.Command(gobin, "build", "-overlay", filepath.Join(cache, "overlay.json"), "-o", bin, "./"+pkgDir)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, bytes.TrimSpace(out))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := &native{bin: bin, idle: make(chan *helper, 64)}
	h, hello, err := n.start()
	if err != nil {
		return nil, err
	}
	r := &wireReader{b: hello}
	switch r.byte() {
	case wireHolds:
	case wireError:
		h.close()
		return nil, &checkError{fmt.Sprintf("checks %s: Registry(): %s", files[0], r.string())}
	default:
		h.close()
		return nil, errWire
	}
	out := &Checks{Registry: model.Registry{}, Preconditions: map[string]Precondition{}, Compiled: true}
	for range r.count(4) {
		name := r.string()
		out.Registry[name] = func(s model.State) (bool, string) { return n.ask(wireState(wireString([]byte{'I'}, name), s)) }
	}
	for range r.count(4) {
		name := r.string()
		out.Preconditions[name] = func(s model.State, node int) (bool, string) {
			b := wireString([]byte{'P'}, name)
			b = binary.LittleEndian.AppendUint64(b, uint64(node))
			return n.ask(wireState(b, s))
		}
	}
	if r.err != nil {
		h.close()
		return nil, r.err
	}
	n.idle <- h
	return out, nil
}

// checkError is an error of the checks themselves (not of compiling
// them): the interpreter would report the same, so it is final.
type checkError struct{ msg string }

func (e *checkError) Error() string { return e.msg }

// findModule returns the root and path of the Go module holding dir.
func findModule(dir string) (root, path string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
					return d, strings.Trim(f[1], `"`), nil
				}
			}
			return "", "", fmt.Errorf("%s: no module line", filepath.Join(d, "go.mod"))
		}
		if filepath.Dir(d) == d {
			return "", "", fmt.Errorf("%s is not inside a Go module", dir)
		}
	}
}

// exportsPreconditions reports whether the files declare func Preconditions.
func exportsPreconditions(files []string) (bool, error) {
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return false, err
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "Preconditions" {
				return true, nil
			}
		}
	}
	return false, nil
}

func writeIfChanged(path, data string) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == data {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// withLock runs f holding an exclusive lock on path (concurrent wefts
// building the same helper take turns).
func withLock(path string, f func() error) error {
	lf, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	defer unix.Flock(int(lf.Fd()), unix.LOCK_UN)
	return f()
}

// native runs a helper's calls, one helper per concurrent caller.
type native struct {
	bin  string
	idle chan *helper
}

// running lists the helpers started, for Shutdown.
var running struct {
	sync.Mutex
	all map[*helper]bool
}

// Shutdown ends every helper this process started and waits for them.
// A helper also exits by itself when weft dies (its request pipe closes);
// weft calls Shutdown before it exits so that none outlives it even
// briefly. Checks loaded earlier panic on their next call.
func Shutdown() {
	running.Lock()
	all := running.all
	running.all = nil
	running.Unlock()
	for h := range all {
		h.close()
	}
}

// helper is one running helper process.
type helper struct {
	cmd  *exec.Cmd
	req  *os.File
	rep  *bufio.Reader
	rf   *os.File
	once sync.Once
}

// start runs a helper and returns its handshake.
func (n *native) start() (*helper, []byte, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, nil, err
	}
	cmd := exec.Command(n.bin)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{reqR, repW}
	err = cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return nil, nil, err
	}
	h := &helper{cmd: cmd, req: reqW, rep: bufio.NewReader(repR), rf: repR}
	running.Lock()
	if running.all == nil {
		running.all = map[*helper]bool{}
	}
	running.all[h] = true
	running.Unlock()
	hello, err := wireRead(h.rep)
	if err != nil {
		h.close()
		return nil, nil, fmt.Errorf("checks helper: no handshake: %v", err)
	}
	return h, hello, nil
}

// close ends the helper: it exits when its request pipe closes.
func (h *helper) close() {
	h.once.Do(func() {
		running.Lock()
		delete(running.all, h)
		running.Unlock()
		h.req.Close()
		h.rf.Close()
		h.cmd.Wait()
	})
}

// ask sends one request and returns the check's answer. A check that
// panics, or a helper that dies, panics here as an interpreted check
// would (model.Invariant.Check turns it into an error).
func (n *native) ask(req []byte) (bool, string) {
	var h *helper
	select {
	case h = <-n.idle:
	default:
		var err error
		if h, _, err = n.start(); err != nil {
			panic(err.Error())
		}
	}
	var rep []byte
	err := wireWrite(h.req, req)
	if err == nil {
		rep, err = wireRead(h.rep)
	}
	if err != nil {
		h.close()
		panic(fmt.Sprintf("checks helper: %v", err))
	}
	select {
	case n.idle <- h:
	default:
		h.close()
	}
	r := &wireReader{b: rep}
	status, why := r.byte(), r.string()
	if r.err != nil {
		panic(r.err.Error())
	}
	switch status {
	case wireHolds:
		return true, why
	case wireFails:
		return false, why
	}
	panic(why)
}
