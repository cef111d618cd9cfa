//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Node templates. Starting a node costs a fork of weft, the native
// launcher's exec and its filter, weft fetching the listener, the
// target's exec, and at the exec stop the auxiliary vector and the TSC
// patches: most of the start-up of a short run, and the same work for
// every run of a campaign. So weft keeps the process of each kind of node
// it started (same binary, arguments, environment and launch settings)
// stopped at its execve's exit, before its first instruction: a
// template. (Not at the exec stop itself, where the kernel has yet to
// store execve's result in the registers.) A node of that kind is then a
// fork of the template, injected as a checkpoint's is
// (checkpoint_proc_linux.go), given the execve's registers, its own
// AT_RANDOM bytes and its own working directory (an injected chdir)
// before it runs. Nothing of the template's has run, so the copy's
// memory is byte for byte what a fresh exec would give (ASLR is off);
// its descriptors (fds 0–2 on /dev/null), credentials, limits,
// personality, signal state and seccomp filter are the launcher's, as a
// fresh exec's are. What differs is host-side only: its pid and process
// group (the template's, which nodes never see: process ids are
// virtual, and every node leads its own virtual group), and its parent
// death signal (a forked child has none; PTRACE_O_EXITKILL still ends it
// with weft).
//
// A fork shares the template's seccomp filter and so its listener: the
// notifications of every copy arrive there. A template therefore serves
// one node at a time; a node holds it (a reference) until the node's
// processes are gone, and so do a checkpoint's frozen copies and the
// worlds restored from them (copyState takes references). A world that
// needs a kind of node whose templates are all held gets a new one.
// Idle templates beyond maxIdleTemplates are ended, the least recently
// used first.
//
// Not used with NativeTSC (an untraced node cannot be forked this way),
// with Config.NoTemplates (WEFT_TEMPLATES=0 in weft's CLI)
// (for scripts/bench.sh).

// nodeTemplate is one template process, stopped at the exit of its
// execve or, once forked, of the injected clone.
type nodeTemplate struct {
	key      string
	pid      int
	listener int
	vdso     uintptr
	patched  bool
	cpuWhy   string          // launchResult.cpuWhy
	tscWhy   string          // launchResult.tscWhy
	regs     unix.PtraceRegs // at the execve's exit
	sysIP    uint64          // a syscall instruction (the vDSO's), for the injected calls
	dir      string          // its working directory; a copy made for another moves there
	random   uintptr         // where AT_RANDOM's 16 bytes are
	refs     int             // holders: nodes, frozen copies (under templates.mu)
	used     uint64          // when it was last taken (a count)
}

// maxIdleTemplates bounds the idle templates kept: each is a small
// process (its program's and loader's first pages).
const maxIdleTemplates = 64

var templates struct {
	mu    sync.Mutex
	idle  map[string][]*nodeTemplate
	none  map[string]bool // kinds of node that cannot have one
	clock uint64
}

// templateKey names the kind of node r starts, "" if r cannot use a
// template.
func templateKey(r launchRequest) string {
	if r.nativeTSC || !filepath.IsAbs(r.path) {
		return "" // a relative path is the directory's
	}
	exe, err := r.native()
	if err != nil {
		if exe, err = os.Executable(); err != nil {
			return ""
		}
	}
	bin, _, err := versionKey(r.path)
	if err != nil {
		return ""
	}
	lk, _, err := versionKey(exe)
	if err != nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q %q %q %v %v %v", bin, lk, r.shownPath(), r.args, r.env, r.notifyAll, r.noVDSO, r.patchTSC)
	if r.patchEvery {
		b.WriteString(" every")
	}
	return b.String()
}

// launchFromTemplate starts the node r asks for as a fork of an idle
// template of its kind, making the template first if there is none. On
// the launcher's thread. ok false: r cannot use a template (launch it
// afresh).
func launchFromTemplate(r launchRequest, key string) (res launchResult, ok bool) {
	t, err := takeTemplate(r, key)
	if err != nil {
		return launchResult{err: err}, true
	}
	if t == nil {
		return launchResult{}, false
	}
	dir, err := absDir(r.dir)
	if err != nil {
		return launchResult{err: err}, true
	}
	res, err = t.fork(r.random, dir)
	if err != nil {
		// The template is in an unknown state: end it rather than reuse it.
		t.end()
		return launchResult{err: err}, true
	}
	res.tmpl = t
	return res, true
}

// takeTemplate takes an idle template for key, or makes one (nil if this
// kind of node cannot have one). On the launcher's thread.
func takeTemplate(r launchRequest, key string) (*nodeTemplate, error) {
	templates.mu.Lock()
	templates.clock++
	if templates.none[key] {
		templates.mu.Unlock()
		return nil, nil
	}
	if l := templates.idle[key]; len(l) > 0 {
		t := l[len(l)-1]
		templates.idle[key] = l[:len(l)-1]
		t.refs, t.used = 1, templates.clock
		templates.mu.Unlock()
		return t, nil
	}
	now := templates.clock
	templates.mu.Unlock()
	t, err := makeTemplate(r, key)
	templates.mu.Lock()
	defer templates.mu.Unlock()
	switch {
	case t != nil:
		t.refs, t.used = 1, now
	case err == nil:
		if templates.none == nil {
			templates.none = map[string]bool{}
		}
		templates.none[key] = true
	}
	return t, err
}

// makeTemplate launches r's node up to its exec stop and on to the exit
// of the execve call, and keeps it there: at the exec stop itself the
// kernel has yet to store execve's result, which would overwrite the
// injected clone's number (fork). nil, nil: the image has no syscall
// instruction weft can use, or no AT_RANDOM.
func makeTemplate(r launchRequest, key string) (*nodeTemplate, error) {
	res, random := launchImage(r)
	if res.err != nil {
		return nil, res.err
	}
	t := &nodeTemplate{key: key, pid: res.pid, listener: res.listener, vdso: res.vdso, patched: res.patched, cpuWhy: res.cpuWhy, tscWhy: res.tscWhy, random: random}
	unix.Close(res.pidfd)
	var err error
	if t.dir, err = absDir(r.dir); err != nil {
		t.end()
		return nil, err
	}
	if err := unix.PtraceSetOptions(t.pid, ptraceOptions); err != nil {
		t.end()
		return nil, fmt.Errorf("ptrace options: %v", err)
	}
	if err := unix.PtraceSyscall(t.pid, 0); err != nil {
		t.end()
		return nil, fmt.Errorf("ptrace syscall: %v", err)
	}
	if _, err := awaitSyscallStop(t.pid, syscallStop); err != nil {
		t.end()
		return nil, fmt.Errorf("the execve's exit: %v", err)
	}
	fault := t.cpuWhy != "" && faultsCPUID(r.nativeTSC) && !r.notifyAll
	if err := hideVvarUnlessNotifyAll(t.pid, false, fault, r.notifyAll); err != nil {
		t.end()
		return nil, err
	}
	if fault {
		t.cpuWhy = "" // its unpatched cpuid faults (faultCPUID)
	}
	if err := unix.PtraceGetRegs(t.pid, &t.regs); err != nil {
		t.end()
		return nil, err
	}
	sys, err := vdsoSyscall(t.pid)
	if err != nil || random == 0 {
		t.end()
		return nil, nil
	}
	t.sysIP = sys
	return t, nil
}

// fork starts a node as a copy of the template: forked, given the exec
// stop's registers and its own AT_RANDOM bytes, and let run. On the
// launcher's thread.
func (t *nodeTemplate) fork(random [16]byte, dir string) (res launchResult, err error) {
	child, err := injectFork(t.pid, t.listener, t.sysIP)
	if err != nil {
		return launchResult{}, fmt.Errorf("forking the template: %v", err)
	}
	res = launchResult{pid: child, pidfd: -1, listener: -1, vdso: t.vdso, patched: t.patched, cpuWhy: t.cpuWhy, tscWhy: t.tscWhy}
	defer func() {
		if err != nil {
			unix.Kill(child, unix.SIGKILL)
			wait4(child, 0)
			if res.pidfd >= 0 {
				unix.Close(res.pidfd)
			}
			if res.listener >= 0 {
				unix.Close(res.listener)
			}
		}
	}()
	if dir != t.dir {
		if err = injectChdir(child, t.sysIP, dir); err != nil {
			return res, fmt.Errorf("chdir %s: %v", dir, err)
		}
	}
	regs := t.regs
	regs.Orig_rax = ^uint64(0) // no syscall to restart: the copy starts at the image's first instruction
	if err = unix.PtraceSetRegs(child, &regs); err != nil {
		return res, err
	}
	if k, werr := writeMem(child, t.random, random[:]); k != len(random) {
		return res, fmt.Errorf("writing AT_RANDOM: %v", werr)
	}
	if res.pidfd, err = unix.PidfdOpen(child, 0); err != nil {
		return res, fmt.Errorf("pidfd_open: %v", err)
	}
	if res.listener, err = unix.Dup(t.listener); err != nil {
		return res, err
	}
	unix.CloseOnExec(res.listener)
	if err = unix.PtraceCont(child, 0); err != nil {
		return res, fmt.Errorf("ptrace cont: %v", err)
	}
	return res, nil
}

// absDir is where a process started in dir works ("" is weft's own).
func absDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}

// end kills the template process and forgets it. On the launcher's
// thread, or after it is done with the process.
func (t *nodeTemplate) end() {
	unix.Kill(t.pid, unix.SIGKILL)
	wait4(t.pid, 0)
	unix.Close(t.listener)
}

// holdTemplate takes one more reference to t (a copy of a node made from
// it: a checkpoint's frozen process, a restored node).
func holdTemplate(t *nodeTemplate) {
	templates.mu.Lock()
	t.refs++
	templates.mu.Unlock()
}

// dropTemplate gives up one reference to t; at none, t is idle again, and
// the least recently used idle templates beyond maxIdleTemplates end.
func dropTemplate(t *nodeTemplate) {
	templates.mu.Lock()
	t.refs--
	if t.refs > 0 {
		templates.mu.Unlock()
		return
	}
	if templates.idle == nil {
		templates.idle = map[string][]*nodeTemplate{}
	}
	templates.idle[t.key] = append(templates.idle[t.key], t)
	var ended []*nodeTemplate
	for idleTemplates() > maxIdleTemplates {
		ended = append(ended, popOldestIdle())
	}
	templates.mu.Unlock()
	for _, e := range ended {
		onLauncher(getLauncher(), func() error { e.end(); return nil })
	}
}

func idleTemplates() int {
	k := 0
	for _, l := range templates.idle {
		k += len(l)
	}
	return k
}

// popOldestIdle removes and returns the least recently used idle template.
func popOldestIdle() *nodeTemplate {
	var key string
	var at int
	var best *nodeTemplate
	for k, l := range templates.idle {
		for i, t := range l {
			if best == nil || t.used < best.used {
				key, at, best = k, i, t
			}
		}
	}
	l := templates.idle[key]
	templates.idle[key] = append(l[:at:at], l[at+1:]...)
	if len(templates.idle[key]) == 0 {
		delete(templates.idle, key)
	}
	return best
}

// CloseTemplates ends every idle template process (those nodes hold stay
// until the nodes end). weft's templates end with it anyway (they are
// traced with PTRACE_O_EXITKILL and launched with a parent death signal);
// this is for a process that starts nodes and wants none of its children
// left, such as a test.
func CloseTemplates() {
	templates.mu.Lock()
	var all []*nodeTemplate
	for _, l := range templates.idle {
		all = append(all, l...)
	}
	templates.idle = nil
	templates.mu.Unlock()
	if len(all) == 0 {
		return
	}
	onLauncher(getLauncher(), func() error {
		for _, t := range all {
			t.end()
		}
		return nil
	})
}

// IdleTemplates is how many template processes are idle (for tests).
func IdleTemplates() int {
	templates.mu.Lock()
	defer templates.mu.Unlock()
	return idleTemplates()
}
