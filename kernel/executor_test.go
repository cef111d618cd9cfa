package kernel

import (
	"bufio"
	"io"
	osexec "os/exec"
	"testing"

	"github.com/weft-mc/weft/kernel/wire"
)

// TestFramePipe: records written by one end are read back whole, in
// order, by the other, empty frames included.
func TestFramePipe(t *testing.T) {
	r, w := io.Pipe()
	out := &framePipe{w: w}
	in := &framePipe{r: bufio.NewReader(r)}
	sent := []struct {
		ch     wire.Channel
		frames [][]byte
	}{
		{wire.Shell, [][]byte{[]byte("id"), []byte("<IDS|MSG>"), {}, []byte(`{"a":1}`)}},
		{sessionChannel, [][]byte{[]byte(`{"names":["kept"],"count":3}`)}},
		{wire.IOPub, nil},
	}
	go func() {
		for _, s := range sent {
			out.write(s.ch, s.frames)
		}
		w.Close()
	}()
	for _, s := range sent {
		ch, frames, err := in.read()
		if err != nil || ch != s.ch || len(frames) != len(s.frames) {
			t.Fatalf("read %v %d frames, %v; want %v %d frames", ch, len(frames), err, s.ch, len(s.frames))
		}
		for i := range frames {
			if string(frames[i]) != string(s.frames[i]) {
				t.Errorf("frame %d: %q, want %q", i, frames[i], s.frames[i])
			}
		}
	}
	if _, _, err := in.read(); err != io.EOF {
		t.Errorf("after the last record: %v, want EOF", err)
	}
}

// TestExecutorWhy: a dead executor is described by the Go runtime's fatal
// error lines of its stderr, else by its exit status.
func TestExecutorWhy(t *testing.T) {
	for _, c := range []struct{ stderr, script, want string }{
		{"runtime: out of memory: cannot allocate 4398046511104-byte block (3 in use)\nfatal error: out of memory\n\ngoroutine 1 [running]:\n", "exit 2",
			"runtime: out of memory: cannot allocate 4398046511104-byte block (3 in use); fatal error: out of memory"},
		{"some log line\n", "kill -9 $$", "signal: killed"},
		{"", "exit 3", "exit status 3"},
	} {
		ex := &executor{cmd: osexec.Command("sh", "-c", c.script), tail: &tailBuffer{}}
		ex.cmd.Run()
		ex.tail.Write([]byte(c.stderr))
		if got := ex.why(); got != c.want {
			t.Errorf("why() = %q, want %q", got, c.want)
		}
	}
}
