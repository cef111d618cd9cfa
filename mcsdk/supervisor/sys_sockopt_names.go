//go:build linux && amd64

package supervisor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// An option weft does not model ends the run (verdict error): no call
// runs unexamined, and a program that depends on an option weft ignores
// would be checked against the wrong network. The failure names the
// option in words, so the gap is plain.

// optLevelNames are the option levels by number, as Linux's headers
// name them (SOL_IP is IPPROTO_IP, SOL_TCP IPPROTO_TCP…).
var optLevelNames = map[uint64]string{
	unix.SOL_SOCKET: "SOL_SOCKET", unix.IPPROTO_IP: "SOL_IP", unix.IPPROTO_TCP: "SOL_TCP",
	unix.IPPROTO_UDP: "SOL_UDP", unix.IPPROTO_IPV6: "SOL_IPV6", unix.SOL_RAW: "SOL_RAW",
	unix.SOL_PACKET: "SOL_PACKET", unix.SOL_TLS: "SOL_TLS", unix.IPPROTO_MPTCP: "SOL_MPTCP",
}

// unmodelledOptionNames name the options real programs try that weft
// does not model (the modelled ones are named in socketOptions and
// readOnlyOptions).
var unmodelledOptionNames = map[sockopt]string{
	{unix.SOL_SOCKET, unix.SO_BINDTODEVICE}:         "SO_BINDTODEVICE",
	{unix.SOL_SOCKET, unix.SO_MARK}:                 "SO_MARK",
	{unix.SOL_SOCKET, unix.SO_RCVLOWAT}:             "SO_RCVLOWAT",
	{unix.SOL_SOCKET, unix.SO_SNDLOWAT}:             "SO_SNDLOWAT",
	{unix.SOL_SOCKET, unix.SO_TIMESTAMP}:            "SO_TIMESTAMP",
	{unix.SOL_SOCKET, unix.SO_TIMESTAMPNS}:          "SO_TIMESTAMPNS",
	{unix.SOL_SOCKET, unix.SO_ZEROCOPY}:             "SO_ZEROCOPY",
	{unix.SOL_SOCKET, unix.SO_INCOMING_CPU}:         "SO_INCOMING_CPU",
	{unix.SOL_SOCKET, unix.SO_BUSY_POLL}:            "SO_BUSY_POLL",
	{unix.SOL_SOCKET, unix.SO_ATTACH_FILTER}:        "SO_ATTACH_FILTER",
	{unix.SOL_SOCKET, unix.SO_PEERCRED}:             "SO_PEERCRED",
	{unix.SOL_SOCKET, unix.SO_PASSCRED}:             "SO_PASSCRED",
	{unix.SOL_SOCKET, unix.SO_DONTROUTE}:            "SO_DONTROUTE",
	{unix.SOL_SOCKET, unix.SO_MAX_PACING_RATE}:      "SO_MAX_PACING_RATE",
	{unix.IPPROTO_TCP, unix.TCP_INFO}:               "TCP_INFO",
	{unix.IPPROTO_TCP, unix.TCP_CONGESTION}:         "TCP_CONGESTION",
	{unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT}:      "TCP_NOTSENT_LOWAT",
	{unix.IPPROTO_TCP, unix.TCP_WINDOW_CLAMP}:       "TCP_WINDOW_CLAMP",
	{unix.IPPROTO_TCP, unix.TCP_SYNCNT}:             "TCP_SYNCNT",
	{unix.IPPROTO_TCP, unix.TCP_LINGER2}:            "TCP_LINGER2",
	{unix.IPPROTO_TCP, unix.TCP_MD5SIG}:             "TCP_MD5SIG",
	{unix.IPPROTO_TCP, unix.TCP_ULP}:                "TCP_ULP",
	{unix.IPPROTO_TCP, unix.TCP_REPAIR}:             "TCP_REPAIR",
	{unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT}:   "TCP_FASTOPEN_CONNECT",
	{unix.IPPROTO_IP, unix.IP_PKTINFO}:              "IP_PKTINFO",
	{unix.IPPROTO_IP, unix.IP_FREEBIND}:             "IP_FREEBIND",
	{unix.IPPROTO_IP, unix.IP_TRANSPARENT}:          "IP_TRANSPARENT",
	{unix.IPPROTO_IP, unix.IP_MULTICAST_IF}:         "IP_MULTICAST_IF",
	{unix.IPPROTO_IP, unix.IP_MULTICAST_TTL}:        "IP_MULTICAST_TTL",
	{unix.IPPROTO_IP, unix.IP_MULTICAST_LOOP}:       "IP_MULTICAST_LOOP",
	{unix.IPPROTO_IP, unix.IP_ADD_MEMBERSHIP}:       "IP_ADD_MEMBERSHIP",
	{unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT}: "IP_BIND_ADDRESS_NO_PORT",
	{unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO}:      "IPV6_RECVPKTINFO",
	{unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_IF}:     "IPV6_MULTICAST_IF",
	{unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_HOPS}:   "IPV6_MULTICAST_HOPS",
	{unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_LOOP}:   "IPV6_MULTICAST_LOOP",
	{unix.IPPROTO_IPV6, unix.IPV6_JOIN_GROUP}:       "IPV6_JOIN_GROUP",
}

// optionName names opt in words: its level and option names as Linux's
// headers spell them, with the number ("SOL_TCP TCP_INFO (11)").
func optionName(opt sockopt) string {
	level, ok := optLevelNames[opt.level]
	if !ok {
		level = fmt.Sprintf("level %d", opt.level)
	}
	name := unmodelledOptionNames[opt]
	if spec, ok := socketOptions[opt]; ok {
		name = spec.name
	} else if ro, ok := readOnlyOptions[opt]; ok {
		name = ro
	}
	if name == "" {
		name = "option"
	}
	return fmt.Sprintf("%s %s (%d)", level, name, opt.name)
}

// unmodelledOption ends the run at an option weft does not model, naming
// the call, the option and the thread (the node is the failure's).
func (c *call) unmodelledOption(call string, opt sockopt) result {
	return failf("%s: %s %s is not modelled", c.t.name(), call, optionName(opt))
}
