package workload

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// ZooKeeper's client protocol (jute, length-prefixed) as the zk protocol.
//
// A request is text, one operation a line ("create /r 00", "setData /r
// 5", "getData /r", "sync /r", "exists /r", "delete /r"), which
// EncodeRequest writes as ZooKeeper's own bytes: a ConnectRequest for a
// new session first (every call has its own connection, so its own
// session), then each operation with the header ZooKeeper echoes in its
// reply. Operation i (from 0) carries xid 100·(i+1) + its opcode, so that
// a reply names its operation by itself (the framing reads one reply at a
// time, without the request). A reply is framed by its length and written
// as text for the reply expressions:
//
//	connect session=0x… timeout=30000
//	setData xid=205 zxid=0x100000003 err=0 version=1
//	getData xid=304 zxid=0x100000003 err=0 data=22 version=1
//	create xid=101 zxid=0x100000002 err=-110 NodeExists
//
// (data is the znode's bytes, quoted with Go's %q when they are not
// printable without spaces).

// zkOps are the operations a zk request may name, with their opcodes.
var zkOps = map[string]int32{"create": 1, "delete": 2, "exists": 3, "getData": 4, "setData": 5, "sync": 9}

// zkErrs names ZooKeeper's error codes (KeeperException.Code).
var zkErrs = map[int32]string{-1: "SystemError", -4: "ConnectionLoss", -7: "OperationTimeout", -8: "BadArguments",
	-100: "APIError", -101: "NoNode", -102: "NoAuth", -103: "BadVersion", -108: "NoChildrenForEphemerals",
	-110: "NodeExists", -111: "NotEmpty", -112: "SessionExpired", -118: "SessionMoved", -119: "NotReadOnly", -120: "EphemeralOnLocalSession"}

// zkSessionTimeoutMS is the session timeout every zk request asks for.
const zkSessionTimeoutMS = 30000

// EncodeRequest is the bytes of request text in protocol p: the text
// itself, except for zk (above), whose malformed requests are errors.
func (p Protocol) EncodeRequest(text string) ([]byte, error) {
	if p != ZK {
		return []byte(text), nil
	}
	out := zkPacket(nil, func(b []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, 0)                  // protocolVersion
		b = binary.BigEndian.AppendUint64(b, 0)                  // lastZxidSeen
		b = binary.BigEndian.AppendUint32(b, zkSessionTimeoutMS) // timeOut
		b = binary.BigEndian.AppendUint64(b, 0)                  // sessionId: a new session
		return zkBuffer(b, make([]byte, 16))                     // passwd
	})
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			return nil, fmt.Errorf("zk request line %d is empty", i+1)
		}
		code, ok := zkOps[f[0]]
		if !ok {
			return nil, fmt.Errorf("zk request line %d: unknown operation %q (create, delete, exists, getData, setData, sync)", i+1, f[0])
		}
		want := 2
		if f[0] == "create" || f[0] == "setData" {
			want = 3
		}
		if len(f) != want || !strings.HasPrefix(f[1], "/") {
			return nil, fmt.Errorf("zk request line %d: %q: want %s PATH%s", i+1, line, f[0], map[bool]string{true: " DATA"}[want == 3])
		}
		xid := int32(100*(i+1)) + code
		out = zkPacket(out, func(b []byte) []byte {
			b = binary.BigEndian.AppendUint32(b, uint32(xid))
			b = binary.BigEndian.AppendUint32(b, uint32(code))
			b = zkBuffer(b, []byte(f[1]))
			switch f[0] {
			case "create": // data, an open ACL (world:anyone, all permissions), persistent
				b = zkBuffer(b, []byte(f[2]))
				b = binary.BigEndian.AppendUint32(b, 1)
				b = binary.BigEndian.AppendUint32(b, 31)
				b = zkBuffer(zkBuffer(b, []byte("world")), []byte("anyone"))
				b = binary.BigEndian.AppendUint32(b, 0)
			case "setData": // data, any version
				b = zkBuffer(b, []byte(f[2]))
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			case "delete":
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			case "getData", "exists": // no watch
				b = append(b, 0)
			}
			return b
		})
	}
	return out, nil
}

// zkPacket appends the packet body writes, prefixed with its length.
func zkPacket(b []byte, body func([]byte) []byte) []byte {
	start := len(b)
	b = body(binary.BigEndian.AppendUint32(b, 0))
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// zkBuffer appends a jute buffer or string: its length, then its bytes.
func zkBuffer(b, data []byte) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(data))), data...)
}

// zkMaxPacket bounds a reply's length (ZooKeeper's jute.maxbuffer default).
const zkMaxPacket = 0xfffff

// nextZK frames one zk reply (above).
func nextZK(buf []byte) (Frame, int, bool, error) {
	if len(buf) < 4 {
		return Frame{}, 0, false, nil
	}
	size := binary.BigEndian.Uint32(buf)
	if size < 4 || size > zkMaxPacket {
		return Frame{}, 0, false, fmt.Errorf("bad zk packet length %d", size)
	}
	if uint32(len(buf)-4) < size {
		return Frame{}, 0, false, nil
	}
	n := int(size) + 4
	p := buf[4:n]
	xid := int32(binary.BigEndian.Uint32(p))
	if xid == 0 { // a ConnectResponse: protocolVersion 0, timeOut, sessionId, passwd
		if len(p) < 16 {
			return Frame{}, 0, false, fmt.Errorf("short zk connect response (%d bytes)", len(p))
		}
		text := fmt.Sprintf("connect session=%#x timeout=%d", binary.BigEndian.Uint64(p[8:]), binary.BigEndian.Uint32(p[4:]))
		return Frame{Text: text, Fields: [][2]string{{"op", "connect"}, {"xid", "0"}, {"err", "0"}}}, n, true, nil
	}
	if len(p) < 16 {
		return Frame{}, 0, false, fmt.Errorf("short zk reply (%d bytes)", len(p))
	}
	zxid, code := binary.BigEndian.Uint64(p[4:]), int32(binary.BigEndian.Uint32(p[12:]))
	op := zkOpName(xid)
	var b strings.Builder
	fmt.Fprintf(&b, "%s xid=%d zxid=%#x err=%d", op, xid, zxid, code)
	if name := zkErrs[code]; name != "" {
		b.WriteString(" " + name)
	}
	if code == 0 {
		b.WriteString(zkBody(op, p[16:]))
	}
	f := Frame{Text: b.String(), Fields: [][2]string{{"op", op}, {"xid", strconv.Itoa(int(xid))}, {"err", strconv.Itoa(int(code))}}}
	return f, n, true, nil
}

// zkOpName is the operation a reply's xid names: a notification (-1), a
// ping (-2), or an operation of an EncodeRequest request ("reply" for
// other xids).
func zkOpName(xid int32) string {
	switch xid {
	case -1:
		return "notification"
	case -2:
		return "ping"
	}
	for name, code := range zkOps {
		if xid > 100 && xid%100 == code {
			return name
		}
	}
	return "reply"
}

// zkBody describes a successful reply's body: a created or synced path,
// read data, and a Stat's data version.
func zkBody(op string, body []byte) string {
	buffer := func() (string, []byte, bool) {
		if len(body) < 4 {
			return "", nil, false
		}
		l := int32(binary.BigEndian.Uint32(body))
		if l < 0 {
			return "", body[4:], true
		}
		if int(l) > len(body)-4 {
			return "", nil, false
		}
		return string(body[4 : 4+l]), body[4+l:], true
	}
	// A Stat: czxid, mzxid, ctime, mtime (8 bytes each), then version.
	version := func(stat []byte) string {
		if len(stat) < 36 {
			return ""
		}
		return fmt.Sprintf(" version=%d", int32(binary.BigEndian.Uint32(stat[32:])))
	}
	switch op {
	case "create", "sync":
		if s, _, ok := buffer(); ok {
			return " path=" + s
		}
	case "getData":
		if s, rest, ok := buffer(); ok {
			return " data=" + zkQuote(s) + version(rest)
		}
	case "setData", "exists":
		return version(body)
	}
	return ""
}

// zkQuote writes data as is when it is printable ASCII without spaces,
// else quoted.
func zkQuote(s string) string {
	for _, c := range []byte(s) {
		if c <= ' ' || c > '~' || c == '"' {
			return strconv.Quote(s)
		}
	}
	return s
}
