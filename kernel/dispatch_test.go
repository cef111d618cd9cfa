package kernel

import (
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/wire"
)

// memTransport is an in-memory Transport: every message is framed and
// signed, then decoded again, exactly as over ZeroMQ, and recorded.
type memTransport struct {
	signer  wire.Signer
	mu      sync.Mutex
	sent    []sentMsg
	onStdin func(m *wire.Message) // answers input_request, if set
}

type sentMsg struct {
	ch wire.Channel
	m  *wire.Message
}

func (t *memTransport) Send(ch wire.Channel, m *wire.Message) error {
	frames, err := t.signer.Encode(m)
	if err != nil {
		return err
	}
	back, err := t.signer.Decode(frames)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.sent = append(t.sent, sentMsg{ch, back})
	t.mu.Unlock()
	if ch == wire.Stdin && t.onStdin != nil {
		go t.onStdin(back)
	}
	return nil
}

// of returns the messages sent whose parent is req, in order.
func (t *memTransport) of(req *wire.Message) []sentMsg {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []sentMsg
	for _, s := range t.sent {
		if s.m.Parent.MsgID == req.Header.MsgID {
			out = append(out, s)
		}
	}
	return out
}

func newTestKernel(t *testing.T) (*Kernel, *memTransport) {
	t.Helper()
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := wire.NewSigner("hmac-sha256", []byte("test-key"))
	tr := &memTransport{signer: signer}
	return New(tr, eng, io.Discard), tr
}

// request builds a client request as it arrives after decoding.
func request(t *testing.T, msgType string, content any) *wire.Message {
	t.Helper()
	signer := wire.Signer{}
	frames, err := signer.Encode(&wire.Message{
		Identities: [][]byte{[]byte("client")},
		Header:     wire.NewHeader("client-session", msgType),
		Content:    content,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := signer.Decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func content(t *testing.T, m *wire.Message) map[string]any {
	t.Helper()
	var c map[string]any
	if err := m.DecodeContent(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

func types(msgs []sentMsg) []string {
	var out []string
	for _, s := range msgs {
		out = append(out, s.ch.String()+":"+s.m.Header.MsgType)
	}
	return out
}

func exec(code string) map[string]any {
	return map[string]any{"code": code, "silent": false, "store_history": true, "allow_stdin": false}
}

func TestDispatchReplies(t *testing.T) {
	k, tr := newTestKernel(t)
	k.Handle(wire.Shell, request(t, "execute_request", exec(`import "strings"`+"\nvalue := 7")))
	tests := []struct {
		msgType string
		ch      wire.Channel
		content map[string]any
		reply   string
		check   func(c map[string]any) bool
	}{
		{"kernel_info_request", wire.Shell, nil, "kernel_info_reply", func(c map[string]any) bool {
			li, _ := c["language_info"].(map[string]any)
			return c["status"] == "ok" && c["protocol_version"] == "5.3" && li["name"] == "go"
		}},
		{"kernel_info_request", wire.Control, nil, "kernel_info_reply", func(c map[string]any) bool { return c["status"] == "ok" }},
		{"complete_request", wire.Shell, map[string]any{"code": "strings.ToL", "cursor_pos": 11}, "complete_reply", func(c map[string]any) bool {
			return slices.Contains(asStrings(c["matches"]), "ToLower") && c["cursor_start"] == 8.0 && c["cursor_end"] == 11.0
		}},
		{"complete_request", wire.Shell, map[string]any{"code": "x := val", "cursor_pos": 8}, "complete_reply", func(c map[string]any) bool {
			return slices.Equal(asStrings(c["matches"]), []string{"value"}) && c["cursor_start"] == 5.0
		}},
		{"inspect_request", wire.Shell, map[string]any{"code": "value", "cursor_pos": 2, "detail_level": 0}, "inspect_reply", func(c map[string]any) bool {
			d, _ := c["data"].(map[string]any)
			return c["found"] == true && strings.Contains(d["text/plain"].(string), "int = 7")
		}},
		{"inspect_request", wire.Shell, map[string]any{"code": "nosuch", "cursor_pos": 2}, "inspect_reply", func(c map[string]any) bool { return c["found"] == false }},
		{"is_complete_request", wire.Shell, map[string]any{"code": "for {"}, "is_complete_reply", func(c map[string]any) bool { return c["status"] == "incomplete" && c["indent"] == "\t" }},
		{"is_complete_request", wire.Shell, map[string]any{"code": "x := 1"}, "is_complete_reply", func(c map[string]any) bool { return c["status"] == "complete" }},
		{"is_complete_request", wire.Shell, map[string]any{"code": "x := )"}, "is_complete_reply", func(c map[string]any) bool { return c["status"] == "invalid" }},
		{"history_request", wire.Shell, map[string]any{"hist_access_type": "tail", "n": 5, "output": false}, "history_reply", func(c map[string]any) bool {
			h, _ := c["history"].([]any)
			return len(h) == 1 && h[0].([]any)[1] == 1.0
		}},
		{"comm_info_request", wire.Shell, map[string]any{}, "comm_info_reply", func(c map[string]any) bool {
			return c["status"] == "ok" && len(c["comms"].(map[string]any)) == 0
		}},
		{"interrupt_request", wire.Control, map[string]any{}, "interrupt_reply", func(c map[string]any) bool { return c["status"] == "ok" }},
	}
	for _, tc := range tests {
		t.Run(tc.msgType+"/"+tc.ch.String(), func(t *testing.T) {
			req := request(t, tc.msgType, tc.content)
			k.Handle(tc.ch, req)
			want := []string{"iopub:status", tc.ch.String() + ":" + tc.reply, "iopub:status"}
			got := tr.of(req)
			if !slices.Equal(types(got), want) {
				t.Fatalf("sent %v, want %v", types(got), want)
			}
			if string(got[1].m.Identities[0]) != "client" {
				t.Errorf("reply not routed to the requester: %q", got[1].m.Identities)
			}
			if c := content(t, got[1].m); !tc.check(c) {
				t.Errorf("reply content %v", c)
			}
		})
	}
}

func asStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestExecuteMessages(t *testing.T) {
	k, tr := newTestKernel(t)
	tests := []struct {
		code   string
		silent bool
		want   []string
		count  float64
		status string
	}{
		{code: "n := 20", want: []string{"iopub:status", "iopub:execute_input", "shell:execute_reply", "iopub:status"}, count: 1, status: "ok"},
		{code: "n * 2", want: []string{"iopub:status", "iopub:execute_input", "iopub:execute_result", "shell:execute_reply", "iopub:status"}, count: 2, status: "ok"},
		{code: "n * 3", silent: true, want: []string{"iopub:status", "shell:execute_reply", "iopub:status"}, count: 2, status: "ok"},
		{code: "import \"fmt\"\nfmt.Print(\"a\")\nfmt.Print(\"b\")\ndisplay.Display(display.HTML(\"<p/>\"))", want: []string{"iopub:status", "iopub:execute_input", "iopub:stream", "iopub:display_data", "shell:execute_reply", "iopub:status"}, count: 3, status: "ok"},
		// yaegi's panic frames go to the traceback, not to stderr.
		{code: "var m map[string]int\nm[\"a\"] = 1", want: []string{"iopub:status", "iopub:execute_input", "iopub:error", "shell:execute_reply", "iopub:status"}, count: 4, status: "error"},
		{code: "n", want: []string{"iopub:status", "iopub:execute_input", "iopub:execute_result", "shell:execute_reply", "iopub:status"}, count: 5, status: "ok"},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			c := exec(tc.code)
			c["silent"] = tc.silent
			req := request(t, "execute_request", c)
			k.Handle(wire.Shell, req)
			got := tr.of(req)
			if !slices.Equal(types(got), tc.want) {
				t.Fatalf("sent %v, want %v", types(got), tc.want)
			}
			reply := content(t, got[len(got)-2].m)
			if reply["execution_count"] != tc.count || reply["status"] != tc.status {
				t.Errorf("reply %v, want count %v status %s", reply, tc.count, tc.status)
			}
			if tc.status == "error" {
				if tb, _ := reply["traceback"].([]any); len(tb) == 0 || reply["ename"] != "panic" {
					t.Errorf("error reply %v lacks ename/traceback", reply)
				}
			}
		})
	}
}

func TestStreamsAreCoalesced(t *testing.T) {
	k, tr := newTestKernel(t)
	req := request(t, "execute_request", exec("import \"fmt\"\nfor i := 0; i < 100; i++ { fmt.Print(i%10) }"))
	k.Handle(wire.Shell, req)
	var text string
	n := 0
	for _, s := range tr.of(req) {
		if s.m.Header.MsgType == "stream" {
			n++
			text += content(t, s.m)["text"].(string)
		}
	}
	if n != 1 || text != strings.Repeat("0123456789", 10) {
		t.Fatalf("%d stream messages with %q, want one with all 100 digits", n, text)
	}
}

func TestInterruptDuringExecute(t *testing.T) {
	k, tr := newTestKernel(t)
	req := request(t, "execute_request", exec("spin := 0\nfor { spin++ }"))
	done := make(chan struct{})
	go func() { k.Handle(wire.Shell, req); close(done) }()
	// Interrupt until the cell's reply arrives: the first interrupt may
	// come before the cell starts.
	for stop := false; !stop; {
		k.Handle(wire.Control, request(t, "interrupt_request", map[string]any{}))
		select {
		case <-done:
			stop = true
		case <-time.After(50 * time.Millisecond):
		}
	}
	got := tr.of(req)
	reply := content(t, got[len(got)-2].m)
	if reply["status"] != "error" || reply["ename"] != "Interrupted" {
		t.Fatalf("reply %v, want an Interrupted error", reply)
	}
	after := request(t, "execute_request", exec("spin > 0"))
	k.Handle(wire.Shell, after)
	var res map[string]any
	for _, s := range tr.of(after) {
		if s.m.Header.MsgType == "execute_result" {
			res = content(t, s.m)
		}
	}
	if res == nil || res["data"].(map[string]any)["text/plain"] != "true" {
		t.Fatalf("after interrupt: %v", res)
	}
}

func TestInputRequest(t *testing.T) {
	k, tr := newTestKernel(t)
	tr.onStdin = func(m *wire.Message) {
		if m.Header.MsgType == "input_request" && string(m.Identities[0]) == "client" {
			rep := request(t, "input_reply", map[string]any{"value": "gopher"})
			k.Handle(wire.Stdin, rep)
		}
	}
	c := exec("import \"fmt\"\nvar who string\nfmt.Scanln(&who)\n\"hello \" + who")
	c["allow_stdin"] = true
	req := request(t, "execute_request", c)
	k.Handle(wire.Shell, req)
	var res map[string]any
	for _, s := range tr.of(req) {
		if s.m.Header.MsgType == "execute_result" {
			res = content(t, s.m)
		}
	}
	if res == nil || res["data"].(map[string]any)["text/plain"] != "hello gopher" {
		t.Fatalf("result %v", res)
	}
}

func TestShutdown(t *testing.T) {
	for _, restart := range []bool{false, true} {
		k, tr := newTestKernel(t)
		req := request(t, "shutdown_request", map[string]any{"restart": restart})
		k.Handle(wire.Control, req)
		select {
		case <-k.Done():
		default:
			t.Fatal("Done not closed after shutdown_request")
		}
		got := tr.of(req)
		if c := content(t, got[1].m); got[1].m.Header.MsgType != "shutdown_reply" || c["restart"] != restart || k.Restart() != restart {
			t.Fatalf("reply %v %v", got[1].m.Header.MsgType, c)
		}
	}
}

func TestUnknownMessageIsIgnored(t *testing.T) {
	k, tr := newTestKernel(t)
	req := request(t, "no_such_request", map[string]any{})
	k.Handle(wire.Shell, req)
	if got := tr.of(req); len(got) != 0 {
		t.Fatalf("sent %v for an unknown message", types(got))
	}
}

func TestCommOpenIsClosed(t *testing.T) {
	k, tr := newTestKernel(t)
	req := request(t, "comm_open", map[string]any{"comm_id": "c1", "target_name": "jupyter.widget", "data": map[string]any{}})
	k.Handle(wire.Shell, req)
	got := tr.of(req)
	if !slices.Contains(types(got), "iopub:comm_close") {
		t.Fatalf("sent %v, want comm_close", types(got))
	}
}

func TestDisplayUpdateMessages(t *testing.T) {
	k, tr := newTestKernel(t)
	req := request(t, "execute_request", exec("p := display.NewProgress(\"seeds\", 2)\np.Set(1)\np.Set(2)"))
	k.Handle(wire.Shell, req)
	var id string
	updates := 0
	for _, s := range tr.of(req) {
		c := content(t, s.m)
		transient, _ := c["transient"].(map[string]any)
		switch s.m.Header.MsgType {
		case "display_data":
			id, _ = transient["display_id"].(string)
		case "update_display_data":
			if transient["display_id"] != id || id == "" {
				t.Errorf("update of %v, displayed %q", transient["display_id"], id)
			}
			updates++
		}
	}
	if updates != 2 {
		t.Fatalf("%d updates, want 2", updates)
	}
}
