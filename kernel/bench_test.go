package kernel_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/traefik/yaegi/interp"

	"github.com/weft-mc/weft/kernel/display"
	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/symbols"
	"github.com/weft-mc/weft/kernel/wire"
)

// BenchmarkStartToKernelInfo measures a kernel's start: from exec of
// `weft kernel run -f CONN` to the kernel_info_reply on shell, with a Go
// ZeroMQ client dialing as soon as the process is started. Goal: < 1 s.
func BenchmarkStartToKernelInfo(b *testing.B) {
	dir := b.TempDir()
	weft := filepath.Join(dir, "weft")
	if out, err := exec.Command("go", "build", "-o", weft, "github.com/weft-mc/weft/cmd/weft").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ci, path := connectionFile(b, dir)
		b.StartTimer()
		startToKernelInfo(b, weft, ci, path)
	}
}

func startToKernelInfo(b *testing.B, weft string, ci wire.ConnectionInfo, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, weft, "kernel", "run", "-f", path)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		b.StopTimer()
		cmd.Process.Kill()
		cmd.Wait()
		b.StartTimer()
	}()
	dealer := zmq4.NewDealer(ctx, zmq4.WithDialerRetry(2*time.Millisecond), zmq4.WithDialerMaxRetries(5000))
	defer dealer.Close()
	if err := dealer.Dial(ci.Endpoint(ci.ShellPort)); err != nil {
		b.Fatal(err)
	}
	signer, _ := ci.Signer()
	frames, _ := signer.Encode(&wire.Message{Header: wire.NewHeader("bench", "kernel_info_request")})
	if err := dealer.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		b.Fatal(err)
	}
	reply, err := dealer.Recv()
	if err != nil {
		b.Fatal(err)
	}
	if m, err := signer.Decode(reply.Frames); err != nil || m.Header.MsgType != "kernel_info_reply" {
		b.Fatalf("reply %v %v", m, err)
	}
}

// connectionFile writes a connection file with free ports and a fresh key.
func connectionFile(b *testing.B, dir string) (wire.ConnectionInfo, string) {
	var ports [5]int
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		defer l.Close()
	}
	ci := wire.ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", ShellPort: ports[0], ControlPort: ports[1],
		StdinPort: ports[2], IOPubPort: ports[3], HBPort: ports[4], Key: wire.NewID(), SignatureScheme: "hmac-sha256"}
	raw, _ := json.Marshal(ci)
	path := filepath.Join(dir, "conn.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	return ci, path
}

// BenchmarkCellLatency measures cells of a session with the kernel's
// bound packages, as `weft kernel run` makes it (issue 40's latency
// lines): "trivial" is `1 + 1`; "gonum" a call of gonum's stat.Mean
// (imported once before); both interpreted.
func BenchmarkCellLatency(b *testing.B) {
	for _, c := range []struct{ name, setup, cell string }{
		{"trivial", "", "1 + 1"},
		{"gonum", "import \"gonum.org/v1/gonum/stat\"", "stat.Mean([]float64{1, 2, 3, 4}, nil)"},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := benchEngine(b, b.TempDir())
			if c.setup != "" {
				benchCell(b, e, c.setup)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				benchCell(b, e, c.cell)
			}
		})
	}
}

// BenchmarkGoGet measures `%go get github.com/spaolacci/murmur3@v1.1.0`
// in a new session (issue 40's latency lines): "first" with an empty
// module cache of its own (the module is downloaded from GOPROXY; Go's
// build cache stays warm after the first iteration), "cached" with the
// module cache warm.
func BenchmarkGoGet(b *testing.B) {
	const get = "%go get github.com/spaolacci/murmur3@v1.1.0"
	b.Run("first", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			b.Setenv("GOMODCACHE", b.TempDir())
			e := benchEngine(b, b.TempDir())
			b.StartTimer()
			benchCell(b, e, get)
			b.StopTimer()
			// The module cache's files are read-only: go clean removes them.
			exec.Command("go", "clean", "-modcache").Run()
			b.StartTimer()
		}
	})
	b.Run("cached", func(b *testing.B) {
		benchCell(b, benchEngine(b, b.TempDir()), get)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			e := benchEngine(b, b.TempDir())
			b.StartTimer()
			benchCell(b, e, get)
		}
	})
}

func benchEngine(b *testing.B, gopath string) *engine.Engine {
	e, err := engine.New(engine.Options{Symbols: []interp.Exports{symbols.Exports()}, GoPath: gopath})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

func benchCell(b *testing.B, e *engine.Engine, code string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	if _, err := e.Execute(ctx, code, benchPub{}); err != nil {
		b.Fatalf("%s: %v", code, err)
	}
}

// benchPub is a Publisher that drops a cell's output.
type benchPub struct{}

func (benchPub) Stream(string, string)              {}
func (benchPub) Display(display.Data) error         { return nil }
func (benchPub) Update(string, display.Data) error  { return nil }
func (benchPub) Clear(bool) error                   { return nil }
func (benchPub) Input(string, bool) (string, error) { return "", errors.New("no input") }
