//go:build linux && amd64

package supervisor

import (
	"bytes"
	"os"
	"runtime"
	"testing"
	"unsafe"
)

// TestCallReadCache reads this process's own memory through a call, as a
// handler reads a node's: a parked call's repeated reads come from its
// cache, a write through the call invalidates it, and what a caller gets is
// its own copy.
func TestCallReadCache(t *testing.T) {
	mem := []byte("pollfds!")
	addr := uint64(uintptr(unsafe.Pointer(&mem[0])))
	c := &call{n: &node{pid: os.Getpid()}, deadline: -1}

	first, err := c.read(addr, len(mem))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	first[0] = 'X' // the caller's copy, not the cache
	copy(mem, "changed!")
	again, err := c.read(addr, len(mem))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, []byte("pollfds!")) {
		t.Errorf("second read = %q, want the cached %q (a parked node cannot change its memory)", again, "pollfds!")
	}
	if err := c.write(addr, []byte("written!")); err != nil {
		t.Fatalf("write: %v", err)
	}
	after, err := c.read(addr, len(mem))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, []byte("written!")) {
		t.Errorf("read after write = %q, want %q: a write must invalidate the cache", after, "written!")
	}
	if other, err := c.read(addr+4, 4); err != nil || !bytes.Equal(other, []byte("ten!")) {
		t.Errorf("read of another range = %q, %v; want %q", other, err, "ten!")
	}
	runtime.KeepAlive(mem)
}
