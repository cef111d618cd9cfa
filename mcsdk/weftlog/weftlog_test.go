package weftlog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func sample() *Recording {
	r := &Recording{Header: Header{Model: "m.model", ModelHash: "ab", Variant: "bug", BinaryHash: "cd", Seed: 7, Nodes: 2,
		State: []string{"succ"}, Params: []Param{{"latency", "uniform:1-2"}}, ToolVersion: "test"}}
	r.AddEvent(Event{Step: 0, T: 0, Kind: "state", Node: 0, Peer: -1, Var: "succ", Value: "-1"})
	r.AddChoice(Choice{T: 1500, Action: "deliver 3.0"})
	r.AddEvent(Event{Step: 1, T: 1, Kind: "deliver", Node: 1, Peer: 0, Bytes: 12})
	r.AddEvent(Event{Step: 1, T: 1, Kind: "state", Node: 1, Peer: -1, Var: "succ", Value: "[1, 2]"})
	r.AddChoice(Choice{T: 45000, Action: "crash 1"})
	r.Verdict = Verdict{Verdict: "violated", Violated: []string{"AtLeastOneRing"}, FirstViolationStep: 2, Steps: 2}
	return r
}

func TestRoundTrip(t *testing.T) {
	r := sample()
	path := filepath.Join(t.TempDir(), "x.weftlog")
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Header, r.Header) || !reflect.DeepEqual(got.Choices, r.Choices) ||
		!reflect.DeepEqual(got.Events, r.Events) || !reflect.DeepEqual(got.Verdict, r.Verdict) {
		t.Fatalf("round trip differs:\n%+v\n%+v", got, r)
	}
	a, _ := r.Bytes()
	b, _ := got.Bytes()
	if !bytes.Equal(a, b) {
		t.Error("re-encoding a decoded recording changed its bytes")
	}
}

func TestRejects(t *testing.T) {
	good, _ := sample().Bytes()
	var rawBuf bytes.Buffer
	sample().Encode(&rawBuf)
	raw := rawBuf.Bytes()
	tests := []struct {
		name string
		in   []byte
		raw  bool
		want string
	}{
		{"foreign", []byte("PK\x03\x04 not zstd"), false, "not a weft recording"},
		{"truncated", good[:len(good)/2], false, "not a weft recording"},
		{"newer", []byte("weftlog 2\nV {}\n"), true, "version 2"},
		{"no verdict", []byte(strings.Split(string(raw), "V ")[0]), true, "truncated"},
		{"bad event", []byte("weftlog 1\nE 1\t2\n"), true, "fields"},
		{"flipped byte", flip(good, len(good)/2), false, "not a weft recording"},
		{"empty", nil, false, "not a weft recording"},
		{"unknown node", edit(raw, "E 1\t1\tdeliver\t1", "E 1\t1\tdeliver\t5"), true, "line 5: event names node 5; the recording has nodes 0..1"},
		{"negative node", edit(raw, "E 1\t1\tdeliver\t1", "E 1\t1\tdeliver\t-2"), true, "line 5: event names node -2"},
		{"unknown peer", edit(raw, "\t1\t0\t12", "\t1\t2\t12"), true, "line 5: event names peer 2"},
		{"undeclared var", edit(raw, "\tsucc\t[1, 2]", "\tpred\t[1, 2]"), true, `line 6: state event of "pred", which the header does not declare`},
		{"step goes back", edit(raw, "E 1\t1\tstate", "E 0\t1\tstate"), true, "line 6: event of step 0 after step 1"},
		{"negative time", edit(raw, "C 45000 crash 1", "C -45000 crash 1"), true, "line 7: choice at negative time"},
		{"no action", edit(raw, "C 45000 crash 1", "C 45000 "), true, "line 7: choice without action"},
		{"zero nodes", edit(raw, `"nodes":2`, `"nodes":0`), true, "line 2: header: nodes = 0, want 1..1024"},
		{"huge nodes", edit(raw, `"nodes":2`, `"nodes":99999999999`), true, "line 2: header: nodes = 99999999999"},
		{"no header", []byte("weftlog 1\nC 5 crash 0\nV {\"verdict\":\"holds\"}\n"), true, "line 2: choice before the header"},
		{"two headers", edit(raw, "C 1500", "H {\"nodes\":1}\nC 1500"), true, "line 4: the header must be the first line"},
		{"after verdict", append(append([]byte(nil), raw...), "C 1 crash 0\n"...), true, "line 9: C line after the verdict"},
		{"bad verdict", edit(raw, `"first_violation_step":2`, `"first_violation_step":-7`), true, "verdict: steps 2, first violation at -7"},
		{"long line", []byte("weftlog 1\nX " + strings.Repeat("x", maxLine) + "\n"), true, "line 2: longer than 16777216 bytes"},
	}
	for _, tc := range tests {
		var err error
		if !tc.raw && tc.in == nil {
			_, err = Decode(tc.in)
		} else if tc.raw {
			_, err = Parse(tc.in)
		} else {
			_, err = Decode(tc.in)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	var raw bytes.Buffer
	sample().Encode(&raw)
	f.Add(raw.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := r.Encode(&out); err != nil {
			t.Fatal(err)
		}
	})
}

// edit replaces old (which must occur) by new in a copy of raw.
func edit(raw []byte, old, new string) []byte {
	if !bytes.Contains(raw, []byte(old)) {
		panic("edit: " + old + " not in the sample")
	}
	return bytes.Replace(raw, []byte(old), []byte(new), 1)
}

func flip(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0x40
	return out
}

// bomb compresses a valid recording padded with size bytes of lines of an
// unknown kind, which readers skip: a small file that decompresses to a
// large stream.
func bomb(t *testing.T, size int) []byte {
	t.Helper()
	var raw bytes.Buffer
	r := sample()
	r.Encode(&raw)
	head, verdict, _ := bytes.Cut(raw.Bytes(), []byte("\nV "))
	var out bytes.Buffer
	enc, err := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	enc.Write(head)
	enc.Write([]byte("\n"))
	line := []byte("X " + strings.Repeat("padding ", 127) + "\n")
	for n := 0; n < size; n += len(line) {
		enc.Write(line)
	}
	enc.Write([]byte("V "))
	enc.Write(verdict)
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestDecompressionBombIsBounded: a recording that decompresses beyond the
// bound is refused with ErrTooLarge, before it is all decompressed; below
// the bound the same kind of file is accepted.
func TestDecompressionBombIsBounded(t *testing.T) {
	small := bomb(t, 4<<20)
	if _, err := DecodeLimited(small, 8<<20); err != nil {
		t.Fatalf("4 MiB under an 8 MiB bound: %v", err)
	}
	_, err := DecodeLimited(small, 1<<20)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Fatalf("4 MiB under a 1 MiB bound: error %v, want ErrTooLarge", err)
	}
	big := bomb(t, MaxDecodedSize+1<<20)
	if len(big) > 1<<20 {
		t.Fatalf("the bomb is %d bytes compressed: not a bomb", len(big))
	}
	path := filepath.Join(t.TempDir(), "bomb.weftlog")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile of a %d-byte file that decompresses to %d MiB: error %v, want ErrTooLarge", len(big), MaxDecodedSize>>20+1, err)
	}
}
