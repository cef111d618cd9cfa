package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-zeromq/zmq4"
)

// Channel names one of a kernel's sockets.
type Channel int

// The kernel's channels.
const (
	Shell Channel = iota
	Control
	Stdin
	IOPub
	Heartbeat
)

var channelNames = [...]string{"shell", "control", "stdin", "iopub", "hb"}

// String returns the channel's protocol name.
func (c Channel) String() string {
	if c < 0 || int(c) >= len(channelNames) {
		return fmt.Sprintf("channel(%d)", int(c))
	}
	return channelNames[c]
}

// Handler receives each verified message from shell, control or stdin. The
// three channels are served by separate goroutines; messages of one channel
// arrive in order, one at a time.
type Handler func(ch Channel, m *Message)

// Sockets are a kernel's five bound ZeroMQ sockets.
type Sockets struct {
	signer Signer
	log    io.Writer
	socks  [5]zmq4.Socket
	mu     [5]sync.Mutex // one send lock per socket: zmq4 sockets are not safe for concurrent sends
}

// Listen binds the five sockets described by ci. Rejected messages (bad
// signature, bad framing) are reported on log and dropped.
func Listen(ctx context.Context, ci ConnectionInfo, log io.Writer) (*Sockets, error) {
	signer, err := ci.Signer()
	if err != nil {
		return nil, err
	}
	s := &Sockets{signer: signer, log: log}
	s.socks[Shell] = zmq4.NewRouter(ctx)
	s.socks[Control] = zmq4.NewRouter(ctx)
	s.socks[Stdin] = zmq4.NewRouter(ctx)
	s.socks[IOPub] = zmq4.NewPub(ctx)
	s.socks[Heartbeat] = zmq4.NewRep(ctx)
	ports := [5]int{ci.ShellPort, ci.ControlPort, ci.StdinPort, ci.IOPubPort, ci.HBPort}
	for ch, sock := range s.socks {
		if err := sock.Listen(ci.Endpoint(ports[ch])); err != nil {
			s.Close()
			return nil, fmt.Errorf("wire: listen %s on %s: %w", Channel(ch), ci.Endpoint(ports[ch]), err)
		}
	}
	return s, nil
}

// Send signs m and sends it on ch. On IOPub the first frame is the topic
// (the message type), as ipykernel does.
func (s *Sockets) Send(ch Channel, m *Message) error {
	frames, err := s.signer.Encode(m)
	if err != nil {
		return err
	}
	if ch == IOPub && len(m.Identities) == 0 {
		frames = append([][]byte{[]byte("kernel." + m.Header.MsgType)}, frames...)
	}
	s.mu[ch].Lock()
	defer s.mu[ch].Unlock()
	return s.socks[ch].SendMulti(zmq4.NewMsgFrom(frames...))
}

// Serve runs the receive loops of shell, control and stdin and the
// heartbeat echo until ctx ends or a socket fails, calling h for every
// message whose signature verifies.
func (s *Sockets) Serve(ctx context.Context, h Handler) error {
	errc := make(chan error, 4)
	for _, ch := range []Channel{Shell, Control, Stdin} {
		go func() { errc <- s.recvLoop(ch, h) }()
	}
	go func() { errc <- s.heartbeat() }()
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
}

func (s *Sockets) recvLoop(ch Channel, h Handler) error {
	for {
		msg, err := s.socks[ch].Recv()
		if err != nil {
			return fmt.Errorf("wire: recv %s: %w", ch, err)
		}
		m, err := s.signer.Decode(msg.Frames)
		if err != nil {
			fmt.Fprintf(s.log, "weft kernel: rejected message on %s: %v\n", ch, err)
			continue
		}
		h(ch, m)
	}
}

func (s *Sockets) heartbeat() error {
	for {
		msg, err := s.socks[Heartbeat].Recv()
		if err != nil {
			return fmt.Errorf("wire: recv hb: %w", err)
		}
		s.mu[Heartbeat].Lock()
		err = s.socks[Heartbeat].Send(msg)
		s.mu[Heartbeat].Unlock()
		if err != nil {
			return fmt.Errorf("wire: send hb: %w", err)
		}
	}
}

// Close closes every socket.
func (s *Sockets) Close() error {
	var errs []error
	for _, sock := range s.socks {
		if sock != nil {
			errs = append(errs, sock.Close())
		}
	}
	return errors.Join(errs...)
}
