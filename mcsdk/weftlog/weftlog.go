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
//	                               crash, restart, client, state, invalid
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
}

// Param is a run parameter (model or drawn from the seed).
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Choice is one action of the scheduler at a virtual time.
type Choice struct {
	T      int64  // ns since the run began
	Action string // supervisor.Action text form
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

// ReadFile reads a recording.
func ReadFile(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
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

// Decode parses compressed recording bytes.
func Decode(b []byte) (*Recording, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return Parse(raw)
}

// Parse parses an uncompressed recording.
func Parse(raw []byte) (*Recording, error) {
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	if !sc.Scan() {
		return nil, ErrFormat
	}
	var ver int
	if _, err := fmt.Sscanf(sc.Text(), "weftlog %d", &ver); err != nil {
		return nil, ErrFormat
	}
	if ver != Version {
		return nil, fmt.Errorf("recording format version %d; this weft reads version %d", ver, Version)
	}
	r := &Recording{}
	line := 1
	seenVerdict := false
	for sc.Scan() {
		line++
		t := sc.Text()
		if len(t) < 2 || t[1] != ' ' {
			return nil, fmt.Errorf("line %d: malformed", line)
		}
		body := t[2:]
		var err error
		switch t[0] {
		case 'H':
			err = json.Unmarshal([]byte(body), &r.Header)
		case 'V':
			err = json.Unmarshal([]byte(body), &r.Verdict)
			seenVerdict = true
		case 'C':
			ts, act, ok := strings.Cut(body, " ")
			var c Choice
			c.T, err = strconv.ParseInt(ts, 10, 64)
			if !ok && err == nil {
				err = errors.New("choice without action")
			}
			c.Action = act
			r.AddChoice(c)
		case 'E':
			f := strings.Split(body, "\t")
			if len(f) != 8 {
				err = fmt.Errorf("event has %d fields, want 8", len(f))
				break
			}
			var e Event
			nums := []*int{&e.Step, &e.Node, &e.Peer, &e.Bytes}
			for i, idx := range []int{0, 3, 4, 5} {
				if *nums[i], err = strconv.Atoi(f[idx]); err != nil {
					break
				}
			}
			if err == nil {
				e.T, err = strconv.ParseInt(f[1], 10, 64)
			}
			e.Kind, e.Var, e.Value = f[2], unfield(f[6]), unfield(f[7])
			r.AddEvent(e)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !seenVerdict {
		return nil, fmt.Errorf("truncated recording: no verdict line")
	}
	return r, nil
}
