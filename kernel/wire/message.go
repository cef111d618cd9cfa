// Package wire implements the Jupyter messaging protocol's wire format
// (version 5.3): message framing, HMAC-SHA256 signing and the connection
// file. It knows nothing about sockets; see zmq.go for the ZeroMQ
// transport built on it.
//
// A message on a ROUTER socket is a list of frames:
//
//	identities… "<IDS|MSG>" signature header parent_header metadata content buffers…
//
// The signature is the hex HMAC-SHA256, under the connection key, of the
// four JSON frames header … content concatenated.
package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ProtocolVersion is the messaging protocol version weft speaks.
const ProtocolVersion = "5.3"

// delimiter separates routing identities from the signed part of a message.
var delimiter = []byte("<IDS|MSG>")

// Header is a message header.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one decoded Jupyter message. Content and Metadata are kept as
// raw JSON on receipt; on send, Content may be any JSON-encodable value.
type Message struct {
	Identities [][]byte
	Header     Header
	Parent     Header
	Metadata   map[string]any
	Content    any
	Buffers    [][]byte
}

// Errors returned by Decode.
var (
	ErrNoDelimiter  = errors.New("wire: no <IDS|MSG> delimiter")
	ErrShort        = errors.New("wire: fewer than 5 frames after the delimiter")
	ErrBadSignature = errors.New("wire: bad signature")
)

// Signer signs and verifies messages with one connection key. An empty key
// disables signing, as the protocol allows.
type Signer struct {
	key []byte
}

// NewSigner returns a Signer for key and the scheme from the connection
// file; only "hmac-sha256" (or "" with an empty key) is supported.
func NewSigner(scheme string, key []byte) (Signer, error) {
	if len(key) > 0 && scheme != "hmac-sha256" {
		return Signer{}, fmt.Errorf("wire: unsupported signature scheme %q", scheme)
	}
	return Signer{key: append([]byte(nil), key...)}, nil
}

// Sign returns the hex signature of the four JSON frames.
func (s Signer) Sign(frames ...[]byte) []byte {
	if len(s.key) == 0 {
		return nil
	}
	mac := hmac.New(sha256.New, s.key)
	for _, f := range frames {
		mac.Write(f)
	}
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// Verify reports whether sig is the signature of frames, in constant time.
func (s Signer) Verify(sig []byte, frames ...[]byte) bool {
	if len(s.key) == 0 {
		return true
	}
	return hmac.Equal(sig, s.Sign(frames...))
}

// Encode serialises m into frames, signed by s.
func (s Signer) Encode(m *Message) ([][]byte, error) {
	var parts [4][]byte
	meta := m.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	content := m.Content
	if content == nil {
		content = map[string]any{}
	}
	for i, v := range []any{m.Header, parentOrEmpty(m.Parent), meta, content} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("wire: encode %s: %w", m.Header.MsgType, err)
		}
		parts[i] = b
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, delimiter, s.Sign(parts[:]...))
	frames = append(frames, parts[:]...)
	return append(frames, m.Buffers...), nil
}

// parentOrEmpty encodes a zero parent header as {} as the protocol asks.
func parentOrEmpty(h Header) any {
	if h.MsgID == "" {
		return map[string]any{}
	}
	return h
}

// Decode parses frames received on a ROUTER or SUB socket and checks the
// signature. Content is left as json.RawMessage; use DecodeContent.
func (s Signer) Decode(frames [][]byte) (*Message, error) {
	i := 0
	for i < len(frames) && !bytes.Equal(frames[i], delimiter) {
		i++
	}
	if i == len(frames) {
		return nil, ErrNoDelimiter
	}
	rest := frames[i+1:]
	if len(rest) < 5 {
		return nil, ErrShort
	}
	if !s.Verify(rest[0], rest[1:5]...) {
		return nil, ErrBadSignature
	}
	m := &Message{Identities: frames[:i], Content: json.RawMessage(rest[4])}
	if err := json.Unmarshal(rest[1], &m.Header); err != nil {
		return nil, fmt.Errorf("wire: header: %w", err)
	}
	// An empty parent ({}) leaves Parent zero.
	if err := json.Unmarshal(rest[2], &m.Parent); err != nil {
		return nil, fmt.Errorf("wire: parent header: %w", err)
	}
	if err := json.Unmarshal(rest[3], &m.Metadata); err != nil {
		return nil, fmt.Errorf("wire: metadata: %w", err)
	}
	m.Buffers = rest[5:]
	return m, nil
}

// DecodeContent unmarshals m's content into v.
func (m *Message) DecodeContent(v any) error {
	raw, ok := m.Content.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(m.Content)
		if err != nil {
			return err
		}
		raw = b
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("wire: %s content: %w", m.Header.MsgType, err)
	}
	return nil
}

// NewID returns a fresh random message or session id (UUID v4 text).
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("wire: crypto/rand: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Reply builds a message of type msgType answering parent: same identities
// (so a ROUTER routes it back), parent header set, and the given session.
func Reply(parent *Message, session, msgType string, content any) *Message {
	return &Message{
		Identities: parent.Identities,
		Header:     NewHeader(session, msgType),
		Parent:     parent.Header,
		Content:    content,
	}
}

// NewHeader returns a fresh header of msgType for session.
func NewHeader(session, msgType string) Header {
	return Header{
		MsgID:    NewID(),
		Session:  session,
		Username: "weft",
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}
