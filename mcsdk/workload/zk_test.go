package workload

import (
	"encoding/hex"
	"strings"
	"testing"
)

// unhex decodes hex written in groups separated by spaces.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// zkConnect is the ConnectRequest every zk request begins with, written
// from ZooKeeper's jute definition (zookeeper.jute: ConnectRequest):
// length 44, protocolVersion 0, lastZxidSeen 0, timeOut 30000, sessionId
// 0, passwd a buffer of 16 zero bytes.
const zkConnect = "0000002c 00000000 0000000000000000 00007530 0000000000000000 00000010 00000000000000000000000000000000"

// TestZKEncodeRequest: zk requests as ZooKeeper's bytes (zookeeper.jute:
// RequestHeader, CreateRequest, SetDataRequest, GetDataRequest,
// SyncRequest; opcodes from ZooDefs.OpCode), each operation's xid
// 100·(line) + opcode; malformed requests are errors.
func TestZKEncodeRequest(t *testing.T) {
	tests := []struct {
		name, text, want, err string
	}{
		{"create then setData", "create /r 00\nsetData /r 22",
			zkConnect +
				// length 51: xid 101, create, path "/r", data "00", ACL [world:anyone all(31)], flags 0
				"00000033 00000065 00000001 00000002 2f72 00000002 3030 00000001 0000001f 00000005 776f726c64 00000006 616e796f6e65 00000000" +
				// length 24: xid 205, setData, path "/r", data "22", version -1
				"00000018 000000cd 00000005 00000002 2f72 00000002 3232 ffffffff", ""},
		{"sync then getData", "sync /r\ngetData /r\n",
			zkConnect +
				"0000000e 0000006d 00000009 00000002 2f72" + // xid 109, sync, "/r"
				"0000000f 000000cc 00000004 00000002 2f72 00", // xid 204, getData, "/r", no watch
			""},
		{"delete and exists", "delete /a\nexists /a",
			zkConnect + "00000012 00000066 00000002 00000002 2f61 ffffffff" + "0000000f 000000cb 00000003 00000002 2f61 00", ""},
		{"unknown op", "getChildren /r", "", `unknown operation "getChildren"`},
		{"missing data", "setData /r", "", "want setData PATH DATA"},
		{"relative path", "getData r", "", "want getData PATH"},
		{"empty line", "sync /r\n\ngetData /r", "", "line 2 is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ZK.EncodeRequest(tc.text)
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if tc.err == "" && hex.EncodeToString(got) != hex.EncodeToString(unhex(t, tc.want)) {
				t.Errorf("bytes\n%x\nwant\n%x", got, unhex(t, tc.want))
			}
		})
	}
	if got, err := Line.EncodeRequest("GET x\n"); err != nil || string(got) != "GET x\n" {
		t.Errorf("line: %q %v", got, err)
	}
}

// zkStat is a Stat (zookeeper.jute): czxid, mzxid, ctime, mtime, version
// 1, cversion, aversion, ephemeralOwner, dataLength 2, numChildren, pzxid.
const zkStat = "0000000100000002 0000000100000003 0000019a00000000 0000019a00000001 00000001 00000000 00000000 0000000000000000 00000002 00000000 0000000100000002"

// TestZKNextFrame frames a zk connection's replies: the ConnectResponse,
// an error reply, replies with a Stat and with data, as text with the
// op, xid and err fields; a partial packet waits; a bad length is an
// error.
func TestZKNextFrame(t *testing.T) {
	stream := "00000024 00000000 00007530 0100000000000abc 00000010 11111111111111111111111111111111" + // ConnectResponse
		"00000010 00000065 0000000100000002 ffffff92" + // xid 101 (create): NodeExists
		"00000054 000000cd 0000000100000003 00000000" + zkStat + // xid 205 (setData): its Stat
		"0000005a 00000130 0000000100000003 00000000 00000002 3232" + zkStat + // xid 304 (getData): "22", Stat
		"00000016 0000006d 0000000100000004 00000000 00000002 2f72" + // xid 109 (sync): "/r"
		"00000010 fffffffe 0000000100000004 00000000" + // a ping
		"000000"
	buf := unhex(t, stream)
	var got []string
	for {
		f, n, ok, err := ZK.NextFrame(buf, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		var fields []string
		for _, kv := range f.Fields {
			fields = append(fields, kv[0]+"="+kv[1])
		}
		got = append(got, f.Text+"|"+strings.Join(fields, ","))
		buf = buf[n:]
	}
	want := []string{
		"connect session=0x100000000000abc timeout=30000|op=connect,xid=0,err=0",
		"create xid=101 zxid=0x100000002 err=-110 NodeExists|op=create,xid=101,err=-110",
		"setData xid=205 zxid=0x100000003 err=0 version=1|op=setData,xid=205,err=0",
		"getData xid=304 zxid=0x100000003 err=0 data=22 version=1|op=getData,xid=304,err=0",
		"sync xid=109 zxid=0x100000004 err=0 path=/r|op=sync,xid=109,err=0",
		"ping xid=-2 zxid=0x100000004 err=0|op=ping,xid=-2,err=0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replies\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(buf) != 3 {
		t.Errorf("%d bytes left, want the partial 3", len(buf))
	}
	for _, bad := range []string{"00000000", "7fffffff 00", "00000008 00000065 00000000"} {
		if _, _, _, err := ZK.NextFrame(unhex(t, bad), false, nil); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	// Data that is not printable without spaces is quoted.
	f, _, ok, err := ZK.NextFrame(unhex(t, "0000001a 00000130 0000000100000003 00000000 00000006 6120620a0001"), false, nil)
	if !ok || err != nil || f.Text != `getData xid=304 zxid=0x100000003 err=0 data="a b\n\x00\x01"` {
		t.Errorf("%q %v %v", f.Text, ok, err)
	}
}
