// Package kernel is weft's Jupyter kernel: it speaks the Jupyter messaging
// protocol 5.3 and evaluates Go cells with persistent state, with weft's
// packages bound in.
//
// Install it with `weft kernel install` and pick "Go (weft)" in Jupyter.
// In a notebook:
//
//	import "github.com/weft-mc/weft/analysis"   // bound: costs nothing to import
//	iv, _ := analysis.WilsonInterval(analysis.Count{Successes: 3, Trials: 100}, 0.95)
//	display.Markdown(fmt.Sprintf("rate in [%.3f, %.3f]", iv.Lower, iv.Upper))  // last value renders
//
// The last expression of a cell is its result; values with HTML(),
// Markdown(), SVG(), PNG(), … methods (a charts.Chart, say) render through
// them. Long work reports live progress through a display that is updated
// in place:
//
//	p := display.NewProgress("states", 0)
//	res, err := mcsdk.Check(m, mcsdk.CheckOptions{Context: display.Context(),
//		Progress: func(states, runs int) { p.Set(states) }})
//	p.Finish()
//
// Interrupting (the stop button: interrupt_request, or SIGINT) cancels
// display.Context(): a campaign given it stops between runs and returns its
// partial summary, a check given CheckOptions{Context: display.Context()}
// returns what it explored, and the cell ends with an Interrupted error; a
// cell that does not listen is stopped at once (Kernel.Interrupt). The
// kernel and its state survive. Run ends the kernel, and kills every
// process under it, when its client dies, on SIGTERM, SIGHUP and
// shutdown_request (kernel/README.md, Lifecycle). Errors and panics in a
// cell, and panics in goroutines it started, are reported in the cell.
//
// The package is layered as xeus is: wire (framing, signing, ZeroMQ
// sockets) · dispatch (this package: one handler per message type) ·
// engine (the yaegi interpreter, which publishes through a callback and
// never touches sockets) · display (rich outputs). Dispatch talks to a
// Transport, so tests drive it in memory.
package kernel

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/wire"
)

// Transport sends a message on one of the kernel's channels.
// *wire.Sockets implements it.
type Transport interface {
	Send(ch wire.Channel, m *wire.Message) error
}

// Version is the kernel implementation version reported by kernel_info.
const Version = "0.1.0"

// Kernel dispatches requests to their handlers. Shell and control messages
// are handled on separate goroutines (the caller's), so an interrupt or
// shutdown on control reaches a kernel busy executing a cell.
type Kernel struct {
	t       Transport
	eng     *engine.Engine
	log     io.Writer
	session string

	// ownsProcess: the kernel runs as its own process (Run), so its
	// descendant processes are the cells' and it kills them when a cell is
	// stopped and when it exits.
	ownsProcess bool

	mu   sync.Mutex
	run  *cellRun       // the running cell's cancellation, if any
	cell *cellPublisher // the running cell's publisher, if any
	// stdoutSync, when standard output is captured, waits until what was
	// written to it has been forwarded.
	stdoutSync func()
	count      int // execution count
	// failedAt is when a cell last failed with stop_on_error.
	failedAt time.Time
	history  []historyEntry
	done     chan struct{} // closed by shutdown_request
	restart  bool
	closed   bool

	inputs chan *wire.Message // input_reply messages from stdin
}

// historyEntry is one executed cell.
type historyEntry struct {
	line int
	code string
}

// New returns a kernel evaluating with eng and sending through t; log
// receives diagnostics.
func New(t Transport, eng *engine.Engine, log io.Writer) *Kernel {
	if t == nil || eng == nil || log == nil {
		panic("kernel: New needs a transport, an engine and a log")
	}
	return &Kernel{
		t: t, eng: eng, log: log,
		session: wire.NewID(),
		done:    make(chan struct{}),
		inputs:  make(chan *wire.Message, 1),
	}
}

// Done is closed when a shutdown_request has been answered.
func (k *Kernel) Done() <-chan struct{} { return k.done }

// Restart reports whether the shutdown asked for a restart.
func (k *Kernel) Restart() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.restart
}

// hostStream sends text to the running cell's stream name and reports
// whether a cell was running.
func (k *Kernel) hostStream(name, text string) bool {
	k.mu.Lock()
	c := k.cell
	k.mu.Unlock()
	if c == nil {
		return false
	}
	c.Stream(name, text)
	return true
}

// Handle is the wire.Handler: it dispatches one verified message.
func (k *Kernel) Handle(ch wire.Channel, m *wire.Message) {
	if ch == wire.Stdin {
		k.handleStdin(m)
		return
	}
	h := k.handler(m.Header.MsgType)
	if h == nil {
		fmt.Fprintf(k.log, "weft kernel: ignoring %s on %s\n", m.Header.MsgType, ch)
		return
	}
	k.status(m, "busy")
	defer k.status(m, "idle")
	if err := h(ch, m); err != nil {
		fmt.Fprintf(k.log, "weft kernel: %s: %v\n", m.Header.MsgType, err)
	}
}

// handlerFunc handles one request arriving on ch.
type handlerFunc func(ch wire.Channel, m *wire.Message) error

// handler returns the handler of a message type, or nil.
func (k *Kernel) handler(msgType string) handlerFunc {
	switch msgType {
	case "execute_request":
		return k.execute
	case "kernel_info_request":
		return k.kernelInfo
	case "complete_request":
		return k.complete
	case "inspect_request":
		return k.inspect
	case "is_complete_request":
		return k.isComplete
	case "history_request":
		return k.historyRequest
	case "comm_info_request":
		return k.commInfo
	case "comm_open":
		return k.commOpen
	case "shutdown_request":
		return k.shutdown
	case "interrupt_request":
		return k.interrupt
	}
	return nil
}

// reply answers m on ch with content.
func (k *Kernel) reply(ch wire.Channel, m *wire.Message, msgType string, content any) error {
	return k.t.Send(ch, wire.Reply(m, k.session, msgType, content))
}

// publish sends an IOPub message whose parent is m.
func (k *Kernel) publish(m *wire.Message, msgType string, content any) error {
	msg := &wire.Message{Header: wire.NewHeader(k.session, msgType), Content: content}
	if m != nil {
		msg.Parent = m.Header
	}
	return k.t.Send(wire.IOPub, msg)
}

func (k *Kernel) status(m *wire.Message, state string) {
	if err := k.publish(m, "status", map[string]any{"execution_state": state}); err != nil {
		fmt.Fprintf(k.log, "weft kernel: status: %v\n", err)
	}
}

// Starting publishes the initial "starting" status, as ipykernel does.
func (k *Kernel) Starting() { k.status(nil, "starting") }

func (k *Kernel) handleStdin(m *wire.Message) {
	if m.Header.MsgType != "input_reply" {
		fmt.Fprintf(k.log, "weft kernel: ignoring %s on stdin\n", m.Header.MsgType)
		return
	}
	select {
	case k.inputs <- m:
	default:
		fmt.Fprintln(k.log, "weft kernel: input_reply with no input_request pending")
	}
}
