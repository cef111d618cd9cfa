package workload

import (
	"bytes"
	"regexp"
	"testing"
)

func spec() *Spec {
	return &Spec{Kind: Register, Clients: 2, Ops: 2, Nodes: [][]int{{0}, {0, 1}}, Use: []string{"read", "write", "cas"}, Values: []int64{5, 7},
		Request: map[string]string{"read": "READ {client} {seq}\n", "write": "WRITE {value}\n", "cas": "CAS {old} {value}\n"},
		Reply:   map[string]*regexp.Regexp{"read": regexp.MustCompile(`^VAL (?P<value>\d+)$`), "write": regexp.MustCompile(`^ACK`), "cas": regexp.MustCompile(`^OK`)},
		Fail:    map[string]*regexp.Regexp{"cas": regexp.MustCompile(`^MISMATCH`)}}
}

// TestTable: a slot holds every (operation, old, value, node) the client
// may choose: read, 2 writes, and cas over old ∈ {0, 5, 7} × new ∈ {5, 7}
// without old == new (4), on each of its nodes.
func TestTable(t *testing.T) {
	tab := NewTable(spec())
	for _, tc := range []struct{ client, seq, n int }{{0, 0, 7}, {0, 1, 7}, {1, 0, 14}, {1, 1, 14}} {
		lo, hi := tab.Slot(tc.client, tc.seq)
		if hi-lo != tc.n {
			t.Errorf("slot (%d, %d): %d calls, want %d", tc.client, tc.seq, hi-lo, tc.n)
		}
		for _, c := range tab.Calls[lo:hi] {
			if c.Client != tc.client || c.Seq != tc.seq {
				t.Errorf("slot (%d, %d) holds %+v", tc.client, tc.seq, c)
			}
		}
	}
	if got := string(spec().RequestOf(Call{Client: 1, Seq: 1, Op: "read"})); got != "READ 1 1\n" {
		t.Errorf("request %q", got)
	}
	if got := (Call{Op: "cas", Old: 5, Value: 7}).String(); got != "cas 5->7" {
		t.Errorf("call %q", got)
	}
}

// TestClients: one operation at a time per client; replies complete only
// the pending operation of their own connection; an expired operation is
// indeterminate and a late reply leaves it so; the state bytes follow the
// history's shape.
func TestClients(t *testing.T) {
	s := spec()
	tab := NewTable(s)
	c := NewClients(s, tab)
	if n := len(c.Enabled()); n != 7+14 {
		t.Fatalf("%d enabled at first", n)
	}
	lo0, _ := tab.Slot(0, 0)
	write := lo0 + 1 // read, then write 5
	if err := c.Invoke(write, 1, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Invoke(write+1, 2, 0); err == nil {
		t.Fatal("a second operation of client 0 while one is pending")
	}
	lo1, _ := tab.Slot(1, 0)
	if err := c.Invoke(lo1, 2, 0); err != nil { // client 1 reads
		t.Fatal(err)
	}
	lines := []Reply{{Req: lo1, Text: "ACK 5", Step: 3}, {Req: write, Text: "ACK 5", Step: 3}}
	if done := c.Feed(lines, 10); len(done) != 1 || done[0] != 0 {
		t.Fatalf("done %v (a read's connection carried an ACK: not its reply)", done)
	}
	if err := c.Expire(1); err != nil {
		t.Fatal(err)
	}
	lines = append(lines, Reply{Req: lo1, Text: "VAL 5", Step: 4})
	if done := c.Feed(lines, 20); len(done) != 0 {
		t.Fatalf("a late reply completed %v", done)
	}
	if c.Ops[0].Outcome != Ok || c.Ops[0].ReturnStep != 3 || c.Ops[1].Outcome != Indeterminate {
		t.Fatalf("ops %+v", c.Ops)
	}
	if run, ind := c.Counts(); run != 2 || ind != 1 {
		t.Fatalf("counts %d %d", run, ind)
	}
	// Both clients are on their second operation now.
	if n := len(c.Enabled()); n != 7+14 {
		t.Fatalf("%d enabled after", n)
	}
	// Histories of another shape hash differently.
	d := NewClients(s, tab)
	d.Invoke(lo1, 1, 0)
	d.Invoke(write, 2, 0)
	d.Feed(lines[:2], 10)
	d.Expire(1)
	if bytes.Equal(c.Bytes(), d.Bytes()) {
		t.Fatal("two histories of different order hash alike")
	}
}

func TestParse(t *testing.T) {
	s := spec()
	for _, tc := range []struct {
		call Call
		line string
		out  Outcome
		ok   bool
	}{
		{Call{Op: "read"}, "VAL 7", Ok, true},
		{Call{Op: "read"}, "VAL x", Pending, false},
		{Call{Op: "cas"}, "MISMATCH", Failed, true},
		{Call{Op: "cas"}, "OK", Ok, true},
		{Call{Op: "write"}, "NOPE", Pending, false},
	} {
		out, _, ok := s.Parse(tc.call, tc.line)
		if out != tc.out || ok != tc.ok {
			t.Errorf("%s %q: %s %v, want %s %v", tc.call.Op, tc.line, out, ok, tc.out, tc.ok)
		}
	}
}
