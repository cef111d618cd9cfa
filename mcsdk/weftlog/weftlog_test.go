package weftlog

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	var raw bytes.Buffer
	sample().Encode(&raw)
	tests := []struct {
		name string
		in   []byte
		raw  bool
		want string
	}{
		{"foreign", []byte("PK\x03\x04 not zstd"), false, "not a weft recording"},
		{"truncated", good[:len(good)/2], false, "not a weft recording"},
		{"newer", []byte("weftlog 2\nV {}\n"), true, "version 2"},
		{"no verdict", []byte(strings.Split(raw.String(), "V ")[0]), true, "truncated"},
		{"bad event", []byte("weftlog 1\nE 1\t2\n"), true, "fields"},
	}
	for _, tc := range tests {
		var err error
		if tc.raw {
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
