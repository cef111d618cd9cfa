//go:build linux && amd64

// Command goprobe is the Go half of scripts/redteam.sh's hostile probes
// (issue 36): the same attacks as scripts/redteam/c/probe.c made through
// Go's runtime and standard library, which reach the kernel their own way
// (raw syscalls, no libc, threads of their own). Run as a weft node:
// `goprobe RUNDIR ID NAME PARAMS...`. It only attacks and prints what it
// got; the script judges from the host side.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const pwn = "PWNED-by-weft-redteam\n"

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: goprobe RUNDIR ID NAME PARAMS...")
		os.Exit(2)
	}
	name := os.Args[3]
	a := append(os.Args[4:], make([]string, 8)...)
	fmt.Printf("probe %s start\n", name)
	probes := map[string]func([]string){
		"dangling": dangling, "long": long, "chain": chainChmod, "procscan": procScan,
		"memwrite": memWrite, "kill": kill, "setpriority": setPriority, "flock": flock,
		"inherit": inherit, "cpuid": cpuidVendor, "hostname": hostname, "cwd": cwd,
	}
	p, ok := probes[name]
	if !ok {
		fmt.Printf("unknown probe %s\n", name)
		os.Exit(2)
	}
	p(a)
}

func report(what string, err error) {
	if err != nil {
		fmt.Printf("%s: %v\n", what, err)
	} else {
		fmt.Printf("%s: ok\n", what)
	}
}

// dangling OUTDIR: os.WriteFile through a symlink to a missing file outside.
func dangling(a []string) {
	report("symlink", os.Symlink(filepath.Join(a[0], "f"), "l"))
	report("WriteFile(l)", os.WriteFile("l", []byte(pwn), 0o666))
}

// long OUTFILE: create a file outside by a ~4 KB relative path.
func long(a []string) {
	p := strings.Repeat("./", (4090-3*48-len(a[0]))/2) + strings.Repeat("../", 48) + a[0][1:]
	report("WriteFile(long)", os.WriteFile(p, []byte(pwn), 0o666))
}

// chain VICTIM: chmod a host file through a chain of 40 symlinks.
func chainChmod(a []string) {
	for i := 39; i >= 0; i-- {
		target := fmt.Sprintf("c%d", i+1)
		if i == 39 {
			target = a[0]
		}
		os.Remove(fmt.Sprintf("c%d", i))
		report("symlink", os.Symlink(target, fmt.Sprintf("c%d", i)))
	}
	report("Chmod(c0)", os.Chmod("c0", 0o4777))
}

// procScan NEEDLE: read every process's environ and print what holds NEEDLE.
func procScan(a []string) {
	ents, err := os.ReadDir("/proc")
	report("ReadDir(/proc)", err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains(string(b), a[0]) {
			fmt.Printf("FOUND pid %s: %s\n", e.Name(), strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}

// memWrite PID ADDR: write into a host process through /proc/PID/mem.
func memWrite(a []string) {
	addr, _ := strconv.ParseUint(a[1], 0, 64)
	f, err := os.OpenFile("/proc/"+a[0]+"/mem", os.O_RDWR, 0)
	report("OpenFile(mem)", err)
	if err == nil {
		_, err = f.WriteAt([]byte("PWNED!!\x00"), int64(addr))
		report("WriteAt", err)
	}
}

// kill PID: stop a host process.
func kill(a []string) {
	pid, _ := strconv.Atoi(a[0])
	report("Kill(SIGSTOP)", syscall.Kill(pid, syscall.SIGSTOP))
}

// setPriority PID: renice a host process.
func setPriority(a []string) {
	pid, _ := strconv.Atoi(a[0])
	report("Setpriority", syscall.Setpriority(syscall.PRIO_PROCESS, pid, 19))
}

// flock FILE: hold an exclusive flock on a host file, then spin.
func flock(a []string) {
	f, err := os.Open(a[0])
	report("Open", err)
	if err == nil {
		report("Flock(LOCK_EX)", unix.Flock(int(f.Fd()), unix.LOCK_EX))
	}
	fmt.Println("holding")
	n := 0
	for i := 0; i < 40_000_000_000; i++ {
		n += i
	}
	fmt.Println(n)
}

// inherit: write to every regular-file descriptor above 2 the node did
// not open.
func inherit(a []string) {
	for fd := 3; fd < 256; fd++ {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		_, err := unix.Write(fd, []byte(pwn))
		report(fmt.Sprintf("write(fd %d)", fd), err)
	}
}

// cpuidVendor prints the CPU vendor string from the cpuid instruction.
func cpuidVendor(a []string) {
	_, b, c, d := cpuid(0)
	v := make([]byte, 0, 12)
	for _, r := range []uint32{b, d, c} {
		v = append(v, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	fmt.Printf("V: vendor %s\n", v)
}

// cpuid runs the cpuid instruction for leaf (cpuid_amd64.s).
func cpuid(leaf uint32) (a, b, c, d uint32)

// hostname prints os.Hostname (read from /proc/sys/kernel/hostname).
func hostname(a []string) {
	h, err := os.Hostname()
	report("Hostname", err)
	fmt.Printf("V: hostname %s\n", h)
}

// cwd prints os.Getwd and the raw getcwd.
func cwd(a []string) {
	w, err := os.Getwd()
	report("Getwd", err)
	fmt.Printf("CWD %s\n", w)
	b := make([]byte, 4096)
	if n, err := unix.Getcwd(b); err == nil {
		fmt.Printf("CWD %s\n", strings.TrimRight(string(b[:n]), "\x00"))
	}
}
