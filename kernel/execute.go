package kernel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/weft-mc/weft/kernel/display"
	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/wire"
)

// executeRequest is the content of execute_request.
type executeRequest struct {
	Code         string `json:"code"`
	Silent       bool   `json:"silent"`
	StoreHistory *bool  `json:"store_history"`
	AllowStdin   bool   `json:"allow_stdin"`
	StopOnError  *bool  `json:"stop_on_error"`
}

// execute answers execute_request: execute_input, the cell's streams and
// displays, then execute_result or error, then execute_reply.
func (k *Kernel) execute(ch wire.Channel, m *wire.Message) error {
	var req executeRequest
	if err := m.DecodeContent(&req); err != nil {
		return err
	}
	if k.abortable(m) {
		return k.reply(ch, m, "execute_reply", map[string]any{"status": "aborted", "execution_count": k.currentCount()})
	}
	store := !req.Silent && (req.StoreHistory == nil || *req.StoreHistory)
	count := k.nextCount(store, req.Code)
	if !req.Silent {
		k.publish(m, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}
	run, ctx := newCellRun()
	pub := &cellPublisher{k: k, parent: m, ctx: ctx, allowStdin: req.AllowStdin, silent: req.Silent}
	k.setRunning(run, pub)
	res, err := k.eng.Execute(engine.WithWork(ctx, run.work), req.Code, pub)
	k.syncStdout()
	k.setRunning(nil, nil)
	pub.flush()
	run.end()
	if run.interrupted.Load() {
		// A cell that returned after an interrupt shows what it made
		// (a campaign's partial summary), then ends as interrupted.
		if err == nil && res.HasValue && !req.Silent {
			k.publish(m, "execute_result", map[string]any{
				"execution_count": count, "data": res.Data.Data, "metadata": orEmpty(res.Data.Metadata),
			})
		}
		err = interruptedError(run, err)
	}
	if err != nil {
		if req.StopOnError == nil || *req.StopOnError {
			k.setFailedAt(time.Now())
		}
		return k.executeError(ch, m, count, err)
	}
	if res.HasValue && !req.Silent {
		k.publish(m, "execute_result", map[string]any{
			"execution_count": count, "data": res.Data.Data, "metadata": orEmpty(res.Data.Metadata),
		})
	}
	payload := []any{}
	if res.Page != "" {
		payload = append(payload, map[string]any{"source": "page", "data": map[string]any{"text/plain": res.Page}, "start": 0})
	}
	return k.reply(ch, m, "execute_reply", map[string]any{
		"status": "ok", "execution_count": count, "user_expressions": map[string]any{}, "payload": payload,
	})
}

// executeError publishes a cell's error and sends the error reply.
func (k *Kernel) executeError(ch wire.Channel, m *wire.Message, count int, err error) error {
	var ee *engine.Error
	if !errors.As(err, &ee) {
		ee = &engine.Error{Name: "Error", Value: err.Error(), Traceback: []string{err.Error()}}
	}
	content := map[string]any{"ename": ee.Name, "evalue": ee.Value, "traceback": ee.Traceback}
	k.publish(m, "error", content)
	content["status"] = "error"
	content["execution_count"] = count
	return k.reply(ch, m, "execute_reply", content)
}

// abortable reports whether m was sent before a cell failed with
// stop_on_error: like ipykernel, the kernel then aborts the requests queued
// behind the failed cell (as "Run All" sends them) instead of running them
// on broken state. The header date tells which were sent before.
func (k *Kernel) abortable(m *wire.Message) bool {
	k.mu.Lock()
	failed := k.failedAt
	k.mu.Unlock()
	sent, err := time.Parse(time.RFC3339Nano, m.Header.Date)
	return err == nil && !failed.IsZero() && sent.Before(failed)
}

func (k *Kernel) setFailedAt(t time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failedAt = t
}

func (k *Kernel) currentCount() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.count
}

// nextCount advances the execution count when the cell is stored, and
// records the cell in the history.
func (k *Kernel) nextCount(store bool, code string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if store {
		k.count++
		k.history = append(k.history, historyEntry{line: k.count, code: code})
	}
	return k.count
}

// syncStdout waits until the cell's output to file descriptor 1 is forwarded.
func (k *Kernel) syncStdout() {
	k.mu.Lock()
	sync := k.stdoutSync
	k.mu.Unlock()
	if sync != nil {
		sync()
	}
}

func (k *Kernel) setRunning(r *cellRun, p *cellPublisher) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.run, k.cell = r, p
}

// interruptedError is the error of an interrupted cell: Interrupted, with
// what became of the cell's work, and the cell's own error, if any, in the
// traceback.
func interruptedError(r *cellRun, err error) error {
	msg := r.interruptedMessage()
	tb := []string{"Interrupted: " + msg}
	var ee *engine.Error
	if errors.As(err, &ee) && ee.Name != "Interrupted" {
		tb = append(tb, "the cell's error after the interrupt:")
		tb = append(tb, ee.Traceback...)
	} else if err != nil && ee == nil {
		tb = append(tb, "the cell's error after the interrupt: "+err.Error())
	}
	return &engine.Error{Name: "Interrupted", Value: msg, Traceback: tb}
}

func orEmpty(m display.MIMEMap) display.MIMEMap {
	if m == nil {
		return display.MIMEMap{}
	}
	return m
}

// flushDelay bounds how long stream output waits before it is sent; writes
// within it are coalesced into one stream message.
const flushDelay = 50 * time.Millisecond

// cellPublisher is the engine.Publisher of one execute_request: it
// coalesces stream output and sends displays on IOPub with the request as
// parent, and asks for input on stdin.
type cellPublisher struct {
	k          *Kernel
	parent     *wire.Message
	ctx        context.Context
	allowStdin bool
	silent     bool

	mu      sync.Mutex
	pending map[string][]byte // stream name -> unsent text
	order   []string          // stream names in first-write order
	timer   *time.Timer
}

// Stream implements engine.Publisher.
func (p *cellPublisher) Stream(name, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.pending = map[string][]byte{}
	}
	if _, ok := p.pending[name]; !ok {
		p.order = append(p.order, name)
	}
	p.pending[name] = append(p.pending[name], text...)
	if p.timer == nil {
		p.timer = time.AfterFunc(flushDelay, p.flush)
	}
}

// flush sends pending stream text.
func (p *cellPublisher) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	for _, name := range p.order {
		if text := p.pending[name]; len(text) > 0 && !p.silent {
			p.k.publish(p.parent, "stream", map[string]any{"name": name, "text": string(text)})
		}
	}
	p.pending, p.order = nil, nil
}

// Display implements display.Output: display_data, after pending streams.
func (p *cellPublisher) Display(d display.Data) error {
	p.flush()
	return p.k.publish(p.parent, "display_data", displayContent(d))
}

// Clear implements engine.Publisher: clear_output, after pending streams.
func (p *cellPublisher) Clear(wait bool) error {
	p.flush()
	return p.k.publish(p.parent, "clear_output", map[string]any{"wait": wait})
}

// Update implements display.Output: update_display_data.
func (p *cellPublisher) Update(id string, d display.Data) error {
	p.flush()
	d = display.WithID(id, d)
	return p.k.publish(p.parent, "update_display_data", displayContent(d))
}

func displayContent(d display.Data) map[string]any {
	c := map[string]any{"data": d.Data, "metadata": orEmpty(d.Metadata)}
	if len(d.Transient) > 0 {
		c["transient"] = d.Transient
	}
	return c
}

// Input implements engine.Publisher: input_request on stdin, then wait for
// the input_reply (or an interrupt).
func (p *cellPublisher) Input(prompt string, password bool) (string, error) {
	if !p.allowStdin {
		return "", errors.New("kernel: this front end does not allow input")
	}
	p.flush()
	req := wire.Reply(p.parent, p.k.session, "input_request", map[string]any{"prompt": prompt, "password": password})
	if err := p.k.t.Send(wire.Stdin, req); err != nil {
		return "", err
	}
	select {
	case <-p.ctx.Done():
		return "", p.ctx.Err()
	case m := <-p.k.inputs:
		var rep struct {
			Value string `json:"value"`
		}
		if err := m.DecodeContent(&rep); err != nil {
			return "", fmt.Errorf("kernel: input_reply: %w", err)
		}
		return rep.Value, nil
	}
}
