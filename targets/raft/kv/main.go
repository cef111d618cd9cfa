// Command kv is a replicated key-value server on etcd's raft library
// (go.etcd.io/raft/v3), used as its documentation describes: a TCP
// transport between nodes, the log and HardState persisted with fsync
// before the messages of the same Ready are sent, committed entries
// applied in order, linearizable reads through ReadIndex.
//
// Clients connect over TCP to BASE+id and send lines
//
//	PUT <key> <value> <client> <seq>     answered "OK"
//	GET <key> <client> <seq>             answered "VAL <value>" ("VAL" if none)
//
// Raft messages travel over TCP between BASE+10+id ports, each framed by
// a 4-byte length.
//
// Variants (the fourth argument):
//   - correct;
//   - lease-unsafe: reads are served by the leader's lease
//     (ReadOnlyLeaseBased, with CheckQuorum, which v3.7.0 requires), which
//     the library documents as unsafe under clock drift;
//   - persist-late: entries and HardState are written before the
//     messages are sent but fsync'd only at the next tick, breaking the
//     library's contract: a crash that loses unsynced writes forgets a
//     vote or an acknowledgement.
//
// Flags (before the arguments) set the library's timing, a configuration
// like etcd's --heartbeat-interval and --election-timeout: -tick is the
// interval of Node.Tick (default 10ms), -election-tick and -heartbeat-tick
// are Config.ElectionTick and HeartbeatTick in ticks (default 10 and 1).
//
// usage: kv [-tick D] [-election-tick N] [-heartbeat-tick N] ID NODES BASE VARIANT
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname gives the declared globals C-like names

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Declared state (weft reads these by symbol): the node's HardState and
// role, and per log index (1..logCap) the term and a hash of the entry it
// holds and of the entry it applied.
const logCap = 32

//go:linkname stTerm raft_term
var stTerm int64

//go:linkname stVote raft_vote
var stVote int64

//go:linkname stCommit raft_commit
var stCommit int64

// stStable is 0 while observe rewrites the globals below (weft may read
// them whenever every thread is parked, so in the middle of an update) and
// before a restarted node has read its disk (a fresh process's globals are
// zero, not its state); 1 when they are a consistent picture of the node.
//
//go:linkname stStable raft_stable
var stStable int64

//go:linkname stRole raft_role
var stRole int64 // 0 follower, 1 candidate, 2 leader, 3 pre-candidate

//go:linkname stLogTerm log_term
var stLogTerm [logCap]int64

//go:linkname stLogHash log_hash
var stLogHash [logCap]int64

//go:linkname stApplied applied_hash
var stApplied [logCap]int64

type server struct {
	id                          uint64
	nodes, base                 int
	variant                     string
	node                        raft.Node
	storage                     *raft.MemoryStorage
	state                       *os.File
	hs                          *pb.HardState
	ents                        []*pb.Entry // the persisted log
	dirty                       bool        // written, not yet fsync'd (persist-late)
	kv                          map[string]string
	mu                          sync.Mutex
	waiting                     map[string]net.Conn // request id → the client connection
	reads                       map[string]read     // read request context → the read
	applied                     uint64
	out                         []chan []byte // per peer
	tick                        time.Duration // the interval of Node.Tick
	electionTick, heartbeatTick int
}

type read struct {
	key   string
	conn  net.Conn
	index uint64 // 0 until its ReadState arrives
}

func main() {
	fs := flag.NewFlagSet("kv", flag.ContinueOnError)
	tick := fs.Duration("tick", 10*time.Millisecond, "the interval of Node.Tick")
	election := fs.Int("election-tick", 10, "Config.ElectionTick: ticks without a leader before a follower campaigns")
	heartbeat := fs.Int("heartbeat-tick", 1, "Config.HeartbeatTick: ticks between a leader's heartbeats")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: kv [-tick D] [-election-tick N] [-heartbeat-tick N] ID NODES BASE VARIANT")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	args := fs.Args()
	if len(args) != 4 || *tick <= 0 {
		fs.Usage()
		os.Exit(2)
	}
	id, _ := strconv.Atoi(args[0])
	nodes, _ := strconv.Atoi(args[1])
	base, _ := strconv.Atoi(args[2])
	s := &server{hs: &pb.HardState{}, id: uint64(id + 1), nodes: nodes, base: base, variant: args[3], kv: map[string]string{},
		waiting: map[string]net.Conn{}, reads: map[string]read{}, tick: *tick, electionTick: *election, heartbeatTick: *heartbeat}
	switch s.variant {
	case "correct", "lease-unsafe", "persist-late":
	default:
		fmt.Fprintln(os.Stderr, "kv: variant is correct, lease-unsafe or persist-late")
		os.Exit(2)
	}
	if err := s.run(); err != nil {
		fmt.Fprintln(os.Stderr, "kv:", err)
		os.Exit(1)
	}
}

func (s *server) run() error {
	restart, err := s.load()
	if err != nil {
		return err
	}
	s.observe(raft.Ready{}) // a restarted node shows what it found on disk
	cfg := &raft.Config{ID: s.id, ElectionTick: s.electionTick, HeartbeatTick: s.heartbeatTick, Storage: s.storage,
		MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 64, Logger: quiet{}}
	if s.variant == "lease-unsafe" {
		cfg.ReadOnlyOption, cfg.CheckQuorum = raft.ReadOnlyLeaseBased, true
	}
	if restart {
		s.node = raft.RestartNode(cfg)
	} else {
		var peers []raft.Peer
		for i := 1; i <= s.nodes; i++ {
			peers = append(peers, raft.Peer{ID: uint64(i)})
		}
		s.node = raft.StartNode(cfg, peers)
	}
	// Go's defaults: TCP keep-alive on every connection, the IPv6 probe
	// of the net package, "tcp" listeners.
	raftLn, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", s.base+10+int(s.id)-1))
	if err != nil {
		return err
	}
	clientLn, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", s.base+int(s.id)-1))
	if err != nil {
		return err
	}
	s.out = make([]chan []byte, s.nodes+1)
	for p := 1; p <= s.nodes; p++ {
		if uint64(p) != s.id {
			s.out[p] = make(chan []byte, 256)
			go s.sender(uint64(p))
		}
	}
	go s.acceptPeers(raftLn)
	go s.acceptClients(clientLn)
	return s.loop()
}

// loop is the library's documented cycle: tick (every s.tick); on Ready persist, send,
// apply, advance.
func (s *server) loop() error {
	tick := time.NewTicker(s.tick)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if s.dirty {
				if err := s.state.Sync(); err != nil {
					return err
				}
				s.dirty = false
			}
			s.node.Tick()
		case rd := <-s.node.Ready():
			if err := s.persist(rd); err != nil {
				return err
			}
			s.observe(rd) // before the messages: a peer may act on them at once
			s.send(rd.Messages)
			s.apply(rd.CommittedEntries)
			s.readStates(rd.ReadStates)
			s.node.Advance()
		}
	}
}

// persist saves the HardState and entries of rd (and, unless the variant
// is persist-late, makes them durable) before its messages go out.
func (s *server) persist(rd raft.Ready) error {
	if rd.HardState != nil && !raft.IsEmptyHardState(rd.HardState) {
		s.hs = proto.CloneOf(rd.HardState)
	}
	if len(rd.Entries) > 0 {
		first := rd.Entries[0].GetIndex()
		keep := s.ents[:0:0]
		for _, e := range s.ents {
			if e.GetIndex() < first {
				keep = append(keep, e)
			}
		}
		for _, e := range rd.Entries {
			keep = append(keep, proto.CloneOf(e))
		}
		s.ents = keep
		if err := s.storage.Append(rd.Entries); err != nil {
			return err
		}
	}
	if rd.HardState != nil && !raft.IsEmptyHardState(rd.HardState) {
		if err := s.storage.SetHardState(rd.HardState); err != nil {
			return err
		}
	}
	if (rd.HardState == nil || raft.IsEmptyHardState(rd.HardState)) && len(rd.Entries) == 0 {
		return nil
	}
	if err := s.write(); err != nil {
		return err
	}
	if s.variant == "persist-late" {
		s.dirty = true // fsync'd at the next tick: after the messages went out
		return nil
	}
	return s.state.Sync()
}

// write writes the state file: the HardState, then every entry, each
// framed by its length.
func (s *server) write() error {
	var b []byte
	frame := func(m proto.Message) error {
		d, err := proto.Marshal(m)
		if err != nil {
			return err
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(d)))
		b = append(b, d...)
		return nil
	}
	if err := frame(s.hs); err != nil {
		return err
	}
	for _, e := range s.ents {
		if err := frame(e); err != nil {
			return err
		}
	}
	if err := s.state.Truncate(0); err != nil {
		return err
	}
	_, err := s.state.WriteAt(b, 0)
	return err
}

// load opens the state file and reads the HardState and log into the
// library's MemoryStorage; restart is false when there was none.
func (s *server) load() (restart bool, err error) {
	s.storage = raft.NewMemoryStorage()
	s.state, err = os.OpenFile("raft.state", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return false, err
	}
	data, err := io.ReadAll(s.state)
	if err != nil || len(data) == 0 {
		return false, err
	}
	var frames [][]byte
	for len(data) >= 4 {
		n := binary.BigEndian.Uint32(data)
		if uint32(len(data)-4) < n {
			break
		}
		frames = append(frames, data[4:4+n])
		data = data[4+n:]
	}
	if len(frames) == 0 {
		return false, nil
	}
	s.hs = &pb.HardState{}
	if err := proto.Unmarshal(frames[0], s.hs); err != nil {
		return false, err
	}
	for _, f := range frames[1:] {
		e := &pb.Entry{}
		if err := proto.Unmarshal(f, e); err != nil {
			return false, err
		}
		s.ents = append(s.ents, e)
	}
	if err := s.storage.Append(s.ents); err != nil {
		return false, err
	}
	return true, s.storage.SetHardState(s.hs)
}

func (s *server) send(msgs []*pb.Message) {
	for _, m := range msgs {
		to := m.GetTo()
		if to == 0 || to > uint64(s.nodes) || to == s.id {
			continue
		}
		d, err := proto.Marshal(m)
		if err != nil {
			continue
		}
		select {
		case s.out[to] <- d:
		default: // the peer is slow or gone: raft retries
			s.node.ReportUnreachable(to)
		}
	}
}

// sender keeps one connection to peer p and writes its messages, dialling
// again after an error.
func (s *server) sender(p uint64) {
	var c net.Conn
	d := net.Dialer{Timeout: time.Second}
	for msg := range s.out[p] {
		if c == nil {
			var err error
			if c, err = d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.base+10+int(p)-1)); err != nil {
				c = nil
				s.node.ReportUnreachable(p)
				continue
			}
		}
		frame := binary.BigEndian.AppendUint32(nil, uint32(len(msg)))
		if _, err := c.Write(append(frame, msg...)); err != nil {
			c.Close()
			c = nil
			s.node.ReportUnreachable(p)
		}
	}
}

func (s *server) acceptPeers(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go s.receive(c)
	}
}

// receive steps every message a peer sends into the node.
func (s *server) receive(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		b := make([]byte, binary.BigEndian.Uint32(hdr[:]))
		if _, err := io.ReadFull(r, b); err != nil {
			return
		}
		m := &pb.Message{}
		if proto.Unmarshal(b, m) == nil {
			s.node.Step(context.Background(), m)
		}
	}
}

func (s *server) acceptClients(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go s.client(c)
	}
}

// client reads one connection's requests: puts are proposed, gets go
// through ReadIndex.
func (s *server) client(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 5 && f[0] == "PUT":
			reqID := "c" + f[3] + "." + f[4]
			s.mu.Lock()
			s.waiting[reqID] = c
			s.mu.Unlock()
			s.node.Propose(context.Background(), []byte(strings.Join([]string{"PUT", f[1], f[2], reqID}, " ")))
		case len(f) == 4 && f[0] == "GET":
			rctx := "c" + f[2] + "." + f[3]
			s.mu.Lock()
			s.reads[rctx] = read{key: f[1], conn: c}
			s.mu.Unlock()
			s.node.ReadIndex(context.Background(), []byte(rctx))
		}
	}
}

// apply applies committed entries in order and answers the clients
// waiting for them on this node.
func (s *server) apply(ents []*pb.Entry) {
	for _, e := range ents {
		switch e.GetType() {
		case pb.EntryConfChange:
			var cc pb.ConfChange
			if proto.Unmarshal(e.GetData(), &cc) == nil {
				s.node.ApplyConfChange(&cc)
			}
		case pb.EntryNormal:
			if f := strings.Fields(string(e.GetData())); len(f) == 4 && f[0] == "PUT" {
				s.kv[f[1]] = f[2]
				s.mu.Lock()
				c := s.waiting[f[3]]
				delete(s.waiting, f[3])
				s.mu.Unlock()
				if c != nil {
					io.WriteString(c, "OK\n")
				}
			}
		}
		if i := e.GetIndex(); i >= 1 && i <= logCap {
			h := entryHash(e)
			stApplied[i-1] = h // one aligned word: never read half-written
		}
		s.applied = e.GetIndex()
	}
	s.serveReads()
}

// readStates records the read index of each read the node answered.
func (s *server) readStates(rs []raft.ReadState) {
	s.mu.Lock()
	for _, r := range rs {
		if rd, ok := s.reads[string(r.RequestCtx)]; ok {
			rd.index = r.Index
			s.reads[string(r.RequestCtx)] = rd
		}
	}
	s.mu.Unlock()
	s.serveReads()
}

// serveReads answers every read whose index has been applied.
func (s *server) serveReads() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, r := range s.reads {
		if r.index == 0 || r.index > s.applied {
			continue
		}
		io.WriteString(r.conn, "VAL "+s.kv[r.key]+"\n")
		delete(s.reads, k)
	}
}

// observe copies what the invariants read into the declared globals:
// computed first, then published between two atomic stores of stStable.
func (s *server) observe(rd raft.Ready) {
	var terms, hashes [logCap]int64
	for _, e := range s.ents {
		if i := e.GetIndex(); i >= 1 && i <= logCap {
			terms[i-1], hashes[i-1] = int64(e.GetTerm()), entryHash(e)
		}
	}
	role := stRole
	if rd.SoftState != nil {
		role = roleOf(rd.SoftState.RaftState)
	}
	term, vote, commit := int64(s.hs.GetTerm()), int64(s.hs.GetVote()), int64(s.hs.GetCommit())
	atomic.StoreInt64(&stStable, 0)
	stTerm, stVote, stCommit, stRole = term, vote, commit, role
	stLogTerm, stLogHash = terms, hashes
	atomic.StoreInt64(&stStable, 1)
}

// roleOf is the declared raft_role of a raft state.
func roleOf(st raft.StateType) int64 {
	switch st {
	case raft.StateCandidate:
		return 1
	case raft.StateLeader:
		return 2
	case raft.StatePreCandidate:
		return 3
	}
	return 0
}

func entryHash(e *pb.Entry) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/", e.GetTerm(), e.GetType())
	h.Write(e.GetData())
	return int64(h.Sum64() >> 1)
}

// quiet is a raft.Logger that drops the library's messages except panics.
type quiet struct{}

func (quiet) Debug(...any)              {}
func (quiet) Debugf(string, ...any)     {}
func (quiet) Error(...any)              {}
func (quiet) Errorf(string, ...any)     {}
func (quiet) Info(...any)               {}
func (quiet) Infof(string, ...any)      {}
func (quiet) Warning(...any)            {}
func (quiet) Warningf(string, ...any)   {}
func (quiet) Fatal(v ...any)            { panic(fmt.Sprint(v...)) }
func (quiet) Fatalf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
func (quiet) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (quiet) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
