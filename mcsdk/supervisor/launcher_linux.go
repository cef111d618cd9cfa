//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// addrNoRandomize is personality(2)'s ADDR_NO_RANDOMIZE.
const addrNoRandomize = 0x0040000

// launchArg marks a re-execution of the current binary as a node launcher.
const launchArg = "__weft_launch__"

// launchArgNativeTSC is launchArg for a node whose TSC stays native
// (Config.NativeTSC); the native launcher tells the two apart by its argv[0].
const launchArgNativeTSC = "__weft_launch_native_tsc__"

// readyFD is the launcher's end of the pipe that tells the supervisor the
// filter is about to be loaded.
const readyFD = 3

// The launcher runs before main, from package initialisation, so every
// binary that links the supervisor (weft, its tests, the kernel) can launch
// nodes without cooperation from its main function.
func init() {
	if len(os.Args) >= 4 && (os.Args[1] == launchArg || os.Args[1] == launchArgNativeTSC) {
		runtime.LockOSThread() // init runs on the main thread: keep it there
		launcherMain(os.Args[2], os.Args[3:], os.Args[1] == launchArg)
	}
}

// launcherMain loads the seccomp filter on this thread only and execs the
// target. It never returns.
func launcherMain(path string, argv []string, trapTSC bool) {
	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "weft launcher: "+format+"\n", a...)
		os.Exit(127)
	}
	prog, err := buildFilter()
	if err != nil {
		fail("building seccomp filter: %v", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fail("no_new_privs: %v", err)
	}
	// ASLR off so that equal states have equal bytes (ARCHITECTURE.md).
	if _, _, e := unix.RawSyscall(unix.SYS_PERSONALITY, addrNoRandomize, 0, 0); e != 0 {
		fail("personality: %v", e)
	}
	if _, err := unix.FcntlInt(readyFD, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		fail("ready fd: %v", err)
	}
	// Nothing but fds 0, 1 and 2 survives the exec: not the Go runtime's,
	// nor any inherited from whatever started weft (issue 36, §3).
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		fail("close_range: %v", err)
	}
	env := os.Environ()
	argv0, err := syscall.BytePtrFromString(path)
	if err != nil {
		fail("%v", err)
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		fail("%v", err)
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		fail("%v", err)
	}
	if _, err := unix.Write(readyFD, []byte{1}); err != nil {
		fail("ready: %v", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// From here on this thread must not read the TSC (the next two calls
	// are raw syscalls): rdtsc faults, and weft emulates it (tsc_linux.go).
	if trapTSC {
		if _, _, e := unix.RawSyscall(unix.SYS_PRCTL, prSetTSC, prTSCSigsegv, 0); e != 0 {
			fail("PR_SET_TSC: %v", e)
		}
	}
	// Raw seccomp(2), not libseccomp's Load: Load forces TSYNC, which would
	// put the Go runtime's other threads under the filter (ARCHITECTURE.md).
	flags := uintptr(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		fail("seccomp: %v", e)
	}
	// From here on every intercepted syscall waits for the supervisor. The
	// execve is its first notification; the listener fd is O_CLOEXEC.
	_, _, e := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(argv0)), uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	unix.RawSyscall(unix.SYS_EXIT_GROUP, uintptr(e), 0, 0) // a notification: the supervisor reports why (execWatch)
}

// launchRequest asks the launch thread to start one node.
type launchRequest struct {
	path   string // the binary's host path, which the launcher executes
	argv0  string // its argv[0]: the binary's path in the node's view ("": path)
	args   []string
	env    []string
	dir    string
	random [16]byte // bytes for the target's AT_RANDOM
	// nativeTSC leaves rdtsc native and the node unseized after its exec
	// (until its first clone); otherwise rdtsc traps and weft emulates it.
	nativeTSC bool
	reply     chan launchResult

	// notifyAll loads the filter that notifies every call (Config.NotifyAll).
	notifyAll bool
	// goLauncher starts the node with the Go launcher (Config.GoLauncher).
	goLauncher bool
	// toolchain builds the native launcher and the vDSO (Config.Toolchain).
	toolchain Toolchain
	// noVDSO hides the vDSO instead of installing weft's (Config.NoVDSO).
	noVDSO bool
	// patchTSC leaves rdtsc native but patches the TSC reads of the
	// node's code into traps of weft's own (tscpatch_linux.go); it needs
	// the native launcher, and is dropped (the TSC trapped) without it.
	patchTSC bool
	// patchEvery, with patchTSC, patches every TSC read it can even where
	// some code cannot be patched, and reports that code in the result
	// (launchResult.tscWhy) rather than failing: the machine cannot trap
	// the TSC (World.cannotTrapTSC).
	patchEvery bool
	// template starts the node as a fork of a template of its kind when
	// it can be (template_linux.go).
	template bool
	// user is the user the node runs as (sys_user.go); nil: weft's.
	user *User
	// maxFDs is the node's descriptor bound (Config.MaxFDs), which the
	// native launcher sets as its RLIMIT_NOFILE, soft and hard, while it
	// is still root, before it becomes user (launchHead); 0 none.
	maxFDs int
}

type launchResult struct {
	pid      int
	pidfd    int
	listener int
	vdso     uintptr       // the clock readings in weft's vDSO; 0 none (vdso_linux.go)
	patched  bool          // its TSC reads are patched, not trapped (tscpatch_linux.go)
	cpuWhy   string        // why its CPU-identity instructions are not all patched (cpu_linux.go); "" they are
	tscWhy   string        // with patched, why some of its TSC reads are not (launchRequest.patchEvery); "" all are
	tmpl     *nodeTemplate // the template it is a fork of, held; nil none
	err      error
}

// launcher owns the one locked OS thread that forks every node: ptrace
// requires all requests to come from the tracer thread, and PR_SET_PDEATHSIG
// fires when the forking thread exits, so this thread never exits.
type launcher struct {
	reqs  chan launchRequest
	fns   chan func()  // ptrace requests for seized nodes (onTracer)
	stops stopNotifier // wakes worlds when a child has a stop to collect (tsc_linux.go)
}

var theLauncher struct {
	once sync.Once
	l    *launcher
}

func getLauncher() *launcher {
	theLauncher.once.Do(func() {
		// Orphaned children of a node are then weft's to reap (proctree.go).
		setSubreaper()
		l := &launcher{reqs: make(chan launchRequest), fns: make(chan func())}
		go l.loop()
		theLauncher.l = l
	})
	return theLauncher.l
}

func (l *launcher) loop() {
	runtime.LockOSThread() // never unlocked: the thread lives as long as the process
	for {
		select {
		case r := <-l.reqs:
			r.reply <- launchOne(r)
			l.stops.started()
		case f := <-l.fns:
			f()
		}
	}
}

func (l *launcher) launch(r launchRequest) launchResult {
	r.reply = make(chan launchResult, 1)
	l.reqs <- r
	return <-r.reply
}

// launchOne starts one node up to the first instruction of the target:
// fork the launcher, fetch its seccomp listener, let its execve through
// under ptrace, patch the auxiliary vector (vDSO off, AT_RANDOM seeded),
// detach. With r.template, the node is a fork of a template of its kind
// (template_linux.go) when it can be.
func launchOne(r launchRequest) launchResult {
	if _, err := r.native(); err != nil && r.patchTSC {
		r.patchTSC = false // the Go launcher traps the TSC
	}
	if r.template {
		if key := templateKey(r); key != "" {
			if res, ok := launchFromTemplate(r, key); ok {
				return res
			}
		}
	}
	res, _ := launchImage(r)
	if res.err != nil {
		return res
	}
	pid := res.pid
	if !r.notifyAll { // there weft itself would have to answer the injected mmap
		fault := res.cpuWhy != "" && faultsCPUID(r.nativeTSC)
		if err := hideVvar(pid, true, fault); err != nil {
			return abandon(res, "%v", err)
		}
		if fault {
			res.cpuWhy = "" // its unpatched cpuid faults (faultCPUID)
		}
	}
	if r.nativeTSC {
		if err := unix.PtraceDetach(pid); err != nil {
			return abandon(res, "ptrace detach: %v", err)
		}
		return res
	}
	// The node stays seized for its life: rdtsc traps (tsc_linux.go) and
	// new threads (task.go) are ptrace stops.
	if err := unix.PtraceSetOptions(pid, ptraceOptions); err != nil {
		return abandon(res, "ptrace options: %v", err)
	}
	if err := unix.PtraceCont(pid, 0); err != nil {
		return abandon(res, "ptrace cont: %v", err)
	}
	return res
}

// launchImage starts one node up to its exec stop: the new image is
// loaded, its auxiliary vector and TSC reads are patched, and it has not
// run an instruction. The process is seized with PTRACE_O_TRACEEXEC and
// PTRACE_O_EXITKILL only. randomAt is where its AT_RANDOM bytes are (0
// none). On error nothing is left.
func launchImage(r launchRequest) (res launchResult, randomAt uintptr) {
	pid, pr, err := startLauncher(r)
	if err != nil {
		return launchResult{err: err}, randomAt
	}
	defer pr.Close()
	res.pid, res.pidfd, res.listener = pid, -1, -1
	defer func() {
		if res.err != nil {
			res = abandon(res, "%w", res.err) // %w: an execError stays one
		}
	}()
	id, err := res.attach(r, pr)
	if err == nil {
		err = res.runExec(r, id)
	}
	if err == nil {
		randomAt, err = res.patchImage(r)
	}
	res.err = err
	return res, randomAt
}

// startLauncher starts weft's launcher for r, with /dev/null for its
// standard descriptors and the write end of the pipe it reports on
// (fd 3), and returns its pid and that pipe's read end.
func startLauncher(r launchRequest) (pid int, pr *os.File, err error) {
	exe, argv, extra, err := launcherCommand(r)
	if err != nil {
		return 0, nil, err
	}
	defer func() { // the child has its copies
		for _, f := range extra {
			f.Close()
		}
	}()
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, nil, err
	}
	defer pw.Close()
	defer func() {
		if err != nil {
			pr.Close()
		}
	}()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, nil, err
	}
	defer null.Close()
	if exe, extra, err = asUser(r, exe, extra); err != nil {
		return 0, nil, err
	}
	files := append([]*os.File{null, null, null, pw}, extra...)
	if bin, ok := r.execByFD(len(files)); ok {
		f, err := os.OpenFile(filepath.Dir(r.path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return 0, nil, err
		}
		defer f.Close()
		files = append(files, f)
		argv[pathArg(argv)] = bin
	}
	attr := &os.ProcAttr{
		Dir:   r.dir,
		Env:   r.env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true},
	}
	p, err := os.StartProcess(exe, argv, attr)
	if err != nil {
		return 0, nil, err
	}
	pid = p.Pid
	p.Release()
	return pid, pr, nil
}

// attach waits for the launcher to load its filter, takes its seccomp
// listener, and seizes it at its execve, whose notification it returns.
func (res *launchResult) attach(r launchRequest, pr *os.File) (uint64, error) {
	var b [1]byte
	if n, _ := pr.Read(b[:]); n != 1 {
		return 0, fmt.Errorf("launcher for %s died before loading its filter", r.path)
	}
	if why := launcherFailure(r, b[0]); why != "" {
		return 0, errors.New(why)
	}
	var err error
	if res.pidfd, err = unix.PidfdOpen(res.pid, 0); err != nil {
		return 0, fmt.Errorf("pidfd_open: %v", err)
	}
	if res.listener, err = fetchListener(res.pid, res.pidfd); err != nil {
		return 0, err
	}
	if err := setSyncWakeUp(res.listener); err != nil {
		return 0, fmt.Errorf("SET_FLAGS: %v", err)
	}
	var n notif
	if err := firstNotif(res.listener, res.pidfd, &n); err != nil {
		return 0, fmt.Errorf("first notification: %v", err)
	}
	if n.Data.Nr != unix.SYS_EXECVE {
		return 0, fmt.Errorf("launcher made syscall %d before execve", n.Data.Nr)
	}
	// Seize before letting execve through, so the exec stop is ours.
	opts := uintptr(unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_EXITKILL)
	if _, _, e := unix.RawSyscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(res.pid), 0, opts, 0, 0); e != 0 {
		return 0, fmt.Errorf("ptrace seize: %v", e)
	}
	return n.ID, nil
}

// runExec lets the launcher's execve (notification id) through and
// waits for its exec stop. An exec that fails is an execError saying
// why.
func (res *launchResult) runExec(r launchRequest, id uint64) error {
	watch, err := watchExec(res.listener, res.pidfd)
	if err != nil {
		return err
	}
	ws, err := res.execStop(id)
	why := watch.end()
	switch {
	case err != nil:
		return err
	case !ws.Exited() && !ws.Signaled():
		return nil
	case why != "":
		return &execError{path: r.path, why: why}
	}
	return fmt.Errorf("cannot execute %s (launcher %v)", r.path, describeWait(ws))
}

// execStop answers the launcher's execve (notification id) with
// "continue" and waits for its exec stop or its end, passing on any
// other stop's signal.
func (res *launchResult) execStop(id uint64) (unix.WaitStatus, error) {
	if err := sendResp(res.listener, &notifResp{ID: id, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}); err != nil {
		return 0, fmt.Errorf("continue execve: %v", err)
	}
	for {
		var ws unix.WaitStatus
		if _, err := unix.Wait4(res.pid, &ws, unix.WALL, nil); err != nil {
			if err == unix.EINTR {
				continue
			}
			return 0, fmt.Errorf("wait4: %v", err)
		}
		if ws.Exited() || ws.Signaled() {
			return ws, nil
		}
		if !ws.Stopped() {
			continue
		}
		if ws.StopSignal() == unix.SIGTRAP && ws.TrapCause() == unix.PTRACE_EVENT_EXEC {
			return ws, nil
		}
		sig := 0
		if ws.TrapCause() == 0 && ws.StopSignal() != unix.SIGTRAP {
			sig = int(ws.StopSignal())
		}
		unix.PtraceCont(res.pid, sig)
	}
}

// patchImage patches the new image at its exec stop: its auxiliary
// vector (weft's vDSO, AT_RANDOM, the name it was executed by) and its
// TSC reads. randomAt is where its AT_RANDOM bytes are.
func (res *launchResult) patchImage(r launchRequest) (randomAt uintptr, err error) {
	var execfnAt uintptr
	if res.vdso, randomAt, execfnAt, err = patchAuxv(res.pid, r.random, !r.noVDSO, r.toolchain); err != nil {
		return randomAt, fmt.Errorf("patching auxv: %v", err)
	}
	if _, ok := r.execByFD(0); ok {
		if err := r.showExecName(res.pid, execfnAt); err != nil {
			return randomAt, err
		}
	}
	if r.nativeTSC {
		return randomAt, nil
	}
	why, err := patchCode(res.pid, 0, ^uint64(0), false, r.patchTSC, r.patchEvery)
	if err == nil && r.patchTSC && why.tsc != "" && !r.patchEvery {
		err = fmt.Errorf("%s (WEFT_TSC=trap traps the TSC instead)", why.tsc)
	}
	if err != nil {
		return randomAt, fmt.Errorf("patching the TSC reads of %s: %v", r.path, err)
	}
	res.patched, res.cpuWhy = r.patchTSC, why.cpu
	if r.patchTSC {
		res.tscWhy = why.tsc
	}
	if !r.patchTSC && why.cpu == "" {
		res.cpuWhy = "it traps the TSC, so weft does not follow the code it maps after its start (its libraries)"
	}
	return randomAt, nil
}

// execError is a node's execve that failed after the launcher loaded
// its filter: the node's fault, not weft's, so its run ends with verdict
// error (World.launch makes it a Failure).
type execError struct{ path, why string }

func (e *execError) Error() string { return fmt.Sprintf("cannot execute %s: %s", e.path, e.why) }

// execWatch serves the launcher's seccomp listener while its execve,
// let through, runs. Once the filter is loaded every call of the launcher
// waits for weft, and weft waits (wait4) for the exec stop: when the
// execve fails in the kernel (an interpreter or a library missing, the
// file made unexecutable after weft's checks), the launcher's next call,
// exit_group with execve's errno (launch.c, launcherMain), would wait for
// an answer forever, and so would weft. The watcher takes that call,
// records why, and kills the launcher, so wait4 returns. A successful
// execve makes no call before the exec stop (the new image has not run),
// where launchImage ends the watcher.
type execWatch struct {
	stop int           // an eventfd: written to end the watcher
	done chan struct{} // closed when the watcher ended
	why  string        // why the execve failed, "" if no call came
}

// watchExec starts watching listener for the launcher whose pidfd is
// pidfd.
func watchExec(listener, pidfd int) (*execWatch, error) {
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("eventfd: %v", err)
	}
	w := &execWatch{stop: stop, done: make(chan struct{})}
	go w.run(listener, pidfd)
	return w, nil
}

func (w *execWatch) run(listener, pidfd int) {
	defer close(w.done)
	fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}, {Fd: int32(w.stop), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err == unix.EINTR {
			continue
		} else if err != nil || fds[1].Revents != 0 || fds[0].Revents == 0 {
			return
		}
		break
	}
	var n notif
	if recvNotif(listener, &n) != nil {
		return
	}
	w.why = execFailure(n)
	unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
}

// execFailure describes the launcher's call after a failed execve.
func execFailure(n notif) string {
	if n.Data.Nr != unix.SYS_EXIT_GROUP {
		return fmt.Sprintf("its execve failed (the launcher then made syscall %d)", n.Data.Nr)
	}
	e := unix.Errno(int32(n.Data.Args[0]))
	why := fmt.Sprintf("execve: %v (%s)", e.Error(), unix.ErrnoName(e))
	switch e {
	case unix.ENOENT:
		why += ": its interpreter or a library it names is missing"
	case unix.EACCES:
		why += ": it, or its interpreter, is not executable"
	case unix.ENOEXEC:
		why += ": not an executable this kernel runs"
	}
	return why
}

// end stops the watcher and returns why the execve failed, "" if the
// launcher made no call.
func (w *execWatch) end() string {
	unix.Write(w.stop, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	<-w.done
	unix.Close(w.stop)
	return w.why
}

// abandon ends the process res started (killed and reaped), closes its
// descriptors, and returns res with the error.
func abandon(res launchResult, format string, a ...any) launchResult {
	if res.pid > 0 {
		unix.Kill(res.pid, unix.SIGKILL)
		wait4(res.pid, 0)
	}
	if res.pidfd >= 0 {
		unix.Close(res.pidfd)
	}
	if res.listener >= 0 {
		unix.Close(res.listener)
	}
	return fail(launchResult{}, format, a...)
}

func fail(res launchResult, format string, a ...any) launchResult {
	res.err = fmt.Errorf(format, a...)
	return res
}

// fetchListener finds the seccomp listener among the launcher's fds and
// duplicates it into the supervisor with pidfd_getfd(2).
func fetchListener(pid, pidfd int) (int, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			link, err := os.Readlink(filepath.Join(dir, e.Name()))
			if err != nil || !strings.Contains(link, "seccomp notify") {
				continue
			}
			var fd int
			fmt.Sscan(e.Name(), &fd)
			lfd, err := unix.PidfdGetfd(pidfd, fd, 0)
			if err != nil {
				return -1, fmt.Errorf("pidfd_getfd: %v", err)
			}
			return lfd, nil
		}
		time.Sleep(20 * time.Microsecond)
	}
	return -1, fmt.Errorf("launcher %d never loaded its seccomp filter", pid)
}

// Auxiliary vector types (elf.h).
const (
	atNull        = 0
	atIgnore      = 1
	atRandom      = 25
	atExecfn      = 31
	atSysinfoEhdr = 33
)

// patchAuxv rewrites the new image's auxiliary vector at the exec stop:
// with useVDSO the kernel's vDSO is replaced by weft's (vdso_linux.go),
// built with tc, whose clock readings it returns the address of; otherwise, or if weft's
// does not fit, AT_SYSINFO_EHDR becomes AT_IGNORE, so libc finds no vDSO
// and makes real (intercepted) syscalls for time. The 16 AT_RANDOM bytes
// (stack protector, pointer guard) are replaced by the scheduler's, so
// memory is a function of the run's choices; the entries that describe
// the host's processor get the virtual CPU's values (vkernel.VirtualAuxv).
// It also returns where those bytes are.
func patchAuxv(pid int, random [16]byte, useVDSO bool, tc Toolchain) (vdsoClock, randomAt, execfnAt uintptr, err error) {
	var regs unix.PtraceRegs
	if err := unix.PtraceGetRegs(pid, &regs); err != nil {
		return 0, 0, 0, err
	}
	sp := uintptr(regs.Rsp)
	// Read page by page up to the end of the stack mapping.
	var buf []byte
	page := make([]byte, 4096)
	for chunk := 4096 - int(sp%4096); len(buf) < 256<<10; chunk = 4096 {
		n, err := readMem(pid, sp+uintptr(len(buf)), page[:chunk])
		if n <= 0 || err != nil {
			break
		}
		buf = append(buf, page[:n]...)
	}
	if len(buf) < 8 {
		return 0, 0, 0, fmt.Errorf("cannot read the initial stack at %#x", sp)
	}
	buf = buf[:len(buf)&^7]
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(buf[8*i:]) }
	words := len(buf) / 8
	i := 1 + int(word(0)) + 1 // argc, argv..., NULL
	for i < words && word(i) != 0 {
		i++ // envp...
	}
	i++
	for ; i+1 < words; i += 2 {
		typ := word(i)
		switch typ {
		case atNull:
			return vdsoClock, randomAt, execfnAt, nil
		case atExecfn:
			execfnAt = uintptr(word(i + 1))
		case atSysinfoEhdr:
			if useVDSO {
				if clock, err := installVDSO(pid, uintptr(word(i+1)), tc); err == nil && clock != 0 {
					vdsoClock = clock
					continue
				}
			}
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], atIgnore)
			if _, err := writeMem(pid, sp+uintptr(8*i), w[:]); err != nil {
				return 0, 0, 0, err
			}
		case vkernel.AtHwcap, vkernel.AtHwcap2, vkernel.AtMinSigStkSz:
			// The host's processor, as the kernel describes it
			// (redteam auxv-getauxval): the virtual CPU's instead.
			v, _ := vkernel.VirtualAuxv(typ, word(i+1), hostCPUID)
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], v)
			if _, err := writeMem(pid, sp+uintptr(8*(i+1)), w[:]); err != nil {
				return 0, 0, 0, err
			}
		case atRandom:
			randomAt = uintptr(word(i + 1))
			if _, err := writeMem(pid, randomAt, random[:]); err != nil {
				return 0, 0, 0, err
			}
		}
	}
	return 0, 0, 0, fmt.Errorf("no AT_NULL in the first %d bytes of the stack", len(buf))
}

func describeWait(ws unix.WaitStatus) string {
	switch {
	case ws.Exited():
		return fmt.Sprintf("exited with status %d", ws.ExitStatus())
	case ws.Signaled():
		return "killed by " + unix.SignalName(ws.Signal())
	}
	return fmt.Sprintf("wait status %#x", uint32(ws))
}

// launcherCommand returns how to start the launcher for r: the small native
// launcher when it can be built (fast: no Go runtime per node), otherwise
// this binary re-executed in launcher mode. extra files follow fd 3.
func launcherCommand(r launchRequest) (exe string, argv []string, extra []*os.File, err error) {
	native, nerr := r.native()
	if nerr == nil {
		prog, err := filterBytesFor(r.notifyAll, r.patchTSC)
		if err != nil {
			return "", nil, nil, err
		}
		fr, fw, err := os.Pipe()
		if err != nil {
			return "", nil, nil, err
		}
		_, err = fw.Write(append(launchHead(r), prog...)) // a few KiB: fits in the pipe buffer
		fw.Close()
		if err != nil {
			fr.Close()
			return "", nil, nil, err
		}
		name := "weft-launch"
		if r.nativeTSC || r.patchTSC {
			name = "weft-launch-native-tsc"
		}
		return native, append([]string{name, r.path, r.shownPath()}, r.args...), []*os.File{fr}, nil
	}
	if r.notifyAll {
		return "", nil, nil, fmt.Errorf("notifying every syscall needs the native launcher: %v", nerr)
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, nil, err
	}
	arg := launchArg
	if r.nativeTSC {
		arg = launchArgNativeTSC
	}
	return self, append([]string{self, arg, r.path, r.shownPath()}, r.args...), nil, nil
}

// launchHead is what the native launcher reads on fd 4 before the
// seccomp program (launch.c's struct head, little-endian uint32s): the
// descriptor bound it sets as its RLIMIT_NOFILE (0: none), and whether
// it then becomes another user, with that user's uid, gid and groups.
// The launcher does both as root, before the filter: a limit set there
// needs no prlimit(2) on another user's process, which takes
// CAP_SYS_RESOURCE (a container may withhold it from root), and the
// credentials are dropped after it.
func launchHead(r launchRequest) []byte {
	var u User
	become := uint32(0)
	if r.user != nil {
		u, become = *r.user, 1
	}
	h := binary.LittleEndian.AppendUint32(nil, uint32(r.maxFDs))
	for _, v := range []uint32{become, u.UID, u.GID, uint32(len(u.Groups))} {
		h = binary.LittleEndian.AppendUint32(h, v)
	}
	for _, g := range u.Groups {
		h = binary.LittleEndian.AppendUint32(h, g)
	}
	return h
}

// launcherFailure is why a native launcher that wrote a byte other than
// readiness on fd 3 stopped (launch.c), "" for readiness.
func launcherFailure(r launchRequest, b byte) string {
	switch b {
	case 'L':
		return fmt.Sprintf("the launcher of %s could not set its descriptor limit to the node's bound, %d (Config.MaxFDs)", r.path, r.maxFDs)
	case 'U':
		return fmt.Sprintf("the launcher of %s could not become user %s", r.path, r.user.Name)
	}
	return ""
}

// execByFD says whether the launcher executes the binary through fd, a
// descriptor of its directory, rather than by its host path, and the name
// it then executes: "/proc/self/fd/<fd>/<name>" after as many slashes as
// make it as long as the binary's path in the view. It does so for a
// binary the view shows at another path than the host's (a model's own
// program), so that the name the kernel copies onto the new stack
// (AT_EXECFN, whose length places every string and pointer below it) has
// the view's length, and is then overwritten with the view's path itself
// (showExecName): nothing of the host path, not even its length, is in
// the node's memory, and the process is named after the binary, as an
// exec by the view's path would name it.
func (r launchRequest) execByFD(fd int) (string, bool) {
	base := filepath.Base(r.path)
	name := fmt.Sprintf("proc/self/fd/%d/%s", fd, base)
	if r.argv0 == "" || r.argv0 == r.path || filepath.Base(r.argv0) != base || len(r.argv0) <= len(name) {
		return "", false
	}
	return strings.Repeat("/", len(r.argv0)-len(name)) + name, true
}

// showExecName writes the binary's view path over the name the kernel
// copied to execfnAt (AT_EXECFN; execByFD made them the same length). At
// the exec stop.
func (r launchRequest) showExecName(pid int, execfnAt uintptr) error {
	if execfnAt == 0 {
		return fmt.Errorf("no AT_EXECFN in the auxiliary vector of %s", r.path)
	}
	if _, err := writeMem(pid, execfnAt, []byte(r.argv0)); err != nil {
		return fmt.Errorf("writing AT_EXECFN: %v", err)
	}
	return nil
}

// pathArg is the index in a launcher's argv of the path it executes.
func pathArg(argv []string) int {
	if len(argv) > 1 && (argv[1] == launchArg || argv[1] == launchArgNativeTSC) {
		return 2
	}
	return 1
}

// shownPath is the node's argv[0].
func (r launchRequest) shownPath() string {
	if r.argv0 != "" {
		return r.argv0
	}
	return r.path
}

// firstNotif receives a launcher's first notification, its execve. One
// the kernel withdrew (ENOENT: a signal reached the waiting thread, as
// the Go launcher's runtime sends its threads, and the call is made
// again once its handler returns) is waited for again while the
// launcher (pidfd) lives.
func firstNotif(listener, pidfd int, n *notif) error {
	for {
		err := recvNotif(listener, n)
		if !errors.Is(err, unix.ENOENT) {
			return err
		}
		fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}, {Fd: int32(pidfd), Events: unix.POLLIN}}
		for {
			if _, err = unix.Poll(fds, -1); err != unix.EINTR {
				break
			}
		}
		if err != nil {
			return err
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			return errors.New("the launcher ended before its execve")
		}
	}
}
