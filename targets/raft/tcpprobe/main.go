// Command tcpprobe is the first step towards Raft on etcd's raft library
// under weft (issue 17): three nodes that talk TCP the way a Go Raft
// transport does — each listens on BASE+id, dials every peer with
// net.Dial, and exchanges length-prefixed messages from goroutines, with
// timeouts from time.Ticker and a read deadline. It counts the messages
// it received from its peers (the declared state received) and exits after
// ROUNDS rounds.
//
// usage: tcpprobe ID NODES BASE ROUNDS [tcp|tcp4] [keepalive|nokeepalive]
package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname gives the declared global its C-like name
)

// received counts the messages from peers (weft reads it by its symbol).
//
//go:linkname received received
var received atomic.Int64

// network is the fifth argument, "tcp" by default: Go's net package
// then probes for IPv6 (socket(AF_INET6, …)) before its first listener.
var network = "tcp"

// keepAlive is the sixth argument: "keepalive" (Go's default, which sets
// SO_KEEPALIVE and TCP_KEEPIDLE/INTVL/CNT on every connection) or
// "nokeepalive".
var keepAliveArg = "keepalive"

func main() {
	if len(os.Args) < 5 || len(os.Args) > 7 {
		fmt.Fprintln(os.Stderr, "usage: tcpprobe ID NODES BASE ROUNDS [tcp|tcp4] [keepalive|nokeepalive]")
		os.Exit(2)
	}
	if len(os.Args) > 5 {
		network = os.Args[5]
	}
	if len(os.Args) > 6 {
		keepAliveArg = os.Args[6]
	}
	id, _ := strconv.Atoi(os.Args[1])
	nodes, _ := strconv.Atoi(os.Args[2])
	base, _ := strconv.Atoi(os.Args[3])
	rounds, _ := strconv.Atoi(os.Args[4])
	lc := net.ListenConfig{KeepAlive: keepAlive()}
	ln, err := lc.Listen(context.Background(), network, fmt.Sprintf("127.0.0.1:%d", base+id))
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(1)
	}
	go accept(ln)
	var wg sync.WaitGroup
	for p := 0; p < nodes; p++ {
		if p == id {
			continue
		}
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			send(id, p, base, rounds)
		}(p)
	}
	wg.Wait()
	time.Sleep(200 * time.Millisecond) // let the peers' last messages arrive
	fmt.Printf("node %d received %d\n", id, received.Load())
}

// keepAlive is the connections' keep-alive period: Go's default, or off.
func keepAlive() time.Duration {
	if keepAliveArg == "nokeepalive" {
		return -1
	}
	return 0
}

func accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func(c net.Conn) {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				c.SetReadDeadline(time.Now().Add(2 * time.Second))
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
				received.Add(1)
			}
		}(c)
	}
}

// send dials peer p (retrying until it listens) and sends one message per
// tick.
func send(id, p, base, rounds int) {
	var c net.Conn
	var err error
	for {
		d := net.Dialer{Timeout: time.Second, KeepAlive: keepAlive()}
		c, err = d.Dial(network, fmt.Sprintf("127.0.0.1:%d", base+p))
		if err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer c.Close()
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for k := 0; k < rounds; k++ {
		<-t.C
		if _, err := fmt.Fprintf(c, "msg %d from %d\n", k, id); err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
			return
		}
	}
}
