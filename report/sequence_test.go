package report

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/weftlog"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.svg")

// TestSequenceGolden pins the sequence diagram of one recording (election,
// variant bug, seed 15: a vote granted, the voter crashes and restarts
// before persisting it, and votes again in the same term). Regenerate with
// go test ./report -run TestSequenceGolden -update, and look at it.
func TestSequenceGolden(t *testing.T) {
	rec, err := weftlog.ReadFile("testdata/election-bug-15.weftlog")
	if err != nil {
		t.Fatal(err)
	}
	got, err := SequenceSVG(rec, DefaultSequenceSteps)
	if err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/election-bug-15.svg"
	if *updateGolden {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the diagram differs from %s (run with -update if the change is meant):\n%s", golden, got)
	}
}

// TestSequenceFromRecording checks the diagram against the recording it
// is drawn from: one arrow per delivery, the crash and restart of n2, the
// first violation naming its invariant, nothing after it.
func TestSequenceFromRecording(t *testing.T) {
	rec, err := weftlog.ReadFile("testdata/election-bug-15.weftlog")
	if err != nil {
		t.Fatal(err)
	}
	deliveries := 0
	for _, e := range rec.Events {
		if e.Kind == "deliver" && e.Step <= rec.Verdict.FirstViolationStep {
			deliveries++
		}
	}
	s := SequenceOf(rec, 0)
	if len(s.Messages) != deliveries || deliveries == 0 {
		t.Errorf("%d arrows, the recording delivers %d messages up to the violation", len(s.Messages), deliveries)
	}
	svg, err := SequenceSVG(rec, 0)
	if err != nil {
		t.Fatal(err)
	}
	text := string(svg)
	for _, want := range []string{`class="crash"`, `class="restart"`, "first violation: one_leader_per_term", ">n0<", ">n1<", ">n2<"} {
		if !strings.Contains(text, want) {
			t.Errorf("diagram lacks %q", want)
		}
	}
	if n := strings.Count(text, `<g class="msg">`); n != deliveries {
		t.Errorf("%d message groups drawn, want %d", n, deliveries)
	}
	if strings.Contains(text, "<script") || strings.Contains(text, "http://") && !strings.Contains(text, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("the diagram must be self-contained, without script")
	}
	// A window of 2 steps keeps only steps 5 and 6.
	if w := SequenceOf(rec, 2); len(w.Messages) != 2 || !strings.Contains(w.Note, "steps 5–6") || len(w.Down) != 0 {
		t.Errorf("2-step window: %d messages, note %q, down %v", len(w.Messages), w.Note, w.Down)
	}
	// n2 crashes at step 2 and restarts at step 3: a window from step 3 on
	// starts with it down only if it has not restarted yet.
	if w := SequenceOf(rec, 4); len(w.Down) != 1 || w.Down[0] != "n2" {
		t.Errorf("window from step 3: down %v, want [n2] (crashed at step 2, restarting at step 3)", w.Down)
	}
}

// TestSequenceNamesRoles: a recording with roles labels its lifelines
// and messages by node and role; one without keeps "n0".
func TestSequenceNamesRoles(t *testing.T) {
	rec, err := weftlog.ReadFile("testdata/election-bug-15.weftlog")
	if err != nil {
		t.Fatal(err)
	}
	plain := SequenceOf(rec, 0)
	rec.Header.Roles = make([]string, rec.Header.Nodes)
	rec.Header.Roles[0] = "primary"
	named := SequenceOf(rec, 0)
	if plain.Nodes[0] != "n0" || named.Nodes[0] != "n0 primary" || named.Nodes[1] != "n1" {
		t.Errorf("lifelines %v / %v, want n0 then n0 primary, and n1 unchanged", plain.Nodes, named.Nodes)
	}
	for _, m := range named.Messages {
		if m.From == "n0" || m.To == "n0" {
			t.Errorf("message %+v names n0 without its role", m)
		}
	}
}

// TestSequenceRefusedConnect: a message delivered to nobody (a SYN to a
// port no one listens on) is a mark on its sender's lifeline, not an arrow
// to a node that does not exist.
func TestSequenceRefusedConnect(t *testing.T) {
	rec, err := weftlog.ReadFile("testdata/election-bug-15.weftlog")
	if err != nil {
		t.Fatal(err)
	}
	step := rec.Verdict.FirstViolationStep
	rec.Events = append([]weftlog.Event{{Step: 1, T: 1, Kind: "deliver", Node: -1, Peer: 1, Value: "SYN refused (nobody listens on port 9)"}}, rec.Events...)
	s := SequenceOf(rec, 0)
	refused := 0
	for _, mk := range s.Marks {
		if mk.Kind == "refused" && mk.Node == "n1" && strings.Contains(mk.Label, "SYN refused") {
			refused++
		}
	}
	if refused != 1 || step < 1 {
		t.Errorf("%d refused marks on n1, want 1", refused)
	}
	if _, err := SequenceSVG(rec, 0); err != nil {
		t.Fatal(err)
	}
}

// TestSequenceDrawsClients: a diagram covers the whole run by default and
// draws the clients' requests and replies as arrows to and from a client
// lifeline (paxos bug 119, shrunk: a workload of four operations).
func TestSequenceDrawsClients(t *testing.T) {
	rec, err := weftlog.ReadFile("../targets/paxos/bug-119.shrunk.weftlog")
	if err != nil {
		t.Fatal(err)
	}
	invokes, returns, deliveries := 0, 0, 0
	for _, e := range rec.Events {
		if e.Step > rec.Verdict.FirstViolationStep {
			break
		}
		switch e.Kind {
		case "invoke":
			invokes++
		case "return":
			returns++
		case "deliver":
			deliveries++
		}
	}
	s := SequenceOf(rec, DefaultSequenceSteps)
	if s.Nodes[len(s.Nodes)-1] != "client" {
		t.Fatalf("lifelines %v: no client", s.Nodes)
	}
	var toClient, fromClient, between int
	for _, m := range s.Messages {
		switch {
		case m.From == "client":
			fromClient++
		case m.To == "client":
			toClient++
		default:
			between++
		}
	}
	if fromClient != invokes || toClient != returns || invokes == 0 || returns == 0 {
		t.Errorf("%d requests and %d replies drawn, the run has %d and %d", fromClient, toClient, invokes, returns)
	}
	if between != deliveries || s.Note != "" {
		t.Errorf("%d node messages drawn (note %q), the run delivers %d up to its violation: the whole run is drawn", between, s.Note, deliveries)
	}
	if _, err := SequenceSVG(rec, DefaultSequenceSteps); err != nil {
		t.Fatal(err)
	}
}
