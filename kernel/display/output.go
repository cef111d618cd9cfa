package display

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"
)

// Output receives displays. The kernel implements it for the running
// cell: Display sends display_data (carrying the display id set by
// WithID, if any), Update sends update_display_data for an earlier
// display id.
type Output interface {
	Display(d Data) error
	Update(id string, d Data) error
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
			p := &Progress{title: title, total: total}
			p.last = p.percent()
			p.h = show(p.data())
			return p
		},
	}
}

func stdout() Funcs { return Bind(TextOutput{W: os.Stdout}) }

// Display shows d now (as display_data), rather than as the cell's result.
func Display(d Data) error { return stdout().Display(d) }

// Update replaces the display shown earlier with display id id.
func Update(id string, d Data) error { return stdout().Update(id, d) }

// Show displays d under a fresh display id and returns a handle to update it.
func Show(d Data) *Handle { return stdout().Show(d) }

// NewProgress shows a progress bar for total steps and returns it; Set and
// Add update it in place while the cell keeps running.
func NewProgress(title string, total int) *Progress { return stdout().NewProgress(title, total) }

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

// Progress is a live progress bar. It is safe for concurrent use, and
// re-renders only when the whole percentage changes.
type Progress struct {
	mu          sync.Mutex
	h           *Handle
	title       string
	done, total int
	last        int // last rendered percentage
}

// Set records done steps and updates the display if the percentage changed.
func (p *Progress) Set(done int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = done
	if pct := p.percent(); pct != p.last {
		p.last = pct
		return p.h.Update(p.data())
	}
	return nil
}

// Add advances the bar by n steps.
func (p *Progress) Add(n int) error {
	p.mu.Lock()
	done := p.done + n
	p.mu.Unlock()
	return p.Set(done)
}

// ID returns the progress display's id.
func (p *Progress) ID() string { return p.h.ID }

func (p *Progress) percent() int {
	if p.total <= 0 {
		return 100
	}
	return min(100, max(0, p.done*100/p.total))
}

func (p *Progress) data() Data {
	text := fmt.Sprintf("%s: %d/%d (%d%%)", p.title, p.done, p.total, p.percent())
	html := fmt.Sprintf(`<div class="weft-progress"><progress value="%d" max="%d"></progress> %s</div>`,
		p.done, max(p.total, 1), escape(text))
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
