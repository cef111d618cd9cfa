// Command gonetlink prints the network interfaces and addresses Go's net
// package reads over NETLINK_ROUTE (TestNetlinkGo runs it under weft).
package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	ifs, err := net.Interfaces()
	if err != nil {
		fmt.Println("Interfaces:", err)
		os.Exit(1)
	}
	for _, f := range ifs {
		fmt.Printf("if %d %s mtu %d mac %q flags %v\n", f.Index, f.Name, f.MTU, f.HardwareAddr.String(), f.Flags)
		addrs, err := f.Addrs()
		if err != nil {
			fmt.Println("Addrs:", err)
			os.Exit(1)
		}
		for _, a := range addrs {
			fmt.Printf("  addr %s\n", a)
		}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		fmt.Println("InterfaceAddrs:", err)
		os.Exit(1)
	}
	fmt.Println("all:", addrs)
	eth, err := net.InterfaceByName("eth0")
	fmt.Println("eth0 by name:", eth.Index, err)
	if _, err := net.InterfaceByIndex(7); err != nil {
		fmt.Println("index 7:", err)
	}
}
