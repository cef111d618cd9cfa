package vkernel

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// unixStep is one call in TestUnix on the sockets of one node, named
// by letters:
//
//	socket  s typ          socket(2)
//	pair    s t typ        socketpair(2)
//	bind    s name         bind(2) to abstract name ("" automatic; "/key" a path, by its key)
//	listen  s n            listen(2) with backlog n
//	connect s name         connect(2) to name (looked up as bind names it)
//	accept  s t            accept(2): the connection becomes socket t
//	send    s data         a send without an address; waited: a blocking send that waited, done its progress;
//	                       an EPIPE comes with SIGPIPE unless quiet
//	sendto  s name data    a datagram send to name
//	recv    s n            a receive of at most n bytes (peek, waitall, passcred)
//	shut    s n            shutdown(2) with how n
//	close   s              the close of its last description
//	ev      s              its poll mask (want)
//	inq s / outq s         SIOCINQ, SIOCOUTQ (want)
//	peer s                 getpeername (got)
type unixStep struct {
	op, s, t string
	typ      int
	name     string
	n        int
	data     string
	done     int
	waited   bool
	quiet    bool // EPIPE without SIGPIPE
	nonblock bool
	peek     bool
	waitall  bool
	passcred bool
	anc      *UnixAnc
	want     int    // bytes sent or read, a poll mask, a queue length
	got      string // bytes read, a name
	full     int    // a message's whole length (MSG_TRUNC)
	from     string // a datagram's sender name
	rights   int    // descriptors that came with a read
	err      error
}

const (
	evIn  = PollIn | PollRdNorm
	evOut = PollOut | PollWrNorm
)

// abstract is the address of abstract name n, family first.
func abstract(n string) []byte { return append([]byte{1, 0, 0}, n...) }

// nameOf is a step's name as bind and connect take it, and its path key.
func nameOf(n string) ([]byte, string) {
	if strings.HasPrefix(n, "/") {
		return append(append([]byte{1, 0}, n...), 0), "p" + n
	}
	if n == "" {
		return []byte{1, 0}, ""
	}
	return abstract(n), ""
}

// TestUnix runs sequences of calls on AF_UNIX sockets and checks each
// answer against what unix(7), socket(7) and the calls' pages say Linux
// does.
func TestUnix(t *testing.T) {
	big := strings.Repeat("x", UnixCapacity)
	cases := []struct {
		name  string
		steps []unixStep
	}{
		{"a stream keeps no boundaries: bytes come in order, across sends (unix(7))", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "ev", s: "a", want: evOut},
			{op: "send", s: "b", data: "ab", want: 2},
			{op: "send", s: "b", data: "cd", want: 2},
			{op: "ev", s: "a", want: evIn | evOut},
			{op: "inq", s: "a", want: 4},
			{op: "outq", s: "b", want: 4},
			{op: "recv", s: "a", n: 3, peek: true, want: 3, got: "abc", full: 3},
			{op: "recv", s: "a", n: 3, want: 3, got: "abc", full: 3},
			{op: "recv", s: "a", n: 10, want: 1, got: "d", full: 1},
			{op: "recv", s: "a", n: 10, nonblock: true, err: EAGAIN},
			{op: "recv", s: "a", n: 10, err: ErrBlock},
			{op: "send", s: "b", data: "", want: 0},
			{op: "ev", s: "a", want: evOut},
		}},
		{"seqpacket keeps boundaries and truncates a long message, the rest lost (MSG_TRUNC)", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockSeqpacket},
			{op: "send", s: "b", data: "hello", want: 5},
			{op: "send", s: "b", data: "", want: 0},
			{op: "send", s: "b", data: "world", want: 5},
			{op: "inq", s: "a", want: 5},
			{op: "recv", s: "a", n: 2, peek: true, want: 2, got: "he", full: 5},
			{op: "recv", s: "a", n: 2, want: 2, got: "he", full: 5},
			{op: "recv", s: "a", n: 9, want: 0, got: "", full: 0},
			{op: "recv", s: "a", n: 9, want: 5, got: "world", full: 5},
			{op: "recv", s: "a", n: 9, nonblock: true, err: EAGAIN},
		}},
		{"datagrams keep boundaries and carry the sender's name", []unixStep{
			{op: "socket", s: "r", typ: SockDgram},
			{op: "socket", s: "s", typ: SockDgram},
			{op: "socket", s: "u", typ: SockDgram},
			{op: "bind", s: "r", name: "recv"},
			{op: "bind", s: "s", name: "send"},
			{op: "sendto", s: "s", name: "recv", data: "one", want: 3},
			{op: "sendto", s: "u", name: "recv", data: "two!", want: 4},
			{op: "recv", s: "r", n: 2, want: 2, got: "on", full: 3, from: "\x01\x00\x00send"},
			{op: "recv", s: "r", n: 9, want: 4, got: "two!", full: 4, from: ""},
			{op: "sendto", s: "s", name: "none", data: "x", err: ECONNREFUSED},
			{op: "send", s: "s", data: "x", err: ENOTCONN},
		}},
		{"recv after the peer shut its sending side reads the data, then 0 (end of file)", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: "last", want: 4},
			{op: "shut", s: "b", n: 1},
			{op: "ev", s: "a", want: evIn | PollRdHup | evOut},
			{op: "recv", s: "a", n: 9, want: 4, got: "last", full: 4},
			{op: "recv", s: "a", n: 9, want: 0},
			{op: "recv", s: "a", n: 9, nonblock: true, want: 0},
			{op: "send", s: "b", data: "x", err: EPIPE},
			{op: "send", s: "a", data: "back", want: 4},
			{op: "recv", s: "b", n: 9, want: 4, got: "back", full: 4},
		}},
		{"send after the peer closed is EPIPE; recv reads what is left, then 0", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: "bye", want: 3},
			{op: "close", s: "b"},
			{op: "ev", s: "a", want: evIn | PollRdHup | PollHup | evOut},
			{op: "send", s: "a", data: "x", err: EPIPE},
			{op: "recv", s: "a", n: 9, want: 3, got: "bye", full: 3},
			{op: "recv", s: "a", n: 9, want: 0},
			{op: "peer", s: "a", err: ENOTCONN},
		}},
		{"a peer closed with data unread resets the connection (ECONNRESET once)", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "a", data: "unread", want: 6},
			{op: "close", s: "b"},
			{op: "ev", s: "a", want: evIn | PollRdHup | PollHup | PollErr | evOut},
			{op: "recv", s: "a", n: 9, err: ECONNRESET},
			{op: "recv", s: "a", n: 9, want: 0},
		}},
		{"a blocking stream send moves what fits and waits for the rest", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: "12345", want: 5},
			{op: "send", s: "b", data: big, want: UnixCapacity - 5, err: ErrBlock},
			{op: "ev", s: "b", want: 0},
			{op: "recv", s: "a", n: 10, want: 10, got: "12345xxxxx", full: 10},
			{op: "send", s: "b", data: big, done: UnixCapacity - 5, want: UnixCapacity},
			{op: "send", s: "b", data: "123456", nonblock: true, want: 5},
			{op: "send", s: "b", data: "y", nonblock: true, err: EAGAIN},
			{op: "recv", s: "a", n: 1, want: 1, got: "x", full: 1},
			{op: "send", s: "b", data: "yz", nonblock: true, want: 1},
			{op: "close", s: "a"},
			{op: "send", s: "b", data: big, err: EPIPE},
		}},
		{"a stream send that waited and moved bytes returns their count when the peer closes, the reset taken (unix_stream_sendmsg: sent ? : err)", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: big + "1234567", want: UnixCapacity, err: ErrBlock},
			{op: "recv", s: "a", n: 1, want: 1, got: "x", full: 1},
			{op: "close", s: "a"},
			{op: "ev", s: "b", want: evIn | PollRdHup | PollHup | PollErr | evOut},
			{op: "send", s: "b", data: big + "1234567", done: UnixCapacity, waited: true, want: UnixCapacity},
			{op: "ev", s: "b", want: evIn | PollRdHup | PollHup | evOut},
			{op: "recv", s: "b", n: 9, want: 0},
			{op: "send", s: "b", data: "x", err: EPIPE},
		}},
		{"a stream send that waited and moved bytes returns their count when the peer shuts for reading", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: big + "1234567", want: UnixCapacity, err: ErrBlock},
			{op: "shut", s: "a", n: 0},
			{op: "send", s: "b", data: big + "1234567", done: UnixCapacity, waited: true, want: UnixCapacity},
			{op: "send", s: "b", data: "x", err: EPIPE},
		}},
		{"a stream send that waited and moved nothing wakes to the reset, or to EPIPE without SIGPIPE", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: big, want: UnixCapacity},
			{op: "send", s: "b", data: "x", err: ErrBlock},
			{op: "close", s: "a"},
			{op: "send", s: "b", data: "x", waited: true, err: ECONNRESET},
			{op: "send", s: "b", data: "x", waited: true, err: EPIPE, quiet: true},
			{op: "send", s: "b", data: "x", err: EPIPE},
			{op: "pair", s: "c", t: "d", typ: SockStream},
			{op: "send", s: "d", data: big, want: UnixCapacity},
			{op: "send", s: "d", data: "x", err: ErrBlock},
			{op: "shut", s: "c", n: 0},
			{op: "send", s: "d", data: "x", waited: true, err: EPIPE, quiet: true},
			{op: "ev", s: "d", want: 0},
		}},
		{"a listener's close resets every stream connection waiting in its backlog, with data or without (unix_release_sock, embrion)", []unixStep{
			{op: "socket", s: "l", typ: SockStream},
			{op: "bind", s: "l", name: "srv"},
			{op: "listen", s: "l", n: 4},
			{op: "socket", s: "c", typ: SockStream},
			{op: "socket", s: "d", typ: SockStream},
			{op: "socket", s: "e", typ: SockStream},
			{op: "connect", s: "c", name: "srv"},
			{op: "connect", s: "d", name: "srv"},
			{op: "connect", s: "e", name: "srv"},
			{op: "send", s: "e", data: "early", want: 5},
			{op: "close", s: "l"},
			{op: "ev", s: "c", want: evIn | PollRdHup | PollHup | PollErr | evOut},
			{op: "recv", s: "c", n: 9, nonblock: true, err: ECONNRESET},
			{op: "recv", s: "c", n: 9, want: 0},
			{op: "ev", s: "c", want: evIn | PollRdHup | PollHup | evOut},
			{op: "send", s: "d", data: "x", err: EPIPE},
			{op: "recv", s: "d", n: 9, err: ECONNRESET},
			{op: "recv", s: "e", n: 9, err: ECONNRESET},
			{op: "recv", s: "e", n: 9, want: 0},
		}},
		{"a seqpacket send answers the pending reset first, and its EPIPE raises no SIGPIPE", []unixStep{
			{op: "socket", s: "l", typ: SockSeqpacket},
			{op: "bind", s: "l", name: "srv"},
			{op: "listen", s: "l", n: 4},
			{op: "socket", s: "c", typ: SockSeqpacket},
			{op: "connect", s: "c", name: "srv"},
			{op: "close", s: "l"},
			{op: "send", s: "c", data: "x", err: ECONNRESET},
			{op: "send", s: "c", data: "x", err: EPIPE, quiet: true},
			{op: "recv", s: "c", n: 9, want: 0},
			{op: "pair", s: "a", t: "b", typ: SockSeqpacket},
			{op: "close", s: "a"},
			{op: "send", s: "b", data: "x", err: EPIPE, quiet: true},
		}},
		{"a seqpacket message is all or nothing; longer than the buffer is EMSGSIZE", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockSeqpacket},
			{op: "send", s: "b", data: big + "x", err: EMSGSIZE},
			{op: "send", s: "b", data: "12", want: 2},
			{op: "send", s: "b", data: big, nonblock: true, err: EAGAIN},
			{op: "send", s: "b", data: big, err: ErrBlock},
			{op: "recv", s: "a", n: 9, want: 2, got: "12", full: 2},
			{op: "send", s: "b", data: big, want: UnixCapacity},
		}},
		{"MSG_WAITALL waits for the whole count, or the end of file", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: "ab", want: 2},
			{op: "recv", s: "a", n: 4, waitall: true, err: ErrBlock},
			{op: "recv", s: "a", n: 4, waitall: true, peek: true, want: 2, got: "ab", full: 2},
			{op: "send", s: "b", data: "cd", want: 2},
			{op: "recv", s: "a", n: 3, waitall: true, want: 3, got: "abc", full: 3},
			{op: "recv", s: "a", n: 4, waitall: true, err: ErrBlock},
			{op: "shut", s: "b", n: 2},
			{op: "recv", s: "a", n: 4, waitall: true, want: 1, got: "d", full: 1},
		}},
		{"listen, connect, accept; a connection's data waits with it in the backlog", []unixStep{
			{op: "socket", s: "l", typ: SockStream},
			{op: "socket", s: "c", typ: SockStream},
			{op: "connect", s: "c", name: "srv", err: ECONNREFUSED},
			{op: "listen", s: "l", n: 5, err: EINVAL},
			{op: "bind", s: "l", name: "srv"},
			{op: "connect", s: "c", name: "srv", err: ECONNREFUSED},
			{op: "accept", s: "l", t: "x", err: EINVAL},
			{op: "listen", s: "l", n: 5},
			{op: "ev", s: "l", want: 0},
			{op: "accept", s: "l", t: "x", nonblock: true, err: EAGAIN},
			{op: "accept", s: "l", t: "x", err: ErrBlock},
			{op: "ev", s: "c", want: PollHup | evOut},
			{op: "connect", s: "c", name: "srv"},
			{op: "connect", s: "c", name: "srv", err: EISCONN},
			{op: "send", s: "c", data: "early", want: 5},
			{op: "ev", s: "l", want: evIn},
			{op: "accept", s: "l", t: "s"},
			{op: "ev", s: "l", want: 0},
			{op: "peer", s: "s", got: ""},
			{op: "peer", s: "c", got: "\x01\x00\x00srv"},
			{op: "recv", s: "s", n: 9, want: 5, got: "early", full: 5},
			{op: "send", s: "s", data: "reply", want: 5},
			{op: "recv", s: "c", n: 9, want: 5, got: "reply", full: 5},
			{op: "connect", s: "l", name: "srv", err: EINVAL},
			{op: "recv", s: "l", n: 9, err: EINVAL},
			{op: "send", s: "l", data: "x", err: ENOTCONN},
		}},
		{"a full backlog makes connect wait (EAGAIN non-blocking) until an accept", []unixStep{
			{op: "socket", s: "l", typ: SockStream},
			{op: "bind", s: "l", name: "srv"},
			{op: "listen", s: "l", n: 0},
			{op: "socket", s: "c1", typ: SockStream},
			{op: "socket", s: "c2", typ: SockStream},
			{op: "connect", s: "c1", name: "srv"},
			{op: "connect", s: "c2", name: "srv", nonblock: true, err: EAGAIN},
			{op: "connect", s: "c2", name: "srv", err: ErrBlock},
			{op: "accept", s: "l", t: "s1"},
			{op: "connect", s: "c2", name: "srv"},
		}},
		{"closing a listener resets the connections waiting in its backlog", []unixStep{
			{op: "socket", s: "l", typ: SockSeqpacket},
			{op: "bind", s: "l", name: "srv"},
			{op: "listen", s: "l", n: 4},
			{op: "socket", s: "c", typ: SockSeqpacket},
			{op: "connect", s: "c", name: "srv"},
			{op: "send", s: "c", data: "unread", want: 6},
			{op: "close", s: "l"},
			{op: "recv", s: "c", n: 9, err: ECONNRESET},
			{op: "recv", s: "c", n: 9, want: 0},
			{op: "send", s: "c", data: "x", err: EPIPE, quiet: true},
			{op: "socket", s: "d", typ: SockSeqpacket},
			{op: "connect", s: "d", name: "srv", err: ECONNREFUSED},
			{op: "bind", s: "d", name: "srv"},
		}},
		{"names: in use, bound twice, automatic, by path of another type", []unixStep{
			{op: "socket", s: "a", typ: SockStream},
			{op: "socket", s: "b", typ: SockStream},
			{op: "socket", s: "d", typ: SockDgram},
			{op: "bind", s: "a", name: "n"},
			{op: "bind", s: "a", name: "m", err: EINVAL},
			{op: "bind", s: "b", name: "n", err: EADDRINUSE},
			{op: "bind", s: "b", name: ""},
			{op: "bind", s: "d", name: ""},
			{op: "name", s: "b", got: "\x01\x00\x0000000"},
			{op: "name", s: "d", got: "\x01\x00\x0000001"},
			{op: "listen", s: "a", n: 1},
			{op: "connect", s: "d", name: "n", err: ECONNREFUSED},
			{op: "socket", s: "p", typ: SockDgram},
			{op: "bind", s: "p", name: "/run/p.sock"},
			{op: "socket", s: "q", typ: SockStream},
			{op: "connect", s: "q", name: "/run/p.sock", err: EPROTOTYPE},
			{op: "listen", s: "p", n: 1, err: EOPNOTSUPP},
			{op: "accept", s: "p", t: "x", err: EOPNOTSUPP},
		}},
		{"shutdown: bad how, unconnected, and the peer's mirror image", []unixStep{
			{op: "socket", s: "u", typ: SockStream},
			{op: "shut", s: "u", n: 1, err: ENOTCONN},
			{op: "recv", s: "u", n: 1, err: EINVAL},
			{op: "socket", s: "q", typ: SockSeqpacket},
			{op: "recv", s: "q", n: 1, err: ENOTCONN},
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "shut", s: "a", n: 3, err: EINVAL},
			{op: "shut", s: "a", n: 0},
			{op: "ev", s: "a", want: evIn | PollRdHup | evOut},
			{op: "send", s: "b", data: "x", err: EPIPE},
			{op: "recv", s: "a", n: 1, want: 0},
			{op: "shut", s: "a", n: 1},
			{op: "ev", s: "a", want: evIn | PollRdHup | PollHup | evOut},
			{op: "ev", s: "b", want: evIn | PollRdHup | PollHup | evOut},
		}},
		{"a datagram socket connected elsewhere refuses others (EPERM); a closed destination is forgotten", []unixStep{
			{op: "socket", s: "r", typ: SockDgram},
			{op: "socket", s: "s", typ: SockDgram},
			{op: "socket", s: "o", typ: SockDgram},
			{op: "bind", s: "r", name: "r"},
			{op: "bind", s: "o", name: "o"},
			{op: "connect", s: "r", name: "o"},
			{op: "sendto", s: "s", name: "r", data: "x", err: EPERM},
			{op: "connect", s: "s", name: "r", err: EPERM},
			{op: "sendto", s: "o", name: "r", data: "x", want: 1},
			{op: "connect", s: "s", name: "o"},
			{op: "close", s: "o"},
			{op: "send", s: "s", data: "x", err: ECONNREFUSED},
			{op: "send", s: "s", data: "x", err: ENOTCONN},
			{op: "sendto", s: "s", name: "r", data: "x", want: 1},
			{op: "shut", s: "r", n: 0},
			{op: "sendto", s: "s", name: "r", data: "x", err: EPIPE},
			{op: "shut", s: "s", n: 1},
			{op: "sendto", s: "s", name: "nowhere", data: "x", err: EPIPE},
		}},
		{"a datagram receiver holds at most max_dgram_qlen+1 messages from others", []unixStep{
			{op: "socket", s: "r", typ: SockDgram},
			{op: "bind", s: "r", name: "r"},
			{op: "socket", s: "s", typ: SockDgram},
			{op: "connect", s: "s", name: "r"},
			{op: "fill", s: "s", n: UnixDgramQlen},
			{op: "ev", s: "s", want: 0},
			{op: "send", s: "s", data: "x", nonblock: true, err: EAGAIN},
			{op: "send", s: "s", data: "x", err: ErrBlock},
			{op: "recv", s: "r", n: 9, want: 1, got: "m", full: 1, from: ""},
			{op: "send", s: "s", data: "x", want: 1},
		}},
		{"descriptors in flight: the first message of a send takes them, the read that reaches them gets them and stops there", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: "ab", want: 2},
			{op: "send", s: "b", data: "cd", want: 2, anc: &UnixAnc{Rights: []any{"fd1", "fd2"}}},
			{op: "send", s: "b", data: "ef", want: 2},
			{op: "recv", s: "a", n: 9, peek: true, want: 4, got: "abcd", full: 4},
			{op: "recv", s: "a", n: 3, want: 3, got: "abc", full: 3, rights: 2},
			{op: "recv", s: "a", n: 9, want: 3, got: "def", full: 3},
		}},
		{"a reader of credentials never gets two writers' bytes at once (SO_PASSCRED)", []unixStep{
			{op: "pair", s: "a", t: "b", typ: SockStream},
			{op: "send", s: "b", data: "ab", want: 2, anc: &UnixAnc{Cred: &Ucred{Pid: 1}}},
			{op: "send", s: "b", data: "cd", want: 2, anc: &UnixAnc{Cred: &Ucred{Pid: 2}}},
			{op: "send", s: "b", data: "ef", want: 2, anc: &UnixAnc{Cred: &Ucred{Pid: 2}}},
			{op: "recv", s: "a", n: 9, passcred: true, want: 2, got: "ab", full: 2},
			{op: "recv", s: "a", n: 9, passcred: true, want: 4, got: "cdef", full: 4},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ns UnixNames
			socks := map[string]*UnixSocket{}
			var dropped []any
			for i, st := range tc.steps {
				s := socks[st.s]
				var n int
				var err error
				var rd UnixRead
				var got string
				switch st.op {
				case "socket":
					socks[st.s] = NewUnixSocket(st.typ)
				case "pair":
					socks[st.s], socks[st.t] = NewUnixPair(st.typ)
				case "bind":
					name, key := nameOf(st.name)
					err = ns.Bind(s, name, key)
				case "name":
					got = string(s.Name())
				case "listen":
					err = s.Listen(int32(st.n))
				case "connect":
					name, key := nameOf(st.name)
					if err = s.CanConnect(); err == nil {
						var to *UnixSocket
						if to, err = ns.Lookup(name, key, s.Type()); err == nil {
							err = s.Connect(to, st.nonblock)
						}
					}
				case "accept":
					var c *UnixSocket
					if c, err = s.Pending(st.nonblock); err == nil {
						s.Accepted()
						socks[st.t] = c
					}
				case "send":
					if s.Dgram() {
						n, err = s.SendDgram([]byte(st.data), nil, st.nonblock, st.anc)
					} else {
						n, err = s.Send([]byte(st.data), st.done, st.waited, st.nonblock, st.anc)
						if err == EPIPE && s.Sigpipe(st.waited) == st.quiet {
							t.Errorf("step %d send %s: EPIPE with SIGPIPE %v, want %v", i, st.s, !st.quiet, st.quiet)
						}
					}
				case "sendto":
					name, key := nameOf(st.name)
					n, err = s.SendDgram([]byte(st.data), func() (*UnixSocket, error) { return ns.Lookup(name, key, s.Type()) }, st.nonblock, st.anc)
				case "fill":
					for range st.n {
						if _, err := s.SendDgram([]byte("m"), nil, true, nil); err != nil {
							t.Fatalf("step %d: a send to fill the queue: %v", i, err)
						}
					}
				case "recv":
					rd, err = s.Recv(UnixRecv{Max: st.n, Peek: st.peek, WaitAll: st.waitall, Nonblock: st.nonblock, PassCred: st.passcred})
					n, got = len(rd.Data), string(rd.Data)
				case "shut":
					err = s.Shutdown(uint64(st.n))
				case "close":
					s.Close(&ns, func(r any) { dropped = append(dropped, r) })
				case "ev":
					n = int(s.Events())
				case "inq":
					n, err = s.InQueue()
				case "outq":
					n = s.OutQueue()
				case "peer":
					var b []byte
					b, err = s.PeerName()
					got = string(b)
				default:
					t.Fatalf("step %d: unknown op %q", i, st.op)
				}
				if !errors.Is(err, st.err) || err != nil && st.err == nil {
					t.Fatalf("step %d %s %s: error %v, want %v", i, st.op, st.s, err, st.err)
				}
				if n != st.want {
					t.Errorf("step %d %s %s: %d (%#x), want %d (%#x)", i, st.op, st.s, n, n, st.want, st.want)
				}
				if got != st.got {
					t.Errorf("step %d %s %s: got %q, want %q", i, st.op, st.s, got, st.got)
				}
				if st.op == "recv" && err == nil {
					if rd.Full != st.full || string(rd.From) != st.from || len(rd.Rights) != st.rights {
						t.Errorf("step %d recv %s: full %d from %q rights %d, want %d %q %d", i, st.s, rd.Full, rd.From, len(rd.Rights), st.full, st.from, st.rights)
					}
				}
			}
		})
	}
}

// TestUnixCloseDrops checks that closing a socket hands every descriptor
// still in flight on it, and on the connections waiting in its backlog,
// to drop, and that the name is free again.
func TestUnixCloseDrops(t *testing.T) {
	var ns UnixNames
	l, c := NewUnixSocket(SockSeqpacket), NewUnixSocket(SockSeqpacket)
	if err := ns.Bind(l, abstract("l"), ""); err != nil {
		t.Fatal(err)
	}
	if err := l.Listen(1); err != nil {
		t.Fatal(err)
	}
	if err := c.Connect(l, true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send([]byte("x"), 0, false, true, &UnixAnc{Rights: []any{"r1", "r2"}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []any{"r1", "r2"} {
		if !l.InFlight(func(r any) bool { return r == want }) {
			t.Errorf("%v not in flight on the listener's backlog", want)
		}
	}
	var dropped []any
	l.Close(&ns, func(r any) { dropped = append(dropped, r) })
	if len(dropped) != 2 || dropped[0] != "r1" || dropped[1] != "r2" {
		t.Errorf("dropped %v, want [r1 r2]", dropped)
	}
	if ns.Len() != 0 {
		t.Errorf("%d names left bound after the close", ns.Len())
	}
	if l.InFlight(func(any) bool { return true }) {
		t.Error("descriptors still in flight after the close")
	}
}

// TestUnixType checks the type argument's decoding: flags dropped,
// SOCK_RAW as SOCK_DGRAM, others unmodelled.
func TestUnixType(t *testing.T) {
	for _, c := range []struct {
		arg  uint64
		want int
		ok   bool
	}{{1, SockStream, true}, {2 | 0o4000, SockDgram, true}, {3 | 0o2000000, SockDgram, true}, {5, SockSeqpacket, true}, {4, 4, false}, {10, 10, false}} {
		if got, ok := UnixType(c.arg); got != c.want || ok != c.ok {
			t.Errorf("UnixType(%#x) = %d, %v; want %d, %v", c.arg, got, ok, c.want, c.ok)
		}
	}
}

// unixHash hashes the sockets' state as the world does, numbering each
// socket the first time it is met.
func unixHash(socks ...*UnixSocket) [32]byte {
	h := sha256.New()
	var b [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
	ids := map[*UnixSocket]uint64{}
	ref := func(s *UnixSocket) (uint64, bool) {
		id, ok := ids[s]
		if !ok {
			id = uint64(len(ids) + 1)
			ids[s] = id
		}
		return id, ok
	}
	uh := UnixHasher{Put: put, Ref: ref, Right: func(r any) { PutBytes(put, []byte(r.(string))) }}
	for _, s := range socks {
		id, old := ref(s)
		put(id)
		if !old {
			s.Hash(uh)
		}
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// TestUnixHash changes one field a later call can observe at a time and
// requires the hash to change; the same state hashes the same.
func TestUnixHash(t *testing.T) {
	build := func() []*UnixSocket {
		var ns UnixNames
		a, b := NewUnixPair(SockStream)
		b.Send([]byte("to a"), 0, false, true, &UnixAnc{Cred: &Ucred{Pid: 3, Uid: 1, Gid: 2}})
		l, c := NewUnixSocket(SockSeqpacket), NewUnixSocket(SockSeqpacket)
		ns.Bind(l, abstract("l"), "")
		l.Listen(4)
		c.Connect(l, true)
		c.Send([]byte("early"), 0, false, true, nil)
		d := NewUnixSocket(SockDgram)
		d.SendDgram([]byte("dg"), func() (*UnixSocket, error) { return d, nil }, true, nil)
		return []*UnixSocket{a, b, l, c, d}
	}
	mutations := []struct {
		name string
		f    func(s []*UnixSocket)
	}{
		{"queue bytes", func(s []*UnixSocket) { s[0].queue[0].data[0] ^= 1 }},
		{"queue messages", func(s []*UnixSocket) { s[0].queue = append(s[0].queue, unixMsg{}) }},
		{"sender name", func(s []*UnixSocket) { s[4].queue[0].from = []byte{1, 0} }},
		{"message credentials", func(s []*UnixSocket) { s[0].queue[0].cred = &Ucred{Pid: 4, Uid: 1, Gid: 2} }},
		{"message without credentials", func(s []*UnixSocket) { s[0].queue[0].cred = nil }},
		{"descriptor in flight", func(s []*UnixSocket) { s[0].queue[0].rights = []any{"fd"} }},
		{"shutdown", func(s []*UnixSocket) { s[0].shut = ShutSend }},
		{"error", func(s []*UnixSocket) { s[0].err = ECONNRESET }},
		{"closed peer", func(s []*UnixSocket) { s[1].closed = true }},
		{"type", func(s []*UnixSocket) { s[0].typ = SockSeqpacket }},
		{"connected", func(s []*UnixSocket) { s[0].connected = false }},
		{"credentials known", func(s []*UnixSocket) { s[0].creds = false }},
		{"wake-ups", func(s []*UnixSocket) { s[0].genIn++ }},
		{"writer wake-ups", func(s []*UnixSocket) { s[0].genOut++ }},
		{"name", func(s []*UnixSocket) { s[2].name = abstract("m") }},
		{"listening", func(s []*UnixSocket) { s[2].listening = false }},
		{"backlog size", func(s []*UnixSocket) { s[2].maxQueue++ }},
		{"waiting connection's data", func(s []*UnixSocket) { s[2].backlog[0].queue[0].data[0] ^= 1 }},
		{"waiting connections", func(s []*UnixSocket) { s[2].backlog = nil }},
		{"peer", func(s []*UnixSocket) { s[3].peer = nil }},
		{"datagram destination", func(s []*UnixSocket) { s[4].peer = s[2] }},
		{"receive timeout", func(s []*UnixSocket) { s[0].SetTimeout(false, 1) }},
		{"longer receive timeout", func(s []*UnixSocket) { s[0].SetTimeout(false, 2) }},
		{"send timeout", func(s []*UnixSocket) { s[0].SetTimeout(true, 1) }},
		{"zero receive timeout", func(s []*UnixSocket) { s[0].SetTimeout(false, -1) }},
		{"zero send timeout", func(s []*UnixSocket) { s[0].SetTimeout(true, -1) }},
		{"peer's receive timeout", func(s []*UnixSocket) { s[1].SetTimeout(false, 1) }},
	}
	base := unixHash(build()...)
	if again := unixHash(build()...); again != base {
		t.Fatal("the same state hashes differently")
	}
	seen := map[[32]byte]string{}
	for _, m := range mutations {
		s := build()
		m.f(s)
		h := unixHash(s...)
		if h == base {
			t.Errorf("%s: the hash did not change", m.name)
		}
		if other, ok := seen[h]; ok {
			t.Errorf("%s and %s hash the same", m.name, other)
		}
		seen[h] = m.name
	}
	if !bytes.Equal(build()[2].Name(), abstract("l")) {
		t.Error("the listener's name is not the bound one")
	}
}

// TestUnixPairArgs checks socketpair(2)'s reading of its arguments
// against what Linux answered natively (testdata/diff/unix.c, pairargs):
// C ints, socket(2)'s checks first, then another family's create and
// EOPNOTSUPP, then af_unix's protocol and type.
func TestUnixPairArgs(t *testing.T) {
	const hi = 1 << 32
	for _, tc := range []struct {
		name            string
		domain, typ, pr uint64
		wantTyp         int
		wantFlags       uint64
		want            Errno
	}{
		{"high bits", hi | 1, hi | SockStream, hi, SockStream, 0, 0},
		{"high bits, nonblock", hi | 1, hi | SockDgram | SockNonblock, hi, SockDgram, SockNonblock, 0},
		{"raw is dgram, cloexec", 1, 3 | SockCloexec, 0, SockDgram, SockCloexec, 0},
		{"protocol PF_UNIX", 1, SockSeqpacket, 1, SockSeqpacket, 0, 0},
		{"protocol 2", 1, SockStream, 2, 0, 0, EPROTONOSUPPORT},
		{"protocol 2, bad type", 1, 9, 2, 0, 0, EPROTONOSUPPORT},
		{"bad flag", 1, SockStream | 0x10, 0, 0, 0, EINVAL},
		{"bad flag, AF_INET", AfInet, SockStream | 0x10, 0, 0, 0, EINVAL},
		{"type SOCK_MAX", 1, 11, 0, 0, 0, EINVAL},
		{"type SOCK_PACKET", 1, 10, 0, 0, 0, ESOCKTNOSUPPORT},
		{"family 46", 46, SockStream, 0, 0, 0, EAFNOSUPPORT},
		{"family -1", 0xffffffffffffffff, SockStream, 0, 0, 0, EAFNOSUPPORT},
		{"AF_INET, high bits", hi | AfInet, hi | SockStream, 0, 0, 0, EOPNOTSUPP},
	} {
		typ, flags, e := UnixPairArgs(tc.domain, tc.typ, tc.pr)
		if typ != tc.wantTyp || flags != tc.wantFlags || e != tc.want {
			t.Errorf("%s: UnixPairArgs(%#x, %#x, %#x) = %d, %#o, %v; want %d, %#o, %v", tc.name, tc.domain, tc.typ, tc.pr,
				typ, flags, e, tc.wantTyp, tc.wantFlags, tc.want)
		}
	}
}

// TestSocketpairArgs checks socketpair(2) for families other than
// AF_UNIX against what Linux 6.18 answered natively, as root
// (testdata/diff/unix.c, pairfamilies), and what it answers without
// CAP_NET_RAW: the family's create decides, then EOPNOTSUPP.
func TestSocketpairArgs(t *testing.T) {
	const inet, inet6, netlink, packet = AfInet, AfInet6, 16, 17
	neg := uint64(0xffffffff)
	for _, tc := range []struct {
		name            string
		domain, typ, pr uint64
		netRaw          bool
		want            Errno
	}{
		{"AF_INET stream", inet, SockStream, 0, true, EOPNOTSUPP},
		{"AF_INET stream TCP", inet, SockStream, IPProtoTCP, false, EOPNOTSUPP},
		{"AF_INET stream MPTCP", inet, SockStream | SockNonblock, 262, false, EOPNOTSUPP},
		{"AF_INET stream UDP", inet, SockStream, IPProtoUDP, true, EPROTONOSUPPORT},
		{"AF_INET dgram", inet, SockDgram, 0, false, EOPNOTSUPP},
		{"AF_INET dgram UDP-Lite", inet, SockDgram, 136, false, EOPNOTSUPP},
		{"AF_INET dgram TCP", inet, SockDgram, IPProtoTCP, true, EPROTONOSUPPORT},
		{"AF_INET ping", inet, SockDgram, 1, true, EACCES},
		{"AF_INET raw 0", inet, 3, 0, true, EPROTONOSUPPORT},
		{"AF_INET raw 1", inet, 3, 1, true, EOPNOTSUPP},
		{"AF_INET raw 1, no CAP_NET_RAW", inet, 3, 1, false, EPERM},
		{"AF_INET seqpacket", inet, SockSeqpacket, 0, true, ESOCKTNOSUPPORT},
		{"AF_INET seqpacket SCTP", inet, SockSeqpacket, 132, true, ESOCKTNOSUPPORT},
		{"AF_INET rdm", inet, 4, 0, true, ESOCKTNOSUPPORT},
		{"AF_INET dccp", inet, 6, 0, true, ESOCKTNOSUPPORT},
		{"AF_INET protocol -1", inet, SockStream, neg, true, EINVAL},
		{"AF_INET protocol 263, bad type", inet, SockSeqpacket, 263, true, EINVAL},
		{"AF_INET6 stream", inet6, SockStream, 0, false, EOPNOTSUPP},
		{"AF_INET6 stream UDP", inet6, SockStream, IPProtoUDP, true, EPROTONOSUPPORT},
		{"AF_INET6 ping", inet6, SockDgram, 58, true, EACCES},
		{"AF_INET6 dgram ICMP", inet6, SockDgram, 1, true, EPROTONOSUPPORT},
		{"AF_INET6 SOCK_PACKET", inet6, 10, 0, true, ESOCKTNOSUPPORT},
		{"AF_INET6 protocol 300", inet6, SockDgram, 300, true, EINVAL},
		{"AF_NETLINK raw route", netlink, 3, 0, false, EOPNOTSUPP},
		{"AF_NETLINK dgram audit", netlink, SockDgram, 9, false, EOPNOTSUPP},
		{"AF_NETLINK stream", netlink, SockStream, 0, true, ESOCKTNOSUPPORT},
		{"AF_NETLINK protocol 1", netlink, 3, 1, true, EPROTONOSUPPORT},
		{"AF_NETLINK protocol 23", netlink, 3, 23, true, EPROTONOSUPPORT},
		{"AF_NETLINK protocol 32", netlink, 3, 32, true, EPROTONOSUPPORT},
		{"AF_NETLINK protocol -1", netlink, 3, neg, true, EPROTONOSUPPORT},
		{"AF_NETLINK protocol 32, bad type", netlink, SockSeqpacket, 32, true, ESOCKTNOSUPPORT},
		{"AF_PACKET raw", packet, 3, 0, true, EOPNOTSUPP},
		{"AF_PACKET raw, protocol -1", packet, 3, neg, true, EOPNOTSUPP},
		{"AF_PACKET raw, no CAP_NET_RAW", packet, 3, 0, false, EPERM},
		{"AF_PACKET stream", packet, SockStream, 0, true, ESOCKTNOSUPPORT},
		{"AF_PACKET stream, no CAP_NET_RAW", packet, SockStream, 0, false, EPERM},
		{"AF_INET SOCK_PACKET", inet, 10, 0, true, EOPNOTSUPP},
		{"AF_INET SOCK_PACKET, no CAP_NET_RAW", inet, 10, 0, false, EPERM},
		{"AF_UNSPEC", 0, SockStream, 0, true, EAFNOSUPPORT},
		{"AF_IPX", 4, SockStream, 0, true, EAFNOSUPPORT},
		{"AF_NETBEUI", 13, SockDgram, 0, true, EAFNOSUPPORT},
		{"AF_MPLS", 28, SockDgram, 0, true, EAFNOSUPPORT},
		{"AF_UNSPEC, type SOCK_MAX", 0, 11, 0, true, EINVAL},
		{"AF_UNSPEC, bad flag", 0, SockStream | 0x10, 0, true, EINVAL},
		{"AF_UNIX", 1, SockStream, 0, false, 0},
	} {
		_, _, e := SocketpairArgs(tc.domain, tc.typ, tc.pr, tc.netRaw)
		if e != tc.want {
			t.Errorf("%s: SocketpairArgs(%d, %#x, %#x, %v) = %v; want %v", tc.name, tc.domain, tc.typ, tc.pr, tc.netRaw, e, tc.want)
		}
	}
}
