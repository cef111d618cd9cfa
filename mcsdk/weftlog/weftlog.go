// Package weftlog reads and writes weft recordings (.weftlog): one run,
// self-contained, enough to re-execute it (the choices) and to trace it
// without re-execution (the observations).
//
// # Format, version 1
//
// A recording is a zstd stream (RFC 8878) of UTF-8 text lines:
//
//	weftlog 1
//	H <json>                       the header (see Header), one line
//	C <t_ns> <action>              a choice: the action applied at virtual
//	                               time t_ns (ns since the run began), e.g.
//	                               "C 1500000 deliver 3.0", "C 45000 crash 4"
//	E <step> <t_us> <kind> <node> <peer> <bytes> <var> <value>
//	                               an observation; fields are tab-separated,
//	                               "-" for empty; kinds: deliver, timer,
//	                               crash, restart, client, state, invalid;
//	                               a workload's history: invoke, return,
//	                               expire (var = client "cN", value = the
//	                               call and its result, node = the node)
//	V <json>                       the verdict (see Verdict), last line
//
// Choices and observations interleave in step order. Readers must reject a
// version they do not know and ignore line kinds they do not know within
// their version.
package weftlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Version is the format version this package writes and reads.
const Version = 1

// Header says what a recording is of.
type Header struct {
	Model       string   `json:"model"`
	ModelHash   string   `json:"model_hash"`
	Variant     string   `json:"variant"`
	BinaryHash  string   `json:"binary_hash"`
	Seed        uint64   `json:"seed"`
	Nodes       int      `json:"nodes"`
	State       []string `json:"state"` // declared globals, in model order
	Params      []Param  `json:"params"`
	ToolVersion string   `json:"tool_version"`
	// ShrunkFrom names the recording this one was shrunk from, if any.
	ShrunkFrom string `json:"shrunk_from,omitempty"`
	// Faults overrides the seed's fault schedule (a shrunk run).
	Faults []string `json:"faults,omitempty"`
	// EndUS overrides the run's end (µs), 0 = the model's.
	EndUS int64 `json:"end_us,omitempty"`
	// Omit is what a shrunk run removed besides crashes (partitions,
	// clock faults, drops, workload operations): package sched's Omit as
	// JSON, "" for nothing.
	Omit string `json:"omit,omitempty"`
	// Roles are the nodes' roles ([[node]] role), by node; nil without.
	// State lists the state query variables too, after the globals.
	Roles []string `json:"roles,omitempty"`
}

// Param is a run parameter (model or drawn from the seed).
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Choice is one action of the scheduler at a virtual time.
type Choice struct {
	T      int64  // ns since the run began
	Action string // sched.Action text form
}

// Event is one observation.
type Event struct {
	Step  int
	T     int64 // µs since the run began
	Kind  string
	Node  int
	Peer  int
	Bytes int
	Var   string
	Value string
}

// Verdict is how the run ended.
type Verdict struct {
	Verdict            string   `json:"verdict"`
	Violated           []string `json:"violated,omitempty"`
	FirstViolationStep int      `json:"first_violation_step"`
	Steps              int      `json:"steps"`
	Detail             string   `json:"detail,omitempty"`
}

// Recording is a whole recording in memory.
type Recording struct {
	Header  Header
	Choices []Choice
	Events  []Event
	Verdict Verdict
	// order interleaves choices and events for writing: for each entry,
	// true means the next choice.
	order []bool
}

// AddChoice appends a choice.
func (r *Recording) AddChoice(c Choice) {
	r.Choices = append(r.Choices, c)
	r.order = append(r.order, true)
}

// AddEvent appends an observation.
func (r *Recording) AddEvent(e Event) {
	r.Events = append(r.Events, e)
	r.order = append(r.order, false)
}

func field(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("\t", " ", "\n", " ").Replace(s)
}

func unfield(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// Encode writes r as an uncompressed version-1 text stream.
func (r *Recording) Encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	h, err := json.Marshal(r.Header)
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, "weftlog %d\nH %s\n", Version, h)
	ci, ei := 0, 0
	order := r.order
	if len(order) != len(r.Choices)+len(r.Events) { // built by hand: choices first
		order = make([]bool, 0, len(r.Choices)+len(r.Events))
		for range r.Choices {
			order = append(order, true)
		}
		for range r.Events {
			order = append(order, false)
		}
	}
	for _, isChoice := range order {
		if isChoice {
			c := r.Choices[ci]
			ci++
			fmt.Fprintf(bw, "C %d %s\n", c.T, c.Action)
			continue
		}
		e := r.Events[ei]
		ei++
		fmt.Fprintf(bw, "E %d\t%d\t%s\t%d\t%d\t%d\t%s\t%s\n", e.Step, e.T, e.Kind, e.Node, e.Peer, e.Bytes, field(e.Var), field(e.Value))
	}
	v, err := json.Marshal(r.Verdict)
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, "V %s\n", v)
	return bw.Flush()
}

// Bytes returns the compressed recording. The encoding is deterministic:
// the same recording gives the same bytes.
func (r *Recording) Bytes() ([]byte, error) {
	var raw bytes.Buffer
	if err := r.Encode(&raw); err != nil {
		return nil, err
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(raw.Bytes(), nil), nil
}

// WriteFile writes r to path atomically (temporary file, fsync, rename).
func (r *Recording) WriteFile(path string) error {
	b, err := r.Bytes()
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// MaxDecodedSize bounds a recording's uncompressed size, so that a
// corrupted or hostile file cannot exhaust memory: 256 MiB, some four times
// a run of max_steps' default million steps (Chord's recordings take about
// 57 bytes per step). DecodeLimited takes another bound.
const MaxDecodedSize = 256 << 20

// MaxNodes bounds a recording's node count (as the model language does).
const MaxNodes = 1024

// ErrTooLarge reports a recording that decompresses beyond its bound.
var ErrTooLarge = errors.New("recording too large")

// ReadFile reads a recording.
func ReadFile(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxDecodedSize {
		return nil, fmt.Errorf("%s: %w: %d bytes compressed, more than the %d MiB a recording may decompress to", path, ErrTooLarge, st.Size(), MaxDecodedSize>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxDecodedSize+1))
	if err != nil {
		return nil, err
	}
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ErrFormat reports a file that is not a weft recording.
var ErrFormat = errors.New("not a weft recording")

// Decode parses compressed recording bytes, which may decompress to at
// most MaxDecodedSize bytes.
func Decode(b []byte) (*Recording, error) { return DecodeLimited(b, MaxDecodedSize) }

// DecodeLimited is Decode with a bound of limit uncompressed bytes:
// decompression stops there with ErrTooLarge (a decompression bomb costs
// at most limit bytes of work and no more memory than the lines parsed).
func DecodeLimited(b []byte, limit int64) (*Recording, error) {
	dec, err := zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	defer dec.Close()
	lr := &limitedReader{r: dec, left: limit}
	r, err := parse(lr)
	switch {
	case lr.over:
		return nil, fmt.Errorf("%w: it decompresses to more than %d bytes (corrupted, or not written by weft)", ErrTooLarge, limit)
	case lr.err != nil:
		return nil, fmt.Errorf("%w: %v", ErrFormat, lr.err)
	}
	return r, err
}

// maxWindow bounds the zstd window a recording may ask for (weft's
// encoder uses a few MiB).
const maxWindow = 1 << 27

// limitedReader reads at most left bytes of r, then fails with ErrTooLarge.
// err keeps r's own error (a corrupted stream).
type limitedReader struct {
	r    io.Reader
	left int64
	over bool
	err  error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.over = true
		return 0, ErrTooLarge
	}
	n, err := l.r.Read(p[:min(int64(len(p)), l.left)])
	l.left -= int64(n)
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}

// Parse parses an uncompressed recording. Besides the syntax it checks what
// the file itself can vouch for: the header comes first, node indices are
// below the header's node count (-1 is the environment), steps never go
// back, times are non-negative, state events name declared globals.
func Parse(raw []byte) (*Recording, error) { return parse(bytes.NewReader(raw)) }

// maxLine bounds one line (the header lists every parameter).
const maxLine = 1 << 24

func parse(in io.Reader) (*Recording, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), maxLine)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, ErrFormat
	}
	var ver int
	if _, err := fmt.Sscanf(sc.Text(), "weftlog %d", &ver); err != nil {
		return nil, ErrFormat
	}
	if ver != Version {
		return nil, fmt.Errorf("recording format version %d; this weft reads version %d", ver, Version)
	}
	p := &parser{r: &Recording{}, lastStep: -1}
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, fmt.Errorf("line %d: %v", p.line+1, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", p.line+2, maxLine)
		}
		return nil, err
	}
	if !p.seenVerdict {
		return nil, fmt.Errorf("truncated recording: no verdict line")
	}
	return p.r, nil
}

// parser holds the state of Parse between lines.
type parser struct {
	r           *Recording
	line        int // lines read after the version line
	seenHeader  bool
	seenVerdict bool
	lastStep    int
	declared    map[string]bool
}

func (p *parser) parseLine(t string) error {
	if len(t) < 2 || t[1] != ' ' {
		return errors.New("malformed")
	}
	body := t[2:]
	if p.seenVerdict && strings.IndexByte("HCEV", t[0]) >= 0 {
		return fmt.Errorf("%c line after the verdict", t[0])
	}
	switch t[0] {
	case 'H':
		return p.header(body)
	case 'V':
		p.seenVerdict = true
		if err := json.Unmarshal([]byte(body), &p.r.Verdict); err != nil {
			return err
		}
		return p.verdict()
	case 'C':
		return p.choice(body)
	case 'E':
		return p.event(body)
	}
	return nil
}

func (p *parser) header(body string) error {
	if p.seenHeader || len(p.r.Choices)+len(p.r.Events) > 0 {
		return errors.New("the header must be the first line after the version, once")
	}
	p.seenHeader = true
	h := &p.r.Header
	if err := json.Unmarshal([]byte(body), h); err != nil {
		return err
	}
	if h.Nodes < 1 || h.Nodes > MaxNodes {
		return fmt.Errorf("header: nodes = %d, want 1..%d", h.Nodes, MaxNodes)
	}
	p.declared = map[string]bool{}
	for _, v := range h.State {
		p.declared[v] = true
	}
	return nil
}

func (p *parser) choice(body string) error {
	if !p.seenHeader {
		return errors.New("choice before the header")
	}
	ts, act, ok := strings.Cut(body, " ")
	t, err := strconv.ParseInt(ts, 10, 64)
	switch {
	case err != nil:
		return err
	case !ok || act == "":
		return errors.New("choice without action")
	case t < 0:
		return fmt.Errorf("choice at negative time %d", t)
	}
	p.r.AddChoice(Choice{T: t, Action: act})
	return nil
}

func (p *parser) event(body string) error {
	f := strings.Split(body, "\t")
	if len(f) != 8 {
		return fmt.Errorf("event has %d fields, want 8", len(f))
	}
	var e Event
	var err error
	nums := []*int{&e.Step, &e.Node, &e.Peer, &e.Bytes}
	for i, idx := range []int{0, 3, 4, 5} {
		if *nums[i], err = strconv.Atoi(f[idx]); err != nil {
			return err
		}
	}
	if e.T, err = strconv.ParseInt(f[1], 10, 64); err != nil {
		return err
	}
	e.Kind, e.Var, e.Value = f[2], unfield(f[6]), unfield(f[7])
	if err := p.checkEvent(e); err != nil {
		return err
	}
	p.lastStep = e.Step
	p.r.AddEvent(e)
	return nil
}

func (p *parser) checkEvent(e Event) error {
	n := p.r.Header.Nodes
	switch {
	case !p.seenHeader:
		return errors.New("event before the header")
	case e.Step < p.lastStep:
		return fmt.Errorf("event of step %d after step %d", e.Step, p.lastStep)
	case e.T < 0 || e.Bytes < 0:
		return fmt.Errorf("event with negative time or size")
	case e.Node < -1 || e.Node >= n:
		return fmt.Errorf("event names node %d; the recording has nodes 0..%d", e.Node, n-1)
	case e.Peer < -1 || e.Peer >= n:
		return fmt.Errorf("event names peer %d; the recording has nodes 0..%d", e.Peer, n-1)
	case e.Kind == "state" && !p.declared[e.Var]:
		return fmt.Errorf("state event of %q, which the header does not declare", e.Var)
	}
	return nil
}

func (p *parser) verdict() error {
	v := p.r.Verdict
	switch {
	case !p.seenHeader:
		return errors.New("verdict before the header")
	case v.Verdict == "":
		return errors.New("verdict without a verdict")
	case v.Steps < 0 || v.FirstViolationStep < -1 || v.FirstViolationStep > v.Steps:
		return fmt.Errorf("verdict: steps %d, first violation at %d", v.Steps, v.FirstViolationStep)
	}
	return nil
}
