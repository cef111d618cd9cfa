// Command kv is a replicated key-value server on etcd's raft library
// (go.etcd.io/raft/v3), used as its documentation describes: a TCP
// transport between nodes, the log and HardState persisted with fsync
// before the messages of the same Ready are sent, committed entries
// applied in order, linearizable reads through ReadIndex, and snapshots:
// every -snap-count applied entries the node snapshots its state machine
// and compacts its log, keeping -snap-keep entries for slow followers;
// a follower further behind gets the leader's snapshot (MsgSnap).
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
// are Config.ElectionTick and HeartbeatTick in ticks (default 10 and 1);
// -snap-count and -snap-keep are etcd's --snapshot-count and
// --snapshot-catchup-entries (default 10000 and 5000 entries).
//
// usage: kv [-tick D] [-election-tick N] [-heartbeat-tick N] [-snap-count N] [-snap-keep N] ID NODES BASE VARIANT
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
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
	snap                        *pb.Snapshot // the persisted snapshot, nil before the first
	ents                        []*pb.Entry  // the persisted log after the snapshot's compaction
	dirty                       bool         // written, not yet fsync'd (persist-late)
	kv                          map[string]string
	applies                     []applied     // what the state machine applied, per index 1..logCap
	conf                        *pb.ConfState // the configuration a snapshot records
	mu                          sync.Mutex
	waiting                     map[string]net.Conn // request id → the client connection
	reads                       map[string]read     // read request context → the read
	applied                     uint64
	out                         []chan outMsg // per peer
	tick                        time.Duration // the interval of Node.Tick
	electionTick, heartbeatTick int
	snapCount, snapKeep         uint64
}

// applied is the term and hash of an entry the state machine applied:
// part of its state, so a snapshot carries it and a node restored from
// one still shows which entries it holds (log_term, log_hash,
// applied_hash for indexes the snapshot compacted away).
type applied struct{ Term, Hash int64 }

// machine is a snapshot's data: the state machine.
type machine struct {
	KV      map[string]string
	Applies []applied
}

// outMsg is a message for a peer's sender; a snapshot is reported to the
// library once sent (Node.ReportSnapshot).
type outMsg struct {
	data []byte
	snap bool
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
	snapCount := fs.Uint64("snap-count", 10000, "applied entries between two snapshots (etcd's --snapshot-count)")
	snapKeep := fs.Uint64("snap-keep", 5000, "entries kept after a snapshot for slow followers (etcd's --snapshot-catchup-entries)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: kv [-tick D] [-election-tick N] [-heartbeat-tick N] [-snap-count N] [-snap-keep N] ID NODES BASE VARIANT")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	args := fs.Args()
	if len(args) != 4 || *tick <= 0 || *snapCount == 0 {
		fs.Usage()
		os.Exit(2)
	}
	id, _ := strconv.Atoi(args[0])
	nodes, _ := strconv.Atoi(args[1])
	base, _ := strconv.Atoi(args[2])
	s := &server{hs: &pb.HardState{}, id: uint64(id + 1), nodes: nodes, base: base, variant: args[3], kv: map[string]string{},
		waiting: map[string]net.Conn{}, reads: map[string]read{}, tick: *tick, electionTick: *election, heartbeatTick: *heartbeat,
		snapCount: *snapCount, snapKeep: *snapKeep, conf: &pb.ConfState{}}
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
	s.out = make([]chan outMsg, s.nodes+1)
	for p := 1; p <= s.nodes; p++ {
		if uint64(p) != s.id {
			s.out[p] = make(chan outMsg, 256)
			go s.sender(uint64(p))
		}
	}
	go s.acceptPeers(raftLn)
	go s.acceptClients(clientLn)
	return s.loop()
}

// loop is the library's documented cycle: tick (every s.tick); on Ready persist, send,
// apply (a snapshot, then the committed entries), advance; then snapshot if due.
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
			if err := s.restore(rd.Snapshot); err != nil {
				return err
			}
			s.apply(rd.CommittedEntries)
			s.readStates(rd.ReadStates)
			s.node.Advance()
			if err := s.maybeSnapshot(); err != nil {
				return err
			}
		}
	}
}

// persist saves the snapshot, HardState and entries of rd (and, unless
// the variant is persist-late, makes them durable) before its messages go
// out; a snapshot goes into the library's storage before the entries that
// follow it.
func (s *server) persist(rd raft.Ready) error {
	snap := rd.Snapshot != nil && !raft.IsEmptySnap(rd.Snapshot)
	if snap {
		s.snap = proto.CloneOf(rd.Snapshot)
		s.compact(s.snap.GetMetadata().GetIndex())
		if err := s.storage.ApplySnapshot(rd.Snapshot); err != nil {
			return err
		}
	}
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
	if !snap && (rd.HardState == nil || raft.IsEmptyHardState(rd.HardState)) && len(rd.Entries) == 0 {
		return nil
	}
	return s.save()
}

// save writes the state file and makes it durable, or, in persist-late,
// leaves the fsync to the next tick.
func (s *server) save() error {
	if err := s.write(); err != nil {
		return err
	}
	if s.variant == "persist-late" {
		s.dirty = true // fsync'd at the next tick: after the messages went out
		return nil
	}
	return s.state.Sync()
}

// compact drops the persisted entries up to index i.
func (s *server) compact(i uint64) {
	keep := s.ents[:0:0]
	for _, e := range s.ents {
		if e.GetIndex() > i {
			keep = append(keep, e)
		}
	}
	s.ents = keep
}

// write writes the state file: the HardState, the snapshot (an empty one
// before the first), then every entry, each framed by its length.
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
	snap := s.snap
	if snap == nil {
		snap = &pb.Snapshot{}
	}
	if err := frame(snap); err != nil {
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

// load opens the state file and reads the HardState, snapshot and log
// into the library's MemoryStorage and the snapshot into the state
// machine; restart is false when there was none.
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
	if len(frames) < 2 {
		return false, nil
	}
	s.hs = &pb.HardState{}
	if err := proto.Unmarshal(frames[0], s.hs); err != nil {
		return false, err
	}
	snap := &pb.Snapshot{}
	if err := proto.Unmarshal(frames[1], snap); err != nil {
		return false, err
	}
	if !raft.IsEmptySnap(snap) {
		s.snap = snap
		if err := s.storage.ApplySnapshot(snap); err != nil {
			return false, err
		}
		if err := s.restore(snap); err != nil {
			return false, err
		}
		fmt.Fprintf(os.Stderr, "kv: restarted from the snapshot at index %d\n", snap.GetMetadata().GetIndex())
	}
	for _, f := range frames[2:] {
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

// restore replaces the state machine by snapshot snap's (a leader's, or
// the node's own at start-up) unless it has applied as far already.
func (s *server) restore(snap *pb.Snapshot) error {
	if snap == nil || raft.IsEmptySnap(snap) || snap.GetMetadata().GetIndex() <= s.applied {
		return nil
	}
	var m machine
	if err := json.Unmarshal(snap.GetData(), &m); err != nil {
		return fmt.Errorf("snapshot at %d: %v", snap.GetMetadata().GetIndex(), err)
	}
	s.kv, s.applies = m.KV, m.Applies
	if s.kv == nil {
		s.kv = map[string]string{}
	}
	for i := range stApplied {
		var h int64
		if i < len(s.applies) {
			h = s.applies[i].Hash
		}
		stApplied[i] = h
	}
	s.conf = proto.CloneOf(snap.GetMetadata().GetConfState())
	if s.node != nil { // not at start-up: a leader sent it
		fmt.Fprintf(os.Stderr, "kv: applied the leader's snapshot at index %d\n", snap.GetMetadata().GetIndex())
	}
	s.applied = snap.GetMetadata().GetIndex()
	s.serveReads()
	return nil
}

// maybeSnapshot snapshots the state machine once it has applied
// snapCount entries since the last snapshot, and compacts the log to
// snapKeep entries behind it, as etcd's raftexample does.
func (s *server) maybeSnapshot() error {
	last := uint64(0)
	if s.snap != nil {
		last = s.snap.GetMetadata().GetIndex()
	}
	if s.applied-last < s.snapCount {
		return nil
	}
	data, err := json.Marshal(machine{KV: s.kv, Applies: s.applies})
	if err != nil {
		return err
	}
	snap, err := s.storage.CreateSnapshot(s.applied, s.conf, data)
	if err != nil {
		return err
	}
	s.snap = proto.CloneOf(snap)
	if s.applied > s.snapKeep {
		i := s.applied - s.snapKeep
		if err := s.storage.Compact(i); err != nil && err != raft.ErrCompacted {
			return err
		}
		s.compact(i)
	}
	if err := s.save(); err != nil {
		return err
	}
	s.observe(raft.Ready{})
	return nil
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
		snap := m.GetType() == pb.MsgSnap
		select {
		case s.out[to] <- outMsg{d, snap}:
		default: // the peer is slow or gone: raft retries
			s.node.ReportUnreachable(to)
			if snap {
				s.node.ReportSnapshot(to, raft.SnapshotFailure)
			}
		}
	}
}

// sender keeps one connection to peer p and writes its messages, dialling
// again after an error.
func (s *server) sender(p uint64) {
	var c net.Conn
	d := net.Dialer{Timeout: time.Second}
	status := func(msg outMsg, st raft.SnapshotStatus) {
		if msg.snap {
			s.node.ReportSnapshot(p, st)
		}
	}
	for msg := range s.out[p] {
		if c == nil {
			var err error
			if c, err = d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.base+10+int(p)-1)); err != nil {
				c = nil
				s.node.ReportUnreachable(p)
				status(msg, raft.SnapshotFailure)
				continue
			}
		}
		frame := binary.BigEndian.AppendUint32(nil, uint32(len(msg.data)))
		if _, err := c.Write(append(frame, msg.data...)); err != nil {
			c.Close()
			c = nil
			s.node.ReportUnreachable(p)
			status(msg, raft.SnapshotFailure)
			continue
		}
		status(msg, raft.SnapshotFinish)
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
				s.conf = s.node.ApplyConfChange(&cc)
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
			for uint64(len(s.applies)) < i-1 { // not applied here: restored from no snapshot
				s.applies = append(s.applies, applied{})
			}
			s.applies = append(s.applies[:i-1], applied{int64(e.GetTerm()), h})
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
	if s.snap != nil { // the entries a snapshot holds, as its state machine applied them
		for i, a := range s.applies {
			if uint64(i) < s.snap.GetMetadata().GetIndex() {
				terms[i], hashes[i] = a.Term, a.Hash
			}
		}
	}
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
