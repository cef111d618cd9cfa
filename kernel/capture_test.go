//go:build unix

package kernel

import (
	"strings"
	"testing"
)

func TestDeliverTakesOutSyncMarks(t *testing.T) {
	k, tr := newTestKernel(t)
	pub := &cellPublisher{k: k, parent: request(t, "execute_request", exec(""))}
	k.setRunning(nil, pub)
	c := &stdoutCapture{k: k, synced: make(chan struct{}, 1)}
	mark := string(syncMark)
	rest := c.deliver([]byte("a" + mark + "b" + mark[:5]))
	if string(rest) != mark[:5] {
		t.Fatalf("kept %q, want the partial mark", rest)
	}
	select {
	case <-c.synced:
	default:
		t.Fatal("the mark was not signalled")
	}
	rest = c.deliver(append(rest, []byte(mark[5:]+"c")...))
	if len(rest) != 0 {
		t.Fatalf("kept %q", rest)
	}
	pub.flush()
	var text strings.Builder
	for _, s := range tr.sent {
		if s.m.Header.MsgType == "stream" {
			text.WriteString(content(t, s.m)["text"].(string))
		}
	}
	if text.String() != "abc" {
		t.Fatalf("forwarded %q, want abc", text.String())
	}
}
