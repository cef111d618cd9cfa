package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSignKnownVector(t *testing.T) {
	// Expected value from OpenSSL 3.0 (Debian 12):
	//   printf '%s' '{"msg_id":"1"}{}{}{"code":"1+1"}' | openssl dgst -sha256 -hmac secret-key
	s, err := NewSigner("hmac-sha256", []byte("secret-key"))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Sign([]byte(`{"msg_id":"1"}`), []byte("{}"), []byte("{}"), []byte(`{"code":"1+1"}`))
	const want = "f29edc2ae347e99e996cf426a9068abd72bbac08f131d7b7d863f0430600434a"
	if string(got) != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", []byte("k"))
	parent := Header{MsgID: "p1", Session: "s", MsgType: "execute_request", Version: ProtocolVersion}
	m := &Message{
		Identities: [][]byte{[]byte("id-a"), []byte("id-b")},
		Header:     NewHeader("sess", "execute_reply"),
		Parent:     parent,
		Metadata:   map[string]any{"k": "v"},
		Content:    map[string]any{"status": "ok", "execution_count": 3},
		Buffers:    [][]byte{{1, 2, 3}},
	}
	frames, err := s.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(frames[2], delimiter) {
		t.Fatalf("frame 2 = %q, want the delimiter after two identities", frames[2])
	}
	got, err := s.Decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	var content struct {
		Status string `json:"status"`
		Count  int    `json:"execution_count"`
	}
	if err := got.DecodeContent(&content); err != nil {
		t.Fatal(err)
	}
	switch {
	case len(got.Identities) != 2 || string(got.Identities[1]) != "id-b":
		t.Errorf("identities = %q", got.Identities)
	case got.Header != m.Header || got.Parent != parent:
		t.Errorf("headers = %+v / %+v", got.Header, got.Parent)
	case content.Status != "ok" || content.Count != 3:
		t.Errorf("content = %+v", content)
	case got.Metadata["k"] != "v" || len(got.Buffers) != 1 || !bytes.Equal(got.Buffers[0], []byte{1, 2, 3}):
		t.Errorf("metadata %v buffers %v", got.Metadata, got.Buffers)
	}
}

func TestDecodeRejects(t *testing.T) {
	good, _ := NewSigner("hmac-sha256", []byte("right"))
	wrong, _ := NewSigner("hmac-sha256", []byte("wrong"))
	frames, err := good.Encode(&Message{Header: NewHeader("s", "kernel_info_request")})
	if err != nil {
		t.Fatal(err)
	}
	tampered := append([][]byte(nil), frames...)
	tampered[5] = []byte(`{"code":"evil"}`)
	unsigned, _ := (Signer{}).Encode(&Message{Header: NewHeader("s", "kernel_info_request")})
	tests := []struct {
		name   string
		signer Signer
		frames [][]byte
		want   error
	}{
		{"wrong key", wrong, frames, ErrBadSignature},
		{"tampered content", good, tampered, ErrBadSignature},
		{"unsigned message to a keyed kernel", good, unsigned, ErrBadSignature},
		{"no delimiter", good, frames[1:1], ErrNoDelimiter},
		{"too few frames", good, frames[:4], ErrShort},
		{"right key", good, frames, nil},
		{"no key accepts unsigned", Signer{}, unsigned, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.signer.Decode(tc.frames)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Decode error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestEmptyParentIsEncodedAsEmptyObject(t *testing.T) {
	frames, err := (Signer{}).Encode(&Message{Header: NewHeader("s", "status")})
	if err != nil {
		t.Fatal(err)
	}
	if string(frames[3]) != "{}" || string(frames[4]) != "{}" || string(frames[5]) != "{}" {
		t.Fatalf("parent, metadata, content = %s %s %s, want {} {} {}", frames[3], frames[4], frames[5])
	}
}

func TestUnsupportedScheme(t *testing.T) {
	if _, err := NewSigner("hmac-md5", []byte("k")); err == nil {
		t.Fatal("hmac-md5 accepted")
	}
}

func TestConnectionFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conn.json")
	b, _ := json.Marshal(map[string]any{
		"shell_port": 5001, "iopub_port": 5002, "stdin_port": 5003, "control_port": 5004, "hb_port": 5005,
		"ip": "127.0.0.1", "key": "abc", "transport": "tcp", "signature_scheme": "hmac-sha256", "kernel_name": "weft",
	})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ci, err := ReadConnectionFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Endpoint(ci.ControlPort) != "tcp://127.0.0.1:5004" || ci.Key != "abc" || ci.HBPort != 5005 {
		t.Fatalf("parsed %+v", ci)
	}
	if (ConnectionInfo{Transport: "ipc", IP: "/tmp/k"}).Endpoint(3) != "ipc:///tmp/k-3" {
		t.Fatal("ipc endpoint")
	}
}

func TestNewIDIsUUIDv4(t *testing.T) {
	a, b := NewID(), NewID()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Fatalf("ids %s %s", a, b)
	}
}
