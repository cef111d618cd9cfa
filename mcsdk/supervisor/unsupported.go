//go:build !(linux && amd64)

package supervisor

import (
	"errors"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// ErrUnsupported is what Start returns where weft cannot run targets.
var ErrUnsupported = errors.New("weft runs targets on linux/amd64 only")

// World is a running system; on this platform none can be started, so
// its methods are never reached.
type World struct{ net *netsim.Network }

// Start refuses: nodes run under seccomp user notification, ptrace and
// the x86-64 syscall table.
func Start(Config) (*World, error) { return nil, ErrUnsupported }

func (w *World) Close()                                           {}
func (w *World) Apply(sched.Action) error                         { return ErrUnsupported }
func (w *World) Enabled() []sched.Action                          { return nil }
func (w *World) Describe(a sched.Action) string                   { return a.String() }
func (w *World) Failure() *Failure                                { return nil }
func (w *World) Hash(HashMode, []byte) ([32]byte, error)          { return [32]byte{}, ErrUnsupported }
func (w *World) LoadBase(int) (uintptr, error)                    { return 0, ErrUnsupported }
func (w *World) ReadMemv(int, []uintptr, []int) ([][]byte, error) { return nil, ErrUnsupported }
func (w *World) Network() *netsim.Network                         { return w.net }
func (w *World) Now() int64                                       { return Epoch }
func (w *World) AdvanceTo(int64)                                  {}
func (w *World) Output(int) []byte                                { return nil }
func (w *World) Ran(int) bool                                     { return false }
func (w *World) ClearRan()                                        {}
func (w *World) Replies() []Reply                                 { return nil }
func (w *World) Status(int) NodeStatus                            { return NodeStatus{} }
func (w *World) Timers() []TimerInfo                              { return nil }
func (w *World) Steps() int                                       { return 0 }
func (w *World) RandomDrawn() uint64                              { return 0 }
func (w *World) RefusedWrites(int) int                            { return 0 }
func (w *World) Refusals() []Refusal                              { return nil }
func (w *World) Ready() []sched.Action                            { return nil }
func (w *World) Threads(int) int                                  { return 0 }
func (w *World) Procs(int) int                                    { return 0 }
