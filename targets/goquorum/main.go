// Command goquorum is a Go port of targets/quorum using only the standard
// library: a three-node replicated log with a primary and two backups,
// over net TCP with a goroutine per connection, a dial deadline from a
// context, and a timer that retries a refused dial.
//
// Node 0, the primary, accepts clients. A request "WRITE <v>" gets a
// sequence number; the primary appends v to its own log and forwards
// "FWD <seq> <v>" to both backups, which append and answer "OK <seq>".
// When a majority (the primary and one backup) has the value, the primary
// answers the client "ACK <v>". "READ" gets "VAL <v>", the latest write a
// backup has confirmed.
//
// With -bug the primary credits every backup OK to the most recent write
// instead of the write it acknowledges (quorum.c's -DBUG): an OK for an
// earlier write, arriving after a later one was forwarded, acks the later
// write although no backup has it yet.
//
// usage: goquorum [-bug] ID NODES BASE_PORT   (node i listens on BASE_PORT+i)
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"
	_ "unsafe" // go:linkname
)

const maxLog = 4

// The replicated log, read by weft by symbol (the model's state).
//
//go:linkname logVals log_vals
var logVals [maxLog]int32

//go:linkname nlog nlog
var nlog int32

// mu guards the log and the primary's writes.
var mu sync.Mutex

func appendLog(v int32) {
	mu.Lock()
	defer mu.Unlock()
	if nlog < maxLog {
		logVals[nlog] = v
		nlog++
	}
}

func main() {
	bug := flag.Bool("bug", false, "credit every OK to the latest write (the planted bug)")
	flag.Parse()
	if flag.NArg() < 3 {
		fmt.Fprintln(os.Stderr, "usage: goquorum [-bug] ID NODES BASE_PORT")
		os.Exit(2)
	}
	id, _ := strconv.Atoi(flag.Arg(0))
	base, _ := strconv.Atoi(flag.Arg(2))
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+id))
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(1)
	}
	if id == 0 {
		p := &primary{bug: *bug, writes: make([]write, maxLog+1)}
		p.run(ln, base)
		return
	}
	backup(ln)
}

// backup serves each connection from the primary in its own goroutine.
func backup(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			continue
		}
		go func() {
			defer c.Close()
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				var seq, v int32
				if n, _ := fmt.Sscanf(sc.Text(), "FWD %d %d", &seq, &v); n == 2 {
					appendLog(v)
					fmt.Fprintf(c, "OK %d\n", seq)
				}
			}
		}()
	}
}

type write struct {
	val    int32
	client net.Conn
	acks   int
	done   bool
}

type primary struct {
	bug       bool
	peers     [2]net.Conn
	writes    []write // by sequence number, guarded by mu
	seq       int
	confirmed int
}

// dial connects to a backup within a context deadline, retrying a refused
// dial after a timer (a backup may not listen yet).
func dial(port int) net.Conn {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", port))
		cancel()
		if err == nil {
			return c
		}
		<-time.After(10 * time.Millisecond)
	}
}

func (p *primary) run(ln net.Listener, base int) {
	for i := range p.peers {
		p.peers[i] = dial(base + 1 + i)
	}
	for i := range p.peers {
		go p.readOKs(p.peers[i])
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			continue
		}
		go p.serveClient(c)
	}
}

// readOKs credits one backup's confirmations.
func (p *primary) readOKs(c net.Conn) {
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		var s int
		if n, _ := fmt.Sscanf(sc.Text(), "OK %d", &s); n != 1 {
			continue
		}
		mu.Lock()
		if s >= 1 && s <= p.seq {
			p.confirmed = max(p.confirmed, s)
			x := &p.writes[s]
			if p.bug {
				x = &p.writes[p.seq] // credits the latest write
			}
			x.acks++
			if x.acks >= 2 && !x.done {
				x.done = true
				fmt.Fprintf(x.client, "ACK %d\n", x.val)
			}
		}
		mu.Unlock()
	}
}

// serveClient handles one client connection's requests.
func (p *primary) serveClient(c net.Conn) {
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		line := sc.Text()
		var v int32
		if n, _ := fmt.Sscanf(line, "WRITE %d", &v); n == 1 {
			mu.Lock()
			if p.seq < maxLog {
				p.seq++
				seq := p.seq
				p.writes[seq] = write{val: v, client: c, acks: 1}
				mu.Unlock()
				appendLog(v)
				msg := fmt.Sprintf("FWD %d %d\n", seq, v)
				for _, peer := range p.peers {
					peer.Write([]byte(msg))
				}
				continue
			}
			mu.Unlock()
		} else if line == "READ" {
			mu.Lock()
			val := int32(0)
			if p.confirmed > 0 {
				val = p.writes[p.confirmed].val
			}
			mu.Unlock()
			fmt.Fprintf(c, "VAL %d\n", val)
		}
	}
}
