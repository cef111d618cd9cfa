//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// statusFiles keeps each thread's /proc/PID/task/TID/status open, so that
// taskStatus costs one pread instead of os.ReadFile's open, fstat, poller
// registration, reads and close. A parked rt_sigsuspend reads its
// thread's pending signals at every retry: on RabbitMQ's start-up
// taskStatus was 31% of weft's CPU, most of it those system calls.
//
// A status file is generated afresh by every read at offset 0 (seq_file),
// so a kept descriptor reads what a fresh open would. The descriptor pins
// the thread's struct pid, not its number: once the thread is gone (exit,
// or a non-leader's execve taking the leader's id) a read fails with
// ESRCH, even if a new thread has the same number, and read then drops the
// descriptor and reads the path as before (so errors are unchanged).
var statusFiles = statusCache{name: "status", fds: map[[2]int]int{}}

// schedstatFiles keeps each thread's /proc/PID/task/TID/schedstat open
// in the same way, for node.cpuTime, which reads every live thread's at
// each hash of its node (open, read and close each were about 3 % of
// weft's CPU samples on redis depth 6). schedstat is a seq_file too.
var schedstatFiles = statusCache{name: "schedstat", fds: map[[2]int]int{}}

// maxStatusFiles bounds the descriptors kept: past it the cache starts
// again empty (exited threads' descriptors are not closed otherwise).
const maxStatusFiles = 1024

type statusCache struct {
	sync.Mutex
	name string         // the file of /proc/PID/task/TID/ kept
	fds  map[[2]int]int // (pid, tid) -> descriptor of its file
	buf  []byte
}

// read returns the contents of /proc/pid/task/tid/NAME, valid until the
// next read; the caller holds the lock.
func (s *statusCache) read(pid, tid int) ([]byte, error) {
	key := [2]int{pid, tid}
	if fd, ok := s.fds[key]; ok {
		if b, ok := s.pread(fd); ok {
			return b, nil
		}
		unix.Close(fd)
		delete(s.fds, key)
	}
	path := fmt.Sprintf("/proc/%d/task/%d/%s", pid, tid, s.name)
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		if b, ok := s.pread(fd); ok {
			if len(s.fds) >= maxStatusFiles {
				s.closeAll()
			}
			s.fds[key] = fd
			return b, nil
		}
		unix.Close(fd)
	}
	return os.ReadFile(path)
}

// pread reads the whole file behind fd from offset 0.
func (s *statusCache) pread(fd int) ([]byte, bool) {
	if s.buf == nil {
		s.buf = make([]byte, 4096)
	}
	for {
		n, err := unix.Pread(fd, s.buf, 0)
		if err != nil || n <= 0 {
			return nil, false
		}
		if n < len(s.buf) {
			return s.buf[:n], true
		}
		s.buf = make([]byte, 2*len(s.buf)) // it may not all have fit
	}
}

// closeAll closes every kept descriptor.
func (s *statusCache) closeAll() {
	for key, fd := range s.fds {
		unix.Close(fd)
		delete(s.fds, key)
	}
}
