package sched

import (
	"math/rand/v2"
	"slices"
	"sort"
)

// EventWorld is what the seeded scheduler reads of a world between steps:
// the messages in flight, the pending timers and liveness. It only reads:
// every action, the network's drops and duplicates too, is applied by the
// world's one apply path. Times are virtual ns.
type EventWorld interface {
	Status(i int) NodeStatus
	// Channels is the number of channels; Channel describes one; Pending
	// counts its messages without describing them (or is -1 when the
	// world cannot tell), so that each step describes only the channels
	// that grew (a run may open thousands of connections).
	Channels() int
	Channel(c int) ChannelInfo
	Pending(c int) int
	// Timers lists every parked call's pending timeout, in node order.
	Timers() []TimerInfo
}

// ChannelInfo describes one channel of the network.
type ChannelInfo struct {
	From, To int     // sending node; the node that would receive now (-1 none)
	Datagram bool    // datagrams may be lost, duplicated and reordered
	Sent     []int64 // each message's send time, in channel order
	// IDs are the messages' identities, in channel order: unique in the
	// world, a duplicate having its own (netsim's Message.ID).
	IDs []uint64
}

// TimerInfo is one pending timeout.
type TimerInfo struct {
	Node     int
	Task     int // the thread of Node whose call times out
	Deadline int64
}

// ThreadWorld is an EventWorld whose nodes run several threads: at a point
// where more than one thread of a node may run next, Ready lists the Run
// choices, and the seeded scheduler draws one from the seed at Now.
type ThreadWorld interface {
	EventWorld
	Ready() []Action
	Now() int64
}

// Draw draws a non-negative duration in µs.
type Draw func(r *rand.Rand) int64

// FaultEvent is one scheduled fault (or death notice) of a seeded run.
type FaultEvent struct {
	AtUS  int64 // virtual µs since the start
	Kind  Kind  // Crash, Restart or Notice
	Node  int
	About int // Notice: the crashed node
}

// PartitionPlan is one partition of a seeded run: fixed (From, Until µs)
// or, when Until is 0, beginning at a time drawn in the fault window and
// lasting a drawn Duration.
type PartitionPlan struct {
	From, Until int64
	Duration    Draw
	Cut         Cut
}

// Window is a partition as scheduled: active in [Start, End) ns.
type Window struct {
	Start, End int64
	Cut        Cut
}

// ClientPlan is when one client request is sent: at AtUS if Fixed, else
// at a time drawn uniformly in [From, Until] µs. A Held request's time
// counts from its release (Seeded.Release) instead of the run's start.
type ClientPlan struct {
	Fixed       bool
	AtUS        int64
	From, Until int64
	Held        bool
}

// Plan configures a seeded run. Two independent random streams derive
// from the seed — faults and network — and a third for client requests,
// so the fault schedule of a seed is the same for every variant (paired
// comparisons) whatever the messages do.
type Plan struct {
	Seed  uint64
	Epoch int64 // virtual ns at time 0
	FIFO  bool
	// Drop, Duplicate and Reorder are the datagram fault probabilities.
	Drop, Duplicate, Reorder float64
	Latency                  Draw
	// Crashes distinct nodes of Nodes crash at uniform times in
	// [From, Until] µs, each restarting after RestartDelay if Restart.
	Nodes        []int
	Crashes      int
	From, Until  int64
	Restart      bool
	RestartDelay Draw
	// Given, if non-nil, replaces the drawn fault schedule (shrinking);
	// the draws are still made so that everything after them is unchanged.
	Given      []FaultEvent
	Partitions []PartitionPlan
	// Notices sends every live node a death notice after a drawn latency
	// (NoticeDelay, or Latency when nil) when a node crashes.
	Notices     bool
	NoticeDelay Draw
	Clients     []ClientPlan
	// Workload, if set, runs closed-loop clients beside Clients.
	Workload *WorkloadPlan
	// Clocks, if set, draws every node's clock fault (see Clock).
	Clocks *ClockPlan
	// Omit removes drawn faults and workload operations (shrinking).
	Omit Omit
	_    struct{}
}

// WorkloadPlan is the clients of a workload in a seeded run. Each client
// invokes one operation at a time: a pause drawn in [0, ThinkUS] µs after
// the start or after its previous operation ended, it draws one of the
// calls of its next slot (which operation, value and node); the
// operation ends with its reply (Completed) or at its deadline, TimeoutUS
// after the invocation, with an Expire choice (indeterminate).
type WorkloadPlan struct {
	Clients int
	// Slot is the range [lo, hi) of client c's k-th operation's calls
	// (Client action Req values); ok is false when c has no k-th one.
	Slot      func(c, k int) (lo, hi int, ok bool)
	ThinkUS   int64
	TimeoutUS int64
	// StartUS is when the clients begin (their first pause counts from
	// it); Held clients begin at their release instead (Seeded.Release).
	StartUS int64
	Held    bool
	_       struct{}
}

// Seeded is the discrete-event scheduler of one seeded run: every message
// gets a latency (and, for datagrams, a fate) drawn from the seed, faults
// and client requests happen at drawn times, and the next event is always
// the earliest pending one.
type Seeded struct {
	p       Plan
	lat     *rand.Rand
	faults  []FaultEvent // pending, in time order
	windows []Window
	clients []pendingClient
	held    []pendingClient // requests waiting for Release, by request
	// released is set by Release.
	released bool
	// meta is what the scheduler decided of each message in flight, by
	// its identity: the world (netsim) is the one store of the messages
	// and their order, read at every step.
	meta map[uint64]msgMeta
	// copies are the stand-in identities of the copies drawn by Dup
	// choices not yet applied, in order: the world gives a copy its
	// identity when it applies the Dup (Applied), and the copy's decisions
	// move to it then.
	copies    []uint64
	nextStand uint64     // the last stand-in identity given
	view      []chanView // the step's channels with messages (schedule)
	drawn     []FaultEvent
	counts    Counts
	cr        *rand.Rand // the client stream
	wl        []wlClient
	thr       *rand.Rand // interleavings: which ready thread runs next
	clocks    []Clock    // per node, drawn from the "clocks" stream
}

// wlClient is one workload client's next event: an invocation of Req at
// At (ready) or the deadline At of its pending operation (waiting).
type wlClient struct {
	seq            int
	ready, waiting bool
	at             int64 // ns
	req            int
}

// Counts are what the network did to the messages of a run so far.
type Counts struct {
	Sent       int64 // messages the nodes sent (duplicates not counted)
	Dropped    int64 // lost datagrams, also those a partition cut
	Duplicated int64 // datagrams the network duplicated
	Held       int64 // stream segments a partition held until its heal
}

// Counts reports what the network did so far.
func (s *Seeded) Counts() Counts { return s.counts }

type pendingClient struct {
	at   int64 // ns; a held request's offset from its release
	req  int
	held bool
}

// chanView is one channel with messages, as schedule read it this step.
type chanView struct {
	c    int
	info ChannelInfo
}

type msgMeta struct {
	scheduled bool
	due       int64
	free      bool // may overtake earlier messages of its channel
	copy      bool
}

// NewSeeded draws the run's fault, partition and client schedules.
func NewSeeded(p Plan) *Seeded {
	s := &Seeded{p: p, meta: map[uint64]msgMeta{}}
	fr := rand.New(rand.NewPCG(p.Seed, 0x6661756c7473))     // "faults"
	s.lat = rand.New(rand.NewPCG(p.Seed, 0x6e6574776f726b)) // "network"
	s.thr = rand.New(rand.NewPCG(p.Seed, 0x74687265616473)) // "threads"
	s.drawFaults(fr)
	if p.Given != nil {
		s.faults = slices.Clone(p.Given)
	}
	s.drawn = slices.Clone(s.faults)
	s.drawPartitions(fr)
	cr := rand.New(rand.NewPCG(p.Seed, 0x636c69656e74)) // "client"
	for i, c := range p.Clients {
		at := c.AtUS
		if !c.Fixed {
			at = c.From
			if c.Until > c.From {
				at += cr.Int64N(c.Until - c.From + 1)
			}
		}
		if c.Held {
			s.held = append(s.held, pendingClient{at: at * 1000, req: i, held: true})
			continue
		}
		s.clients = append(s.clients, pendingClient{at: p.Epoch + at*1000, req: i})
	}
	sort.SliceStable(s.clients, func(i, j int) bool { return s.clients[i].at < s.clients[j].at })
	s.cr = cr
	s.clocks = drawClocks(p.Seed, p.Clocks)
	for _, n := range p.Omit.Clocks {
		if n >= 0 && n < len(s.clocks) {
			s.clocks[n] = Clock{}
		}
	}
	if wp := p.Workload; wp != nil {
		s.wl = make([]wlClient, wp.Clients)
		for c := range s.wl {
			s.wl[c].seq = -1
		}
		if !wp.Held {
			s.startWorkload(p.Epoch + wp.StartUS*1000)
		}
	}
	return s
}

// startWorkload draws every workload client's first operation after t.
func (s *Seeded) startWorkload(t int64) {
	for c := range s.wl {
		s.nextOp(c, t)
	}
}

// HeldRequests reports whether some client requests wait for their
// release (ReleaseRequests).
func (s *Seeded) HeldRequests() bool { return len(s.held) > 0 }

// HeldWorkload reports whether the workload's clients wait for their
// release (ReleaseWorkload).
func (s *Seeded) HeldWorkload() bool {
	return s.p.Workload != nil && s.p.Workload.Held && !s.released
}

// ReleaseRequests sends the held client requests from t (ns) on: their
// times count from it.
func (s *Seeded) ReleaseRequests(t int64) {
	for _, c := range s.held {
		s.clients = append(s.clients, pendingClient{at: t + c.at, req: c.req})
	}
	s.held = nil
	sort.SliceStable(s.clients, func(i, j int) bool { return s.clients[i].at < s.clients[j].at })
}

// ReleaseWorkload starts the held workload clients at t (ns) plus the
// plan's StartUS. Later calls do nothing.
func (s *Seeded) ReleaseWorkload(t int64) {
	if s.HeldWorkload() {
		s.released = true
		s.startWorkload(t + s.p.Workload.StartUS*1000)
	}
}

// nextOp draws client c's next operation after time t (ns): its pause
// and which call of its slot it makes.
func (s *Seeded) nextOp(c int, t int64) {
	wp, cl := s.p.Workload, &s.wl[c]
	cl.seq++
	cl.ready, cl.waiting = false, false
	lo, hi, ok := wp.Slot(c, cl.seq)
	if !ok || hi <= lo || !s.p.Omit.opAllowed(c, cl.seq) {
		return
	}
	pause := int64(0)
	if wp.ThinkUS > 0 {
		pause = s.cr.Int64N(wp.ThinkUS + 1)
	}
	cl.ready, cl.at, cl.req = true, t+pause*1000, lo+s.cr.IntN(hi-lo)
}

// Completed tells the scheduler that client c's pending operation got
// its reply at t (ns): the client goes on with its next one.
func (s *Seeded) Completed(c int, t int64) {
	if c >= 0 && c < len(s.wl) && s.wl[c].waiting {
		s.nextOp(c, t)
	}
}

// Faults is the fault schedule the run uses (drawn or given).
func (s *Seeded) Faults() []FaultEvent { return s.drawn }

// Windows is the partition schedule.
func (s *Seeded) Windows() []Window { return s.windows }

// ClientTimes lists each client request's send time in ns, by request;
// a held request's is its offset from its release, and held is true.
func (s *Seeded) ClientTimes() (at []int64, held []bool) {
	at, held = make([]int64, len(s.clients)+len(s.held)), make([]bool, len(s.clients)+len(s.held))
	for _, c := range s.clients {
		at[c.req] = c.at
	}
	for _, c := range s.held {
		at[c.req], held[c.req] = c.at, true
	}
	return at, held
}

func (s *Seeded) drawFaults(fr *rand.Rand) {
	p := s.p
	nodes := slices.Clone(p.Nodes)
	fr.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	for i := 0; i < p.Crashes && i < len(nodes); i++ {
		at := p.From
		if p.Until > p.From {
			at += fr.Int64N(p.Until - p.From + 1)
		}
		s.faults = append(s.faults, FaultEvent{AtUS: at, Kind: Crash, Node: nodes[i]})
		if p.Restart {
			s.faults = append(s.faults, FaultEvent{AtUS: at + 1 + p.RestartDelay(fr), Kind: Restart, Node: nodes[i]})
		}
	}
	sort.SliceStable(s.faults, func(i, j int) bool { return s.faults[i].AtUS < s.faults[j].AtUS })
}

func (s *Seeded) drawPartitions(fr *rand.Rand) {
	for _, pp := range s.p.Partitions {
		start, end := pp.From, pp.Until
		if end == 0 {
			start = s.p.From
			if s.p.Until > s.p.From {
				start += fr.Int64N(s.p.Until - s.p.From + 1)
			}
			end = start + max(1, pp.Duration(fr))
		}
		s.windows = append(s.windows, Window{Start: s.p.Epoch + start*1000, End: s.p.Epoch + end*1000, Cut: pp.Cut})
	}
	for _, i := range slices.Backward(slices.Sorted(slices.Values(s.p.Omit.Partitions))) {
		if i >= 0 && i < len(s.windows) {
			s.windows = slices.Delete(s.windows, i, i+1)
		}
	}
}

// partitioned returns the heal time if a message from a to b due at t
// crosses an active partition.
func (s *Seeded) partitioned(a, b int, t int64) (int64, bool) {
	for _, w := range s.windows {
		if t >= w.Start && t < w.End && w.Cut(a, b) {
			return w.End, true
		}
	}
	return 0, false
}

// schedule draws the fate and arrival time of every message not yet
// scheduled, in canonical order (by channel, then position), and returns
// the drops and duplicates it draws as choices, for the caller to apply
// in order (the channels it keeps in s.view show them applied). FIFO
// channels never let a message overtake an earlier one; datagrams may be
// lost (also when a partition cuts them), duplicated or reordered. It
// leaves in s.view every channel that has messages, as they are now.
func (s *Seeded) schedule(w EventWorld) []Action {
	var made []Action
	s.view = s.view[:0]
	for c := 0; c < w.Channels(); c++ {
		if w.Pending(c) == 0 {
			continue
		}
		info := w.Channel(c)
		var prev int64
		for i := 0; i < len(info.IDs); i++ {
			m, known := s.meta[info.IDs[i]]
			if !known {
				s.counts.Sent++
			}
			if !m.scheduled {
				dgram := info.Datagram
				if dgram && s.p.Drop > 0 && s.lat.Float64() < s.p.Drop && !s.p.Omit.NoDrops {
					made = append(made, s.drop(c, i, &info))
					i--
					continue
				}
				if dgram && !m.copy && s.p.Duplicate > 0 && s.lat.Float64() < s.p.Duplicate && !s.p.Omit.NoDrops {
					id := s.standIn()
					info.Sent = slices.Insert(info.Sent, i+1, info.Sent[i])
					info.IDs = slices.Insert(info.IDs, i+1, id)
					s.meta[id] = msgMeta{copy: true}
					made = append(made, Action{Kind: Dup, Chan: c, Index: i})
					s.counts.Duplicated++
				}
				m.free = dgram && s.p.Reorder > 0 && s.lat.Float64() < s.p.Reorder
				lat := s.p.Latency(s.lat) * 1000
				m.due = info.Sent[i] + lat
				m.scheduled = true
				if heal, cut := s.partitioned(info.From, info.To, m.due); cut {
					if dgram {
						made = append(made, s.drop(c, i, &info))
						i--
						continue
					}
					m.due = heal + lat // retransmitted after the heal
					s.counts.Held++
				}
				if s.p.FIFO && !m.free && m.due < prev {
					m.due = prev
				}
				s.meta[info.IDs[i]] = m
			}
			if !m.free {
				prev = max(prev, m.due)
			}
		}
		if len(info.IDs) > 0 {
			s.view = append(s.view, chanView{c, info})
		}
	}
	return made
}

// standIn is the identity a drawn copy has until the world makes it: the
// top of the identity space, which the world's own (counted from 1) never
// reach.
func (s *Seeded) standIn() uint64 {
	s.nextStand++
	id := ^uint64(0) - s.nextStand
	s.copies = append(s.copies, id)
	return id
}

func (s *Seeded) drop(c, i int, info *ChannelInfo) Action {
	s.counts.Dropped++
	delete(s.meta, info.IDs[i])
	info.Sent = slices.Delete(info.Sent, i, i+1)
	info.IDs = slices.Delete(info.IDs, i, i+1)
	return Action{Kind: Drop, Chan: c, Index: i}
}

// Next draws the fate of the messages sent since the last step (Drop and
// Dup choices, in pre) and picks the earliest pending event, at virtual
// time at. The caller applies pre to the world first, in order, telling
// Applied of each, then a. Ties go to faults, then client
// requests, then deliveries in channel order, then timers in node order.
// ok is false when nothing is pending.
//
// When w is a ThreadWorld with ready threads, the next event is one of
// them, drawn uniformly from the interleaving stream, at the current time:
// threads run before time moves on.
func (s *Seeded) Next(w EventWorld) (pre []Action, a Action, at int64, ok bool) {
	pre = s.schedule(w)
	if tw, isT := w.(ThreadWorld); isT {
		if ready := tw.Ready(); len(ready) > 0 {
			return pre, ready[s.thr.IntN(len(ready))], tw.Now(), true
		}
	}
	consider := func(c Action, t int64) {
		if !ok || t < at {
			a, at, ok = c, t, true
		}
	}
	if len(s.faults) > 0 {
		f := s.faults[0]
		consider(Action{Kind: f.Kind, Node: f.Node, Req: f.About}, s.p.Epoch+f.AtUS*1000)
	}
	if len(s.clients) > 0 {
		consider(Action{Kind: Client, Req: s.clients[0].req}, s.clients[0].at)
	}
	for c, cl := range s.wl {
		switch {
		case cl.ready:
			consider(Action{Kind: Client, Req: cl.req}, cl.at)
		case cl.waiting:
			consider(Action{Kind: Expire, Req: c}, cl.at)
		}
	}
	for _, v := range s.view {
		head := true
		for i, id := range v.info.IDs {
			m := s.meta[id]
			// On a FIFO channel only the first message in order may arrive,
			// and reordered datagrams, which may overtake it (a reordered
			// datagram at the head does not hold back the ones behind it).
			if !s.p.FIFO || m.free || head {
				consider(Action{Kind: Deliver, Chan: v.c, Index: i}, m.due)
			}
			head = head && m.free
		}
	}
	for _, t := range w.Timers() {
		consider(Action{Kind: Timer, Node: t.Node, Task: t.Task}, t.Deadline)
	}
	return pre, a, at, ok
}

// Applied tells the scheduler that a, chosen by Next, is applied at at:
// a delivered message leaves its channel, a fault or request leaves the
// schedule, and a duplicated message's copy gets its identity. The caller
// tells it of a Dup after the world applied it (the copy, right after
// its original, then has the identity the world gave it), of every other
// action before.
func (s *Seeded) Applied(w EventWorld, a Action, at int64) {
	switch a.Kind {
	case Dup:
		if len(s.copies) == 0 {
			break
		}
		stand := s.copies[0]
		s.copies = s.copies[1:]
		m, kept := s.meta[stand]
		ids := w.Channel(a.Chan).IDs
		if !kept || a.Index+1 >= len(ids) {
			break // the copy was drawn lost in the same step
		}
		delete(s.meta, stand)
		s.meta[ids[a.Index+1]] = m
	case Deliver:
		// Applied comes before the world delivers: the message is there.
		if ids := w.Channel(a.Chan).IDs; a.Index < len(ids) {
			delete(s.meta, ids[a.Index])
		}
	case Client:
		if len(s.clients) > 0 && s.clients[0].req == a.Req {
			s.clients = s.clients[1:]
			break
		}
		for c := range s.wl {
			if cl := &s.wl[c]; cl.ready && cl.req == a.Req {
				cl.ready, cl.waiting, cl.at = false, true, at+s.p.Workload.TimeoutUS*1000
				break
			}
		}
	case Expire:
		if a.Req >= 0 && a.Req < len(s.wl) && s.wl[a.Req].waiting {
			s.nextOp(a.Req, at)
		}
	case Crash, Restart, Notice:
		if len(s.faults) > 0 && s.faults[0].Node == a.Node && s.faults[0].Kind == a.Kind {
			s.faults = s.faults[1:]
		}
	}
}

// Crashed schedules the death notices of a crash applied at at (ns),
// one to every other live node, when the plan asks for them. n is the
// number of nodes.
func (s *Seeded) Crashed(w EventWorld, crashed, n int, at int64) {
	if !s.p.Notices {
		return
	}
	delay := s.p.NoticeDelay
	if delay == nil {
		delay = s.p.Latency
	}
	for k := 0; k < n; k++ {
		if k == crashed || !w.Status(k).Alive {
			continue
		}
		due := (at-s.p.Epoch)/1000 + delay(s.lat)
		s.faults = append(s.faults, FaultEvent{AtUS: due, Kind: Notice, Node: k, About: crashed})
	}
	sort.SliceStable(s.faults, func(i, j int) bool { return s.faults[i].AtUS < s.faults[j].AtUS })
}

// Reseed makes the scheduler's later draws derive from seed: the
// network's (latencies and fates of the messages not yet scheduled, death
// notices' delays), the interleaving's and the client stream's. What was
// drawn before stays: the fault, partition and clock schedules, the
// messages already scheduled and the client requests already timed. The
// guided strategy continues a run with it from a cut (SeededGuide).
func (s *Seeded) Reseed(seed uint64) {
	s.lat = rand.New(rand.NewPCG(seed, 0x6e6574776f726b)) // "network"
	s.thr = rand.New(rand.NewPCG(seed, 0x74687265616473)) // "threads"
	s.cr = rand.New(rand.NewPCG(seed, 0x636c69656e74))    // "client"
}
