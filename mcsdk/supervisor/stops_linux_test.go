//go:build linux && amd64

package supervisor

import (
	"os/exec"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestStopsReachTheirWorld checks whom the stop waiter wakes: a stop of a
// thread a world owns wakes that world alone, until it is collected; any
// other child's wakes every world; and an owned stop nobody collects in
// time is reported to every world too, so that a stale claim (an id
// reused by another world's node) cannot leave the right world asleep.
func TestStopsReachTheirWorld(t *testing.T) {
	s := &stopNotifier{staleAfter: time.Hour}
	fa, err := s.register()
	if err != nil {
		t.Fatal(err)
	}
	defer s.unregister(fa)
	fb, err := s.register()
	if err != nil {
		t.Fatal(err)
	}
	defer s.unregister(fb)
	sleeper := func() int {
		c := exec.Command("sleep", "30")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c.Process.Pid
	}
	stop := func(pid int) {
		if err := unix.Kill(pid, unix.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	collect := func(pid int) {
		for {
			got, _, err := waitStop(pid)
			if err != nil {
				t.Fatal(err)
			}
			if got == pid {
				break
			}
			time.Sleep(time.Millisecond)
		}
		s.collected(pid, false)
	}
	woken := func(fd int, wait time.Duration) bool {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		k, err := unix.Poll(p, int(wait.Milliseconds()))
		for err == unix.EINTR {
			k, err = unix.Poll(p, int(wait.Milliseconds()))
		}
		if err != nil {
			t.Fatal(err)
		}
		if k > 0 {
			var b [8]byte
			unix.Read(fd, b[:])
		}
		return k > 0
	}

	owned, other := sleeper(), sleeper()
	// Reap any other child of the test process that has ended (a stray
	// would wake every world, as it should), and drain what it woke.
	for {
		var info [siginfoSize]byte
		_, _, e := unix.Syscall6(unix.SYS_WAITID, unix.P_ALL, 0, uintptr(unsafe.Pointer(&info[0])),
			unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, 0, 0)
		pid := int(le32(info[siPidOff:]))
		if e != 0 || pid == 0 {
			break
		}
		unix.Wait4(pid, nil, unix.WALL, nil)
		s.collected(pid, true)
	}
	woken(fa, 50*time.Millisecond)
	woken(fb, 0)
	s.own(owned, fa)
	stop(owned)
	if !woken(fa, 10*time.Second) {
		t.Fatal("the owner was not woken by its thread's stop")
	}
	if woken(fb, 200*time.Millisecond) {
		t.Fatal("another world was woken by a stop it does not own")
	}
	collect(owned)

	stop(other)
	if !woken(fa, 10*time.Second) || !woken(fb, 10*time.Second) {
		t.Fatal("a stop nobody owns did not wake every world")
	}
	collect(other)

	// Stale: an owned stop its world does not collect in time.
	s.mu.Lock()
	s.staleAfter = 20 * time.Millisecond
	s.mu.Unlock()
	unix.Kill(owned, unix.SIGCONT)
	stop(owned)
	if !woken(fa, 10*time.Second) {
		t.Fatal("the owner was not woken by its thread's second stop")
	}
	if !woken(fb, 10*time.Second) {
		t.Fatal("an owned stop left uncollected was never reported to the other worlds")
	}
	collect(owned)
}
