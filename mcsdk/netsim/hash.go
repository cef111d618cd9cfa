package netsim

import (
	"encoding/binary"
	"hash"
	"sort"
)

// Hash writes a canonical encoding of the network state to h: every field
// of every socket, channel and message, the port tables, the default
// buffer sizes and the next ephemeral port, with pointers written as
// creation indices. Socket and channel identities are creation indices,
// which are deterministic within a run, so equal histories hash equally;
// and since nothing is left out, two networks hash equally only if no
// later operation can tell them apart (TestHashIsCanonical checks both
// directions).
func (n *Network) Hash(h hash.Hash) {
	e := hasher{h: h}
	e.put(n.Now)
	e.put(int64(n.ephemeral))
	e.put(int64(n.Bufs.StreamSnd))
	e.put(int64(n.Bufs.StreamRcv))
	e.put(int64(n.Bufs.DgramSnd))
	e.put(int64(n.Bufs.DgramRcv))
	e.put(int64(len(n.Sockets)))
	for _, s := range n.Sockets {
		e.socket(s)
	}
	e.put(int64(len(n.Channels)))
	for _, c := range n.Channels {
		e.put(int64(c.ID))
		e.sock(c.From)
		e.sock(c.To)
		e.flag(c.Stream)
		e.put(int64(c.DstPort))
		e.put(int64(c.FromNode))
		e.put(int64(c.ToNode))
		e.put(int64(len(c.Msgs)))
		for _, m := range c.Msgs {
			e.msg(m)
		}
	}
	e.ports(n.listeners)
	e.ports(n.dgramPort)
	if len(n.second) > 0 {
		e.ports(n.second)
	}
}

type hasher struct {
	h hash.Hash
	b [8]byte
}

func (e *hasher) put(v int64) {
	binary.LittleEndian.PutUint64(e.b[:], uint64(v))
	e.h.Write(e.b[:])
}

func (e *hasher) putBytes(p []byte) { e.put(int64(len(p))); e.h.Write(p) }

func (e *hasher) flag(v bool) {
	if v {
		e.put(1)
	} else {
		e.put(0)
	}
}

func (e *hasher) sock(s *Socket) {
	if s == nil {
		e.put(-1)
	} else {
		e.put(int64(s.ID))
	}
}

func (e *hasher) ch(c *Channel) {
	if c == nil {
		e.put(-1)
	} else {
		e.put(int64(c.ID))
	}
}

func (e *hasher) addr(a Addr) {
	e.h.Write(a.IP[:])
	e.put(int64(a.Port))
	e.put(int64(a.Six))
}

func (e *hasher) msg(m Message) {
	e.putBytes(m.Data)
	e.addr(m.From)
	e.addr(m.To)
	e.flag(m.SYN)
	e.flag(m.FIN)
	e.flag(m.RST)
	e.put(m.Sent)
	e.flag(m.Copy)
}

func (e *hasher) ports(m map[uint16]*Socket) {
	keys := make([]int, 0, len(m))
	for p := range m {
		keys = append(keys, int(p))
	}
	sort.Ints(keys)
	e.put(int64(len(keys)))
	for _, p := range keys {
		e.put(int64(p))
		e.sock(m[uint16(p)])
	}
}

func (e *hasher) socket(s *Socket) {
	e.put(int64(s.ID))
	e.put(int64(s.Node))
	e.put(int64(s.Kind))
	e.flag(s.V6)
	e.flag(s.V6Only)
	e.addr(s.Local)
	e.addr(s.Peer)
	e.flag(s.bound)
	e.flag(s.listening)
	e.put(int64(len(s.acceptQ)))
	for _, q := range s.acceptQ {
		e.sock(q)
	}
	e.sock(s.peer)
	e.ch(s.out)
	e.flag(s.connected)
	e.flag(s.syn)
	e.flag(s.inProg)
	e.put(int64(s.soError))
	e.flag(s.refused)
	e.putBytes(s.rbuf)
	e.flag(s.rdEOF)
	e.flag(s.reset)
	e.flag(s.rdShut)
	e.flag(s.wrShut)
	e.flag(s.closed)
	e.put(int64(len(s.dgrams)))
	for _, m := range s.dgrams {
		e.msg(m)
	}
	outs := make([]int, 0, len(s.dgramOut))
	for p := range s.dgramOut {
		outs = append(outs, int(p))
	}
	sort.Ints(outs)
	e.put(int64(len(outs)))
	for _, p := range outs {
		e.put(int64(p))
		e.ch(s.dgramOut[uint16(p)])
	}
	e.put(int64(s.sndBuf))
	e.put(int64(s.rcvBuf))
}
