package workload

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Protocol is how the byte stream a client connection receives divides
// into replies ([client] protocol, [workload] protocol).
type Protocol string

// Protocols.
const (
	// Line: every line is a reply (the newline removed; a last line
	// without one is not a reply yet). The default.
	Line Protocol = "line"
	// Stream: no framing; a reply is the leftmost match of the reply
	// expression in the bytes not yet matched, across lines, and the next
	// one is searched after it (pipelined replies, in order).
	Stream Protocol = "stream"
	// HTTP: HTTP/1.x responses: status line, headers and a body framed by
	// Content-Length, chunked transfer coding, or the end of the
	// connection; several on one connection (keep-alive, pipelining) are
	// several replies.
	HTTP Protocol = "http"
	// RESP: redis's serialization protocol (RESP2): simple strings,
	// errors, integers, bulk strings and arrays.
	RESP Protocol = "resp"
	// ZK: ZooKeeper's client protocol (jute): length-prefixed packets, a
	// reply written as text, and requests written as text that
	// EncodeRequest turns into ZooKeeper's bytes (zk.go).
	ZK Protocol = "zk"
)

// Protocols lists the protocols, for messages.
func Protocols() []Protocol { return []Protocol{Line, Stream, HTTP, RESP, ZK} }

// Fields names the fields every reply of the protocol has (Frame.Fields).
func (p Protocol) Fields() []string {
	switch p {
	case HTTP:
		return []string{"status", "reason", "body"}
	case RESP:
		return []string{"type"}
	case ZK:
		return []string{"op", "xid", "err"}
	}
	return nil
}

// Frame is one reply as received: Text is what reply expressions match,
// Fields are the protocol's own fields of the reply's record (name,
// value), before the expression's named groups.
//
//	line    Text the line                                        no fields
//	stream  Text the match                                       no fields
//	http    Text "HTTP/1.1 200 OK\r\nheaders…\r\n\r\nbody"        status, reason, body
//	        (a chunked body decoded)
//	resp    Text the value: "OK", "-ERR …" (an error keeps its "-"), "5", the
//	        bulk string, "" for nil, an array's elements one a line   type
//	zk      Text "setData xid=205 zxid=0x100000003 err=0 version=1"   op, xid, err
type Frame struct {
	Text   string
	Fields [][2]string
}

// NextFrame parses the first reply of buf, which is the start of a
// connection's unread bytes; closed says the node has closed the
// connection (no more bytes will come). It returns the reply and the
// bytes it spans, or ok false while it is incomplete. Stream takes re,
// the reply expression; the other protocols ignore it. A malformed
// message is an error.
func (p Protocol) NextFrame(buf []byte, closed bool, re *regexp.Regexp) (f Frame, n int, ok bool, err error) {
	switch p {
	case Stream:
		if re == nil {
			return Frame{}, 0, false, nil
		}
		loc := re.FindIndex(buf)
		if loc == nil || loc[1] == 0 {
			return Frame{}, 0, false, nil
		}
		return Frame{Text: string(buf[loc[0]:loc[1]])}, loc[1], true, nil
	case HTTP:
		return nextHTTP(buf, closed)
	case ZK:
		return nextZK(buf)
	case RESP:
		v, n, ok, err := nextRESP(buf)
		if !ok || err != nil {
			return Frame{}, 0, false, err
		}
		return Frame{Text: v.text, Fields: [][2]string{{"type", v.kind}}}, n, true, nil
	}
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return Frame{}, 0, false, nil
	}
	return Frame{Text: string(buf[:i])}, i + 1, true, nil
}

// nextHTTP parses one HTTP/1.x response (RFC 9112).
func nextHTTP(buf []byte, closed bool) (Frame, int, bool, error) {
	end := bytes.Index(buf, []byte("\r\n\r\n"))
	if end < 0 {
		if len(buf) > 0 && !bytes.HasPrefix(buf, []byte("HTTP/")[:min(5, len(buf))]) {
			return Frame{}, 0, false, fmt.Errorf("not an HTTP response: %q", excerpt(buf))
		}
		return Frame{}, 0, false, nil
	}
	head := string(buf[:end])
	lines := strings.Split(head, "\r\n")
	proto, rest, _ := strings.Cut(lines[0], " ")
	code, reason, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || len(code) != 3 {
		return Frame{}, 0, false, fmt.Errorf("bad HTTP status line %q", lines[0])
	}
	length, chunked := -1, false
	for _, l := range lines[1:] {
		name, val, _ := strings.Cut(l, ":")
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			if length, err = strconv.Atoi(val); err != nil || length < 0 {
				return Frame{}, 0, false, fmt.Errorf("bad Content-Length %q", val)
			}
		case "transfer-encoding":
			chunked = strings.Contains(strings.ToLower(val), "chunked")
		}
	}
	start := end + 4
	var body []byte
	n := 0
	switch {
	case status/100 == 1 || status == 204 || status == 304:
		n = start
	case chunked:
		b, used, ok, err := dechunk(buf[start:])
		if !ok || err != nil {
			return Frame{}, 0, false, err
		}
		body, n = b, start+used
	case length >= 0:
		if len(buf)-start < length {
			return Frame{}, 0, false, nil
		}
		body, n = buf[start:start+length], start+length
	default: // the body ends with the connection
		if !closed {
			return Frame{}, 0, false, nil
		}
		body, n = buf[start:], len(buf)
	}
	f := Frame{Text: head + "\r\n\r\n" + string(body),
		Fields: [][2]string{{"status", code}, {"reason", reason}, {"body", string(body)}}}
	return f, n, true, nil
}

// dechunk decodes a chunked body (RFC 9112 section 7.1): it returns the
// body and the bytes the coding spans, trailers included.
func dechunk(buf []byte) (body []byte, n int, ok bool, err error) {
	for {
		i := bytes.Index(buf[n:], []byte("\r\n"))
		if i < 0 {
			return nil, 0, false, nil
		}
		sizeText, _, _ := strings.Cut(string(buf[n:n+i]), ";")
		size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 32)
		if err != nil || size < 0 {
			return nil, 0, false, fmt.Errorf("bad chunk size %q", buf[n:n+i])
		}
		n += i + 2
		if size == 0 { // trailers, then an empty line
			for {
				j := bytes.Index(buf[n:], []byte("\r\n"))
				if j < 0 {
					return nil, 0, false, nil
				}
				n += j + 2
				if j == 0 {
					return body, n, true, nil
				}
			}
		}
		if len(buf)-n < int(size)+2 {
			return nil, 0, false, nil
		}
		body = append(body, buf[n:n+int(size)]...)
		n += int(size) + 2
	}
}

// respValue is one parsed RESP value.
type respValue struct {
	kind, text string
}

// nextRESP parses one RESP2 value.
func nextRESP(buf []byte) (respValue, int, bool, error) {
	i := bytes.Index(buf, []byte("\r\n"))
	if i < 0 {
		return respValue{}, 0, false, nil
	}
	if i == 0 {
		return respValue{}, 0, false, fmt.Errorf("not a RESP value: %q", excerpt(buf))
	}
	line := string(buf[1:i])
	n := i + 2
	switch buf[0] {
	case '+':
		return respValue{"simple", line}, n, true, nil
	case '-':
		return respValue{"error", "-" + line}, n, true, nil
	case ':':
		if _, err := strconv.ParseInt(line, 10, 64); err != nil {
			return respValue{}, 0, false, fmt.Errorf("bad RESP integer %q", line)
		}
		return respValue{"integer", line}, n, true, nil
	case '$':
		size, err := strconv.Atoi(line)
		switch {
		case err != nil || size < -1:
			return respValue{}, 0, false, fmt.Errorf("bad RESP bulk length %q", line)
		case size == -1:
			return respValue{"nil", ""}, n, true, nil
		case len(buf)-n < size+2:
			return respValue{}, 0, false, nil
		}
		return respValue{"bulk", string(buf[n : n+size])}, n + size + 2, true, nil
	case '*':
		count, err := strconv.Atoi(line)
		if err != nil || count < -1 {
			return respValue{}, 0, false, fmt.Errorf("bad RESP array length %q", line)
		}
		if count == -1 {
			return respValue{"nil", ""}, n, true, nil
		}
		elems := make([]string, 0, count)
		for range count {
			v, used, ok, err := nextRESP(buf[n:])
			if !ok || err != nil {
				return respValue{}, 0, false, err
			}
			elems = append(elems, v.text)
			n += used
		}
		return respValue{"array", strings.Join(elems, "\n")}, n, true, nil
	}
	return respValue{}, 0, false, fmt.Errorf("not a RESP value: %q", excerpt(buf))
}

// excerpt is the start of b, for messages.
func excerpt(b []byte) string {
	const max = 120
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
