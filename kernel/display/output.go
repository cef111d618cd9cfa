package display

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Output receives displays. The kernel implements it for the running
// cell: Display sends display_data (carrying the display id set by
// WithID, if any), Update sends update_display_data for an earlier
// display id.
type Output interface {
	Display(d Data) error
	Update(id string, d Data) error
}

// Clearer is an Output that can clear the cell's output (clear_output).
// With wait, the front end clears when the next output arrives, which
// avoids flicker in animations.
type Clearer interface {
	Clear(wait bool) error
}

// TextOutput writes the text/plain form of every display to W. It is what
// the package-level functions use outside a kernel.
type TextOutput struct{ W io.Writer }

// Display implements Output.
func (t TextOutput) Display(d Data) error {
	_, err := fmt.Fprintln(t.W, d.Data[MIMETypeText])
	return err
}

// Update implements Output.
func (t TextOutput) Update(id string, d Data) error { return t.Display(d) }

// Funcs are the package's output functions bound to one Output. The kernel
// installs them in place of the package-level Display, Update, Show and
// NewProgress.
type Funcs struct {
	Display     func(d Data) error
	Update      func(id string, d Data) error
	Show        func(d Data) *Handle
	NewProgress func(title string, total int) *Progress
	ClearOutput func(wait bool) error
}

// Bind returns the output functions writing to out.
func Bind(out Output) Funcs {
	show := func(d Data) *Handle {
		h := &Handle{ID: newDisplayID(), out: out}
		h.err = out.Display(WithID(h.ID, d))
		return h
	}
	return Funcs{
		Display: out.Display,
		Update:  func(id string, d Data) error { return out.Update(id, WithID(id, d)) },
		Show:    show,
		NewProgress: func(title string, total int) *Progress {
			p := &Progress{title: title, total: total, lastAt: time.Now()}
			p.last = p.percent()
			p.h = show(p.data())
			return p
		},
		ClearOutput: func(wait bool) error {
			if c, ok := out.(Clearer); ok {
				return c.Clear(wait)
			}
			return nil
		},
	}
}

func stdout() Funcs { return Bind(TextOutput{W: os.Stdout}) }

// Context is the running cell's context: in the kernel it is cancelled
// when the cell is interrupted, so long work started from a cell — e.g.
// mcsdk.Campaign(display.Context(), …) — stops promptly and keeps what it
// finished. Outside a kernel it is context.Background().
func Context() context.Context { return context.Background() }

// Display shows d now (as display_data), rather than as the cell's result.
func Display(d Data) error { return stdout().Display(d) }

// Update replaces the display shown earlier with display id id.
func Update(id string, d Data) error { return stdout().Update(id, d) }

// Show displays d under a fresh display id and returns a handle to update it.
func Show(d Data) *Handle { return stdout().Show(d) }

// NewProgress shows a progress bar for total steps (0 if unknown) and
// returns it; Set, Add and Finish update it in place while the cell runs.
func NewProgress(title string, total int) *Progress { return stdout().NewProgress(title, total) }

// ClearOutput clears the output of the running cell (outside a kernel it
// does nothing).
func ClearOutput(wait bool) error { return stdout().ClearOutput(wait) }

// Handle is a display that can be updated in place.
type Handle struct {
	// ID is the display id sent with the display.
	ID  string
	out Output
	err error
}

// Update replaces the handle's display with d.
func (h *Handle) Update(d Data) error { return h.out.Update(h.ID, WithID(h.ID, d)) }

// Err returns the error of the initial display, if any.
func (h *Handle) Err() error { return h.err }

func newDisplayID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("display: crypto/rand: " + err.Error())
	}
	return "weft-" + hex.EncodeToString(b[:])
}

// Progress is a live progress bar. It is safe for concurrent use. With a
// known total it re-renders when the whole percentage changes; with a
// total of 0 or less (unknown) it shows the count, re-rendering at most
// every RefreshEvery. Finish renders the final state.
type Progress struct {
	mu          sync.Mutex
	h           *Handle
	title       string
	done, total int
	last        int       // last rendered percentage
	lastAt      time.Time // time of the last render
}

// RefreshEvery bounds how often a progress bar of unknown total re-renders.
const RefreshEvery = 100 * time.Millisecond

// Set records done steps and updates the display when it is due.
func (p *Progress) Set(done int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = done
	if p.total > 0 && p.percent() == p.last || p.total <= 0 && time.Since(p.lastAt) < RefreshEvery {
		return nil
	}
	return p.render()
}

// Add advances the bar by n steps.
func (p *Progress) Add(n int) error {
	p.mu.Lock()
	done := p.done + n
	p.mu.Unlock()
	return p.Set(done)
}

// Finish renders the current state unconditionally.
func (p *Progress) Finish() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.render()
}

// ID returns the progress display's id.
func (p *Progress) ID() string { return p.h.ID }

func (p *Progress) render() error {
	p.last, p.lastAt = p.percent(), time.Now()
	return p.h.Update(p.data())
}

func (p *Progress) percent() int {
	if p.total <= 0 {
		return 0
	}
	return min(100, max(0, p.done*100/p.total))
}

func (p *Progress) data() Data {
	if p.total <= 0 {
		text := fmt.Sprintf("%s: %d", p.title, p.done)
		return MakeData3(MIMETypeHTML, text, fmt.Sprintf(`<div class="weft-progress"><progress></progress> %s</div>`, escape(text)))
	}
	text := fmt.Sprintf("%s: %d/%d (%d%%)", p.title, p.done, p.total, p.percent())
	html := fmt.Sprintf(`<div class="weft-progress"><progress value="%d" max="%d"></progress> %s</div>`,
		p.done, p.total, escape(text))
	return MakeData3(MIMETypeHTML, text, html)
}

// escape escapes the HTML special characters of s.
func escape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '"':
			b = append(b, "&quot;"...)
		default:
			b = append(b, s[i])
		}
	}
	return string(b)
}
