// Command goecho is the Go benchmark workload: request/response round
// trips over net TCP (a goroutine per connection on the server), and an
// empty start-up.
//
// usage: goecho ID PORT MODE N
//
//	pingpong: node 0 serves one connection on PORT, answering each line;
//	          node 1 dials it and makes N request/response round trips
//	start:    exits at once (the start-up of a Go binary)
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: goecho ID PORT MODE N")
		os.Exit(2)
	}
	id, _ := strconv.Atoi(os.Args[1])
	port, _ := strconv.Atoi(os.Args[2])
	n, _ := strconv.Atoi(os.Args[4])
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	switch os.Args[3] {
	case "start":
	case "pingpong":
		if id == 0 {
			serve(addr)
		} else {
			client(addr, n)
		}
	default:
		fmt.Fprintln(os.Stderr, "goecho: unknown mode", os.Args[3])
		os.Exit(2)
	}
}

// serve answers every line of one connection in a goroutine, then exits.
func serve(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, err := ln.Accept()
	if err != nil {
		os.Exit(1)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(c)
		for sc.Scan() {
			c.Write(append(sc.Bytes(), '\n'))
		}
	}()
	<-done
}

// client dials (retrying while the server does not listen yet) and makes
// n round trips.
func client(addr string, n int) {
	var c net.Conn
	for {
		var err error
		if c, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	r := bufio.NewReader(c)
	for i := 0; i < n; i++ {
		fmt.Fprintf(c, "req %d\n", i)
		if _, err := r.ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	c.Close()
}
