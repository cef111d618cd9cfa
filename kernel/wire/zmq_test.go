package wire

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// freePorts returns n TCP ports free on 127.0.0.1 at the time of the call.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		defer l.Close()
	}
	return ports
}

// syncBuffer is a goroutine-safe log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSocketsRejectBadSignatureAndEcho(t *testing.T) {
	p := freePorts(t, 5)
	ci := ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", ShellPort: p[0], ControlPort: p[1], StdinPort: p[2],
		IOPubPort: p[3], HBPort: p[4], Key: "right", SignatureScheme: "hmac-sha256"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log syncBuffer
	socks, err := Listen(ctx, ci, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer socks.Close()
	got := make(chan *Message, 4)
	go socks.Serve(ctx, func(ch Channel, m *Message) {
		if ch == Shell {
			got <- m
			socks.Send(Shell, Reply(m, "k", "kernel_info_reply", map[string]any{"status": "ok"}))
		}
	})

	dealer := zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("client")))
	defer dealer.Close()
	if err := dealer.Dial(ci.Endpoint(ci.ShellPort)); err != nil {
		t.Fatal(err)
	}
	wrong, _ := NewSigner("hmac-sha256", []byte("wrong"))
	right, _ := ci.Signer()
	for _, s := range []Signer{wrong, right} {
		frames, _ := s.Encode(&Message{Header: NewHeader("c", "kernel_info_request")})
		if err := dealer.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case m := <-got:
		if m.Header.MsgType != "kernel_info_request" || string(m.Identities[0]) != "client" {
			t.Fatalf("handler got %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the correctly signed message never arrived")
	}
	reply, err := dealer.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := right.Decode(reply.Frames); err != nil || m.Header.MsgType != "kernel_info_reply" {
		t.Fatalf("reply %v %v", m, err)
	}
	select {
	case m := <-got:
		t.Fatalf("a second message reached the handler: %+v", m.Header)
	default:
	}
	if !strings.Contains(log.String(), "rejected message on shell: wire: bad signature") {
		t.Fatalf("log = %q, want the rejection", log.String())
	}

	req := zmq4.NewReq(ctx)
	defer req.Close()
	if err := req.Dial(ci.Endpoint(ci.HBPort)); err != nil {
		t.Fatal(err)
	}
	if err := req.Send(zmq4.NewMsgString("ping")); err != nil {
		t.Fatal(err)
	}
	if echo, err := req.Recv(); err != nil || string(echo.Bytes()) != "ping" {
		t.Fatalf("heartbeat echo %q %v", echo.Bytes(), err)
	}
}

func TestChannelString(t *testing.T) {
	for ch, want := range map[Channel]string{Shell: "shell", Control: "control", Stdin: "stdin", IOPub: "iopub", Heartbeat: "hb", 9: "channel(9)"} {
		if ch.String() != want {
			t.Errorf("%d: %s, want %s", int(ch), ch, want)
		}
	}
}
