package kernel

import (
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/wire"
)

// TestInterruptSteps interrupts cells once they run: one whose work
// listens to display.Context() and returns when it is cancelled (the rest
// of the cell runs, its value is shown, and it ends Interrupted), one that
// listens but never returns (stopped after the grace periods), and one
// that does not listen (stopped at once). The next cell sees what the
// interrupted one defined.
func TestInterruptSteps(t *testing.T) {
	tests := []struct {
		name, code string
		listens    bool
		evalue     string // the start of the error's evalue
		result     string // the interrupted cell's text/plain result, if any
		after      string // the next cell's text/plain result
	}{
		{"returns when cancelled", "ctx := display.Context()\n<-ctx.Done()\nreturned := \"yes\"\nreturned", true,
			"interrupted: display.Context() was cancelled", "yes", "yes"},
		{"listens but never returns", "seen := display.Context().Err() == nil\nfor {}", true,
			"interrupted: the cell was stopped", "", "true"},
		{"does not listen", "spun := 0\nfor { spun = 1 }", false,
			"interrupted: the cell was stopped", "", "true"},
	}
	after := map[string]string{"returns when cancelled": "returned", "listens but never returns": "seen", "does not listen": "spun == 1"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, tr := newTestKernel(t)
			req := request(t, "execute_request", exec("import \"fmt\"\nfmt.Println(\"started\")\n"+tc.code))
			done := make(chan struct{})
			go func() { k.Handle(wire.Shell, req); close(done) }()
			awaitRunning(t, k, tr, req, tc.listens)
			k.Handle(wire.Control, request(t, "interrupt_request", map[string]any{}))
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("the interrupted cell did not end within 60 s")
			}
			var result string
			var reply map[string]any
			for _, s := range tr.of(req) {
				switch s.m.Header.MsgType {
				case "execute_result":
					result = plainText(content(t, s.m))
				case "execute_reply":
					reply = content(t, s.m)
				}
			}
			if reply["ename"] != "Interrupted" || !strings.HasPrefix(reply["evalue"].(string), tc.evalue) {
				t.Fatalf("reply %v, want Interrupted with %q", reply, tc.evalue)
			}
			if result != tc.result {
				t.Errorf("interrupted cell's result %q, want %q", result, tc.result)
			}
			next := request(t, "execute_request", exec(after[tc.name]))
			k.Handle(wire.Shell, next)
			var got string
			for _, s := range tr.of(next) {
				if s.m.Header.MsgType == "execute_result" {
					got = plainText(content(t, s.m))
				}
			}
			if got != tc.after {
				t.Errorf("next cell %q = %q, want %q", after[tc.name], got, tc.after)
			}
		})
	}
}

// awaitRunning waits until the cell req has printed "started" and, with
// listens, until it has asked for its display.Context()'s cancellation.
func awaitRunning(t *testing.T, k *Kernel, tr *memTransport, req *wire.Message, listens bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		k.mu.Lock()
		r := k.run
		k.mu.Unlock()
		started := false
		for _, s := range tr.of(req) {
			started = started || s.m.Header.MsgType == "stream" && strings.Contains(content(t, s.m)["text"].(string), "started")
		}
		if started && r != nil && (!listens || r.work.watched.Load()) {
			return
		}
	}
	t.Fatal("the cell did not start within 60 s")
}

func plainText(c map[string]any) string {
	d, _ := c["data"].(map[string]any)
	s, _ := d["text/plain"].(string)
	return s
}
