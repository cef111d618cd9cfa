package workload

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestNextFrame frames byte streams by each protocol: the replies a
// stream holds (every one, in order, as "text|fields"), the bytes left
// over, and malformed input. Expected HTTP framing follows RFC 9112
// (sections 6.3 and 7.1), RESP redis's protocol specification (RESP2).
func TestNextFrame(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	tests := []struct {
		name   string
		p      Protocol
		re     string
		in     string
		closed bool
		want   []string // "text|name=value,…"
		rest   int      // bytes left unframed
		err    string
	}{
		{"line", Line, "", "a\nb\nc", false, []string{"a|", "b|"}, 1, ""},
		{"stream no newline", Stream, `VAL (?P<v>\d+)`, "VAL 5", false, []string{"VAL 5|"}, 0, ""},
		{"stream pipelined", Stream, `(?s)\{.*?\}`, "{a\nb}{c}{d", false, []string{"{a\nb}|", "{c}|"}, 2, ""},
		{"stream none", Stream, `x`, "abc", false, nil, 3, ""},
		{"http length", HTTP, "", ok, false, []string{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello|status=200,reason=OK,body=hello"}, 0, ""},
		{"http partial body", HTTP, "", ok[:len(ok)-1], false, nil, len(ok) - 1, ""},
		{"http keep-alive", HTTP, "", ok + "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n", false,
			[]string{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello|status=200,reason=OK,body=hello",
				"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n|status=404,reason=Not Found,body="}, 0, ""},
		{"http chunked", HTTP, "", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;x=y\r\n, world\r\n0\r\nTrailer: 1\r\n\r\nHTTP", false,
			[]string{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nhello, world|status=200,reason=OK,body=hello, world"}, 4, ""},
		{"http chunked partial", HTTP, "", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", false, nil, 53, ""},
		{"http until close, open", HTTP, "", "HTTP/1.0 200 OK\r\n\r\nbody", false, nil, 23, ""},
		{"http until close", HTTP, "", "HTTP/1.0 200 OK\r\n\r\nbody", true, []string{"HTTP/1.0 200 OK\r\n\r\nbody|status=200,reason=OK,body=body"}, 0, ""},
		{"http 204", HTTP, "", "HTTP/1.1 204 No Content\r\n\r\n", false, []string{"HTTP/1.1 204 No Content\r\n\r\n|status=204,reason=No Content,body="}, 0, ""},
		{"http bad", HTTP, "", "SSH-2.0\r\n\r\n", false, nil, 11, "bad HTTP status line"},
		{"http not http", HTTP, "", "garbage", false, nil, 7, "not an HTTP response"},
		{"resp", RESP, "", "+OK\r\n-ERR no\r\n:42\r\n$5\r\nhe\r\no\r\n$-1\r\n*2\r\n$1\r\na\r\n:7\r\n$3\r\nab", false,
			[]string{"OK|type=simple", "-ERR no|type=error", "42|type=integer", "he\r\no|type=bulk", "|type=nil", "a\n7|type=array"}, 6, ""},
		{"resp bad", RESP, "", "?\r\n", false, nil, 3, "not a RESP value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var re *regexp.Regexp
			if tc.re != "" {
				re = regexp.MustCompile(tc.re)
			}
			buf := []byte(tc.in)
			var got []string
			var err error
			for {
				var f Frame
				var n int
				var ok bool
				f, n, ok, err = tc.p.NextFrame(buf, tc.closed, re)
				if !ok || err != nil {
					break
				}
				var fields []string
				for _, kv := range f.Fields {
					fields = append(fields, kv[0]+"="+kv[1])
				}
				got = append(got, f.Text+"|"+strings.Join(fields, ","))
				buf = buf[n:]
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("replies %q, want %q", got, tc.want)
			}
			if len(buf) != tc.rest {
				t.Errorf("%d bytes left, want %d", len(buf), tc.rest)
			}
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}
