package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// cdp speaks the Chrome DevTools Protocol over Chromium's
// --remote-debugging-pipe: JSON messages ended by a NUL byte, commands
// written to the browser's fd 3 and replies and events read from its fd 4.
type cdp struct {
	w       io.Writer
	wmu     sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	onEvent func(method, session string, params json.RawMessage)
	done    chan struct{} // closed when the read loop ends
	readErr error
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type message struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
	reply
}

func newCDP(w io.Writer, r io.Reader, onEvent func(method, session string, params json.RawMessage)) *cdp {
	c := &cdp{w: w, pending: map[int64]chan reply{}, onEvent: onEvent, done: make(chan struct{})}
	go c.readLoop(r)
	return c
}

func (c *cdp) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		b, err := br.ReadBytes(0)
		if err != nil {
			c.readErr = err
			return
		}
		var m message
		if err := json.Unmarshal(b[:len(b)-1], &m); err != nil {
			c.readErr = fmt.Errorf("browsertest: bad DevTools message: %w", err)
			return
		}
		if m.ID == 0 {
			c.onEvent(m.Method, m.SessionID, m.Params)
			continue
		}
		c.mu.Lock()
		ch := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m.reply
		}
	}
}

// call sends one command (to a page session when session is not empty) and
// decodes its result into out (which may be nil).
func (c *cdp) call(ctx context.Context, session, method string, params, out any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan reply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	_, err = c.w.Write(append(b, 0))
	c.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("browsertest: %s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("browsertest: %s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-c.done:
		if c.readErr != nil {
			return fmt.Errorf("browsertest: %s: browser connection ended: %w", method, c.readErr)
		}
		return errors.New("browsertest: " + method + ": browser connection ended")
	case <-ctx.Done():
		return fmt.Errorf("browsertest: %s: %w", method, ctx.Err())
	}
}
