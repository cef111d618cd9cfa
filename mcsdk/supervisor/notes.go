//go:build linux && amd64

package supervisor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Note is a request weft refused a node: which syscall and request (an
// ioctl or fcntl command), which node and thread, and why. The run goes
// on with the refusal's errno, as the kernel answers a request it does
// not support; the note says where a program met the edge of what weft
// serves.
type Note struct {
	Node    int    `json:"node"`
	Thread  string `json:"thread"` // n1/t2
	Syscall string `json:"syscall"`
	Request uint64 `json:"request"`
	Name    string `json:"name,omitempty"` // the request's name, if the table knows it
	Errno   string `json:"errno"`
	Why     string `json:"why"`
	_       struct{}
}

func (n Note) String() string {
	req := fmt.Sprintf("%#x", n.Request)
	if n.Name != "" {
		req = n.Name + " (" + req + ")"
	}
	return fmt.Sprintf("%s: %s request %s refused (%s): %s", n.Thread, n.Syscall, req, n.Errno, n.Why)
}

// Notes lists the requests refused so far, once per node, syscall and
// request, in the order first refused.
func (w *World) Notes() []Note { return append([]Note(nil), w.notes...) }

// refuseRequest answers c, a call of syscall sys, with errno e and notes
// the refusal of request req (named name, "" if unknown).
func (c *call) refuseRequest(sys string, req uint64, name string, e uintptrErrno, why string) result {
	what := fmt.Sprintf("request %#x", req)
	if name != "" {
		what = "request " + name
	}
	c.w.refuse(c.n.id, sys, what, errnoName(e), why) // weft's run summary (World.Refusals)
	for _, n := range c.w.notes {
		if n.Node == c.n.id && n.Syscall == sys && n.Request == req {
			return errno(e)
		}
	}
	c.w.notes = append(c.w.notes, Note{Node: c.n.id, Thread: c.t.name(), Syscall: sys, Request: req, Name: name,
		Errno: errnoName(e), Why: why})
	return errno(e)
}

// errnoName is an errno's symbolic name (ENOTTY).
func errnoName(e uintptrErrno) string {
	if s := unix.ErrnoName(e); s != "" {
		return s
	}
	return e.Error()
}
