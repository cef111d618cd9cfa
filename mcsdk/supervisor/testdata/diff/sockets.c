/* sockets: the socket calls real programs make, in one process on
 * loopback: non-blocking connect, accept4 flags, partial writes, shutdown
 * and half-close, MSG_PEEK/DONTWAIT/WAITALL, vectored and batched I/O,
 * socket options, IPv6 (::1, mapped addresses, V6ONLY).
 * usage: sockets PORT (uses PORT..PORT+9) */
#include "probe.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static struct sockaddr_in in4(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	return a;
}

static struct sockaddr_in6 in6(int port, int mapped)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((unsigned short)port) };
	if (mapped)
		inet_pton(AF_INET6, "::ffff:127.0.0.1", &a.sin6_addr);
	else
		a.sin6_addr = in6addr_loopback;
	return a;
}

static int listener(int family, int port, int v6only)
{
	int l = socket(family, SOCK_STREAM, 0), one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (family == AF_INET6) {
		setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
		struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((unsigned short)port),
		                          .sin6_addr = in6addr_any };
		bind(l, (struct sockaddr *)&a, sizeof a);
	} else {
		struct sockaddr_in a = in4(port);
		bind(l, (struct sockaddr *)&a, sizeof a);
	}
	listen(l, 8);
	return l;
}

/* revents polls one descriptor without waiting. */
static int revents(int fd, int events)
{
	struct pollfd p = { .fd = fd, .events = (short)events };
	poll(&p, 1, 0);
	return p.revents;
}

/* waitfor polls one descriptor, blocking. */
static int waitfor(int fd, int events)
{
	struct pollfd p = { .fd = fd, .events = (short)events };
	poll(&p, 1, -1);
	return p.revents;
}

static int soerror(int fd)
{
	int e = -1;
	socklen_t len = sizeof e;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len);
	return e;
}

static void nonblocking_connect(int port)
{
	int l = listener(AF_INET, port, 0);
	struct sockaddr_in a = in4(port);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int r = connect(c, (struct sockaddr *)&a, sizeof a);
	SAME("nonblocking connect: %d %s", r, r < 0 ? strerrorname_np(errno) : "ok");
	SAME("writable after connect: %d", (waitfor(c, POLLOUT) & POLLOUT) != 0);
	SAME("SO_ERROR after connect: %d", soerror(c));
	struct sockaddr_in peer;
	socklen_t len = sizeof peer;
	int s = accept4(l, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
	SAME("accept4 ok: %d family %d len %d", s >= 0, peer.sin_family, (int)len);
	SAME("accept4 O_NONBLOCK: %d", (fcntl(s, F_GETFL) & O_NONBLOCK) != 0);
	SAME("accept4 FD_CLOEXEC: %d", (fcntl(s, F_GETFD) & FD_CLOEXEC) != 0);
	char b[8];
	CHECK("recv(empty, nonblocking)", recv(s, b, sizeof b, 0));
	CHECK("accept4(bad flags)", accept4(l, NULL, NULL, 0x40));
	CHECK("accept(empty, nonblocking listener)", (fcntl(l, F_SETFL, O_NONBLOCK), accept(l, NULL, NULL)));
	/* flags, shutdown's how and socket's arguments are C ints: Linux reads the low 32 bits */
	CHECK("accept4(flags with bits above an int)", syscall(SYS_accept4, l, 0L, 0L, 0x100000000L | SOCK_CLOEXEC));
	close(s);
	close(c);

	int d = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in none = in4(port + 1);
	r = connect(d, (struct sockaddr *)&none, sizeof none);
	if (r < 0 && errno == EINPROGRESS) /* Linux refuses on loopback at once; weft after the SYN */
		waitfor(d, POLLOUT);
	int ev = revents(d, POLLIN | POLLOUT);
	SAME("refused: POLLOUT %d POLLERR %d POLLHUP %d", (ev & POLLOUT) != 0, (ev & POLLERR) != 0, (ev & POLLHUP) != 0);
	int e = r < 0 && errno == EINPROGRESS ? soerror(d) : errno;
	SAME("refused: SO_ERROR %s", strerrorname_np(e));
	SAME("SO_ERROR read again: %d", soerror(d));
	close(d);

	int f = socket(AF_INET, SOCK_STREAM, 0);
	int on = 1;
	CHECK("FIONBIO", ioctl(f, FIONBIO, &on));
	r = connect(f, (struct sockaddr *)&a, sizeof a);
	SAME("connect after FIONBIO: %s", r < 0 ? strerrorname_np(errno) : "ok");
	r = connect(f, (struct sockaddr *)&a, sizeof a); /* loopback: Linux has connected already */
	VIRT("connect again at once: %s", r < 0 ? strerrorname_np(errno) : "ok");
	waitfor(f, POLLOUT);
	if (r < 0)
		CHECK("connect once established", connect(f, (struct sockaddr *)&a, sizeof a));
	else
		SAME("connect once established -> 0 ok");
	CHECK("connect again", connect(f, (struct sockaddr *)&a, sizeof a));
	close(f);
	close(l);
}

/* pair returns a connected (client, server) over a fresh listener. */
static void pair(int port, int *c, int *s)
{
	int l = listener(AF_INET, port, 0);
	struct sockaddr_in a = in4(port);
	*c = socket(AF_INET, SOCK_STREAM, 0);
	connect(*c, (struct sockaddr *)&a, sizeof a);
	*s = accept(l, NULL, NULL);
	close(l);
}

static void buffers(int port)
{
	int c, s;
	pair(port, &c, &s);
	int sz = 4096;
	CHECK("SO_SNDBUF 4096", setsockopt(c, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz));
	socklen_t len = sizeof sz;
	getsockopt(c, SOL_SOCKET, SO_SNDBUF, &sz, &len);
	SAME("SO_SNDBUF reads %d", sz);
	fcntl(c, F_SETFL, O_NONBLOCK);
	static char big[1 << 22];
	ssize_t first = send(c, big, sizeof big, 0), total = first > 0 ? first : 0, w;
	SAME("first big send partial: %d", first > 0 && first < (ssize_t)sizeof big);
	while ((w = send(c, big, sizeof big, 0)) > 0)
		total += w;
	SAME("then EAGAIN: %s", strerrorname_np(errno));
	SAME("full: POLLOUT %d", (revents(c, POLLOUT) & POLLOUT) != 0);
	CHECK("MSG_DONTWAIT send when full", send(c, big, 1, MSG_DONTWAIT));
	ssize_t got = 0, r;
	while (got < total && (r = recv(s, big, sizeof big, 0)) > 0)
		got += r;
	SAME("peer read everything sent: %d", got == total);
	SAME("writable again: %d", (waitfor(c, POLLOUT) & POLLOUT) != 0);
	struct timeval tv = { 0, 50000 };
	CHECK("SO_SNDTIMEO", setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv));
	fcntl(c, F_SETFL, 0);
	w = send(c, big, sizeof big, 0);
	SAME("blocking send with SO_SNDTIMEO: partial %d", w > 0 && w < (ssize_t)sizeof big);
	while ((w = send(c, big, sizeof big, 0)) > 0)
		;
	SAME("then times out: %s", strerrorname_np(errno));
	close(c);
	close(s);
}

static void shutdowns(int port)
{
	int c, s;
	pair(port, &c, &s);
	char b[16] = "";
	send(c, "abc", 3, 0);
	CHECK("shutdown(SHUT_WR)", shutdown(c, SHUT_WR));
	CHECK("send after SHUT_WR", send(c, "x", 1, MSG_NOSIGNAL));
	CHECK("MSG_PEEK", recv(s, b, 2, MSG_PEEK));
	SAME("peeked %.2s", b);
	CHECK("MSG_WAITALL 3", recv(s, b, 3, MSG_WAITALL));
	SAME("read %.3s", b);
	CHECK("recv at EOF", recv(s, b, sizeof b, 0));
	SAME("EOF polls POLLIN %d POLLRDHUP %d", (revents(s, POLLIN) & POLLIN) != 0, (revents(s, POLLRDHUP) & POLLRDHUP) != 0);
	CHECK("peer may still send", send(s, "back", 4, 0));
	CHECK("half-closed side reads", recv(c, b, sizeof b, 0));
	CHECK("shutdown(SHUT_RD)", shutdown(s, SHUT_RD));
	CHECK("recv after SHUT_RD", recv(s, b, sizeof b, 0));
	CHECK("shutdown(bad how)", shutdown(s, 7));
	CHECK("shutdown(how with bits above an int)", syscall(SYS_shutdown, s, 0x100000000L | SHUT_RD));
	CHECK("shutdown(how -1 as an int)", syscall(SYS_shutdown, s, 0xffffffffL));
	int u = socket(AF_INET, SOCK_STREAM, 0);
	CHECK("shutdown(unconnected)", shutdown(u, SHUT_RDWR));
	close(u);
	close(c);
	close(s);
}

static void vectors(int port)
{
	int c, s;
	pair(port, &c, &s);
	char x[] = "one", y[] = "two", z[] = "three";
	struct iovec out[3] = { { x, 3 }, { y, 3 }, { z, 5 } };
	CHECK("writev 3 iovecs", writev(c, out, 3));
	struct msghdr m = { .msg_iov = out, .msg_iovlen = 2 };
	CHECK("sendmsg 2 iovecs", sendmsg(c, &m, 0));
	char p[4] = "", q[5] = "", r[20] = "";
	struct iovec in[3] = { { p, 4 }, { q, 5 }, { r, 2 } };
	struct msghdr h = { .msg_iov = in, .msg_iovlen = 3 };
	ssize_t n = 0;
	while (n < 11)
		n += recvmsg(s, &h, MSG_WAITALL);
	SAME("recvmsg scattered %.4s|%.5s|%.2s", p, q, r);
	struct iovec in2[2] = { { p, 2 }, { r, 20 } };
	CHECK("readv", readv(s, in2, 2));
	SAME("readv %.2s|%.3s", p, r);
	struct sockaddr_in6 me;
	socklen_t len = sizeof me;
	getsockname(c, (struct sockaddr *)&me, &len);
	SAME("getsockname family %d len %d", me.sin6_family, (int)len);
	len = sizeof me;
	CHECK("getpeername", getpeername(c, (struct sockaddr *)&me, &len));
	SAME("peer port %d", ntohs(((struct sockaddr_in *)&me)->sin_port) == port);
	close(c);
	close(s);

	int u = socket(AF_INET, SOCK_DGRAM, 0), v = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = in4(port + 5);
	bind(u, (struct sockaddr *)&a, sizeof a);
	connect(v, (struct sockaddr *)&a, sizeof a);
	struct mmsghdr mm[3];
	struct iovec iv[3] = { { x, 3 }, { y, 3 }, { z, 5 } };
	memset(mm, 0, sizeof mm);
	for (int i = 0; i < 3; i++) {
		mm[i].msg_hdr.msg_iov = &iv[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	CHECK("sendmmsg 3", sendmmsg(v, mm, 3, 0));
	SAME("msg_len %u %u %u", mm[0].msg_len, mm[1].msg_len, mm[2].msg_len);
	char bufs[3][8];
	struct iovec rv[3] = { { bufs[0], 8 }, { bufs[1], 8 }, { bufs[2], 8 } };
	struct mmsghdr rm[3];
	memset(rm, 0, sizeof rm);
	for (int i = 0; i < 3; i++) {
		rm[i].msg_hdr.msg_iov = &rv[i];
		rm[i].msg_hdr.msg_iovlen = 1;
	}
	waitfor(u, POLLIN);
	int k = recvmmsg(u, rm, 3, MSG_WAITFORONE, NULL);
	int tot = k;
	while (tot > 0 && tot < 3) {
		waitfor(u, POLLIN);
		k = recvmmsg(u, rm + tot, 3 - tot, MSG_WAITFORONE, NULL);
		if (k <= 0)
			break;
		tot += k;
	}
	SAME("recvmmsg got %d: %.3s %.3s %.5s", tot, bufs[0], bufs[1], bufs[2]);
	CHECK("recvmmsg(empty, MSG_DONTWAIT)", recvmmsg(u, rm, 3, MSG_DONTWAIT, NULL));
	close(u);
	close(v);
}

struct opt { int opt; const char *name; int level; int val; };

/* setget reads an option's default, sets it and reads it back. */
static void setget(int t, const struct opt *o)
{
	int v = 0;
	socklen_t len = sizeof v;
	getsockopt(t, o->level, o->opt, &v, &len);
	SAME("%s default %d", o->name, v);
	CHECK(o->name, setsockopt(t, o->level, o->opt, &o->val, sizeof o->val));
	len = sizeof v;
	getsockopt(t, o->level, o->opt, &v, &len);
	SAME("%s reads %d (len %d)", o->name, v, (int)len);
}

static void options(void)
{
	int t = socket(AF_INET, SOCK_STREAM, 0), on = 1, v = 0;
	socklen_t len = sizeof v;
	struct opt opts[] = {
		{ TCP_NODELAY, "TCP_NODELAY", IPPROTO_TCP, 5 },
		{ SO_KEEPALIVE, "SO_KEEPALIVE", SOL_SOCKET, 1 },
		{ SO_REUSEADDR, "SO_REUSEADDR", SOL_SOCKET, 1 },
		{ SO_REUSEPORT, "SO_REUSEPORT", SOL_SOCKET, 1 },
		{ TCP_KEEPIDLE, "TCP_KEEPIDLE", IPPROTO_TCP, 30 },
		{ TCP_KEEPINTVL, "TCP_KEEPINTVL", IPPROTO_TCP, 5 },
		{ TCP_KEEPCNT, "TCP_KEEPCNT", IPPROTO_TCP, 3 },
		{ SO_RCVBUF, "SO_RCVBUF", SOL_SOCKET, 8192 },
		{ SO_OOBINLINE, "SO_OOBINLINE", SOL_SOCKET, 1 },
		{ SO_PRIORITY, "SO_PRIORITY", SOL_SOCKET, 3 },
		{ TCP_CORK, "TCP_CORK", IPPROTO_TCP, 1 },
		{ TCP_FASTOPEN, "TCP_FASTOPEN", IPPROTO_TCP, 5 },
		{ TCP_MAXSEG, "TCP_MAXSEG", IPPROTO_TCP, 1000 },
		{ IP_TOS, "IP_TOS", IPPROTO_IP, 16 },
		{ IP_TTL, "IP_TTL", IPPROTO_IP, 32 },
		{ IP_RECVERR, "IP_RECVERR", IPPROTO_IP, 1 },
		{ IP_MTU_DISCOVER, "IP_MTU_DISCOVER", IPPROTO_IP, 2 },
	};
	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
		setget(t, &opts[i]);
	int t6 = socket(AF_INET6, SOCK_STREAM, 0);
	struct opt opts6[] = {
		{ IPV6_TCLASS, "IPV6_TCLASS", IPPROTO_IPV6, 8 },
		{ IPV6_UNICAST_HOPS, "IPV6_UNICAST_HOPS", IPPROTO_IPV6, 9 },
		{ IPV6_RECVERR, "IPV6_RECVERR", IPPROTO_IPV6, 1 },
	};
	for (size_t i = 0; i < sizeof opts6 / sizeof opts6[0]; i++)
		setget(t6, &opts6[i]);
	/* -1 asks for the default (ip(7), ipv6(7)); IP_TOS keeps a byte, and
	 * on TCP not its ECN bits. */
	struct opt dflt[] = {
		{ IP_TTL, "IP_TTL -1", IPPROTO_IP, -1 },
		{ IP_TOS, "IP_TOS 300", IPPROTO_IP, 300 },
		{ IP_TOS, "IP_TOS -1", IPPROTO_IP, -1 },
		{ IP_TTL, "IP_TTL 0", IPPROTO_IP, 0 },
	};
	for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++)
		setget(t, &dflt[i]);
	struct opt dflt6[] = {
		{ IPV6_UNICAST_HOPS, "IPV6_UNICAST_HOPS -1", IPPROTO_IPV6, -1 },
		{ IPV6_TCLASS, "IPV6_TCLASS -1", IPPROTO_IPV6, -1 },
		{ IPV6_TCLASS, "IPV6_TCLASS 256", IPPROTO_IPV6, 256 },
	};
	for (size_t i = 0; i < sizeof dflt6 / sizeof dflt6[0]; i++)
		setget(t6, &dflt6[i]);
	close(t6);
	CHECK("IPV6_TCLASS on IPv4", setsockopt(t, IPPROTO_IPV6, IPV6_TCLASS, &on, sizeof on));
	int bad = 0;
	CHECK("TCP_KEEPIDLE 0", setsockopt(t, IPPROTO_TCP, TCP_KEEPIDLE, &bad, sizeof bad));
	struct linger lg = { 1, 5 };
	CHECK("SO_LINGER", setsockopt(t, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
	memset(&lg, 0, sizeof lg);
	len = sizeof lg;
	getsockopt(t, SOL_SOCKET, SO_LINGER, &lg, &len);
	SAME("SO_LINGER reads %d %d", lg.l_onoff, lg.l_linger);
	CHECK("setsockopt(SO_TYPE)", setsockopt(t, SOL_SOCKET, SO_TYPE, &on, sizeof on));
	CHECK("IPV6_V6ONLY on IPv4", setsockopt(t, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on));
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK("TCP_NODELAY on UDP", setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on));
	len = sizeof v;
	getsockopt(u, SOL_SOCKET, SO_TYPE, &v, &len);
	SAME("SO_TYPE %d", v);
	len = sizeof v;
	getsockopt(u, SOL_SOCKET, SO_PROTOCOL, &v, &len);
	SAME("SO_PROTOCOL %d", v);
	close(t);
	close(u);
	long hi = 0x100000000L;
	int h = (int)syscall(SYS_socket, hi | AF_INET, hi | SOCK_DGRAM, hi | IPPROTO_UDP);
	CHECK("socket(AF_INET, args with bits above an int)", h);
	close(h);
	h = (int)syscall(SYS_socket, hi | AF_UNIX, hi | SOCK_STREAM, hi);
	CHECK("socket(AF_UNIX, args with bits above an int)", h);
	close(h);
	CHECK("socket(unknown type flag)", socket(AF_INET, SOCK_STREAM | 0x1000, 0));
	CHECK("socket(AF_UNIX, unknown type flag)", socket(AF_UNIX, SOCK_STREAM | 0x1000, 0));
	CHECK("socket(type above SOCK_MAX)", socket(AF_INET, 12, 0));
	CHECK("socket(family above AF_MAX)", socket(99, SOCK_STREAM, 0));
	CHECK("socket(negative family)", socket(-1, SOCK_STREAM, 0));
}

static void ipv6(int port)
{
	int l = listener(AF_INET6, port, 0);
	struct sockaddr_in a = in4(port);
	int c4 = socket(AF_INET, SOCK_STREAM, 0);
	CHECK("IPv4 client to a dual-stack listener", connect(c4, (struct sockaddr *)&a, sizeof a));
	struct sockaddr_in6 peer;
	socklen_t len = sizeof peer;
	int s = accept(l, (struct sockaddr *)&peer, &len);
	char text[64];
	inet_ntop(AF_INET6, &peer.sin6_addr, text, sizeof text);
	SAME("accepted family %d len %d addr %s", peer.sin6_family, (int)len, text);
	len = sizeof peer;
	getsockname(s, (struct sockaddr *)&peer, &len);
	inet_ntop(AF_INET6, &peer.sin6_addr, text, sizeof text);
	SAME("accepted getsockname %s", text);
	close(s);
	close(c4);

	int c6 = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 b = in6(port, 0);
	CHECK("::1 client", connect(c6, (struct sockaddr *)&b, sizeof b));
	len = sizeof peer;
	s = accept(l, (struct sockaddr *)&peer, &len);
	inet_ntop(AF_INET6, &peer.sin6_addr, text, sizeof text);
	SAME("accepted %s", text);
	send(c6, "v6", 2, 0);
	char buf[4] = "";
	recv(s, buf, sizeof buf, 0);
	SAME("over ::1: %.2s", buf);
	len = sizeof peer;
	getsockname(c6, (struct sockaddr *)&peer, &len);
	inet_ntop(AF_INET6, &peer.sin6_addr, text, sizeof text);
	SAME("client getsockname %s len %d", text, (int)len);
	close(s);
	close(c6);

	int m = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 mapped = in6(port, 1);
	CHECK("mapped client", connect(m, (struct sockaddr *)&mapped, sizeof mapped));
	s = accept(l, NULL, NULL);
	close(s);
	close(m);
	close(l);

	int only = listener(AF_INET6, port + 1, 1);
	int on = 0;
	len = sizeof on;
	getsockopt(only, IPPROTO_IPV6, IPV6_V6ONLY, &on, &len);
	SAME("IPV6_V6ONLY reads %d", on);
	struct sockaddr_in a1 = in4(port + 1);
	int r4 = socket(AF_INET, SOCK_STREAM, 0);
	CHECK("IPv4 client to a V6ONLY listener", connect(r4, (struct sockaddr *)&a1, sizeof a1));
	close(r4);
	close(only);
	int fam = socket(AF_INET, SOCK_STREAM, 0);
	CHECK("IPv4 socket to an IPv6 address", connect(fam, (struct sockaddr *)&b, sizeof b));
	close(fam);

	int u6 = socket(AF_INET6, SOCK_DGRAM, 0), u4 = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in6 any = { .sin6_family = AF_INET6, .sin6_port = htons((unsigned short)(port + 2)) };
	CHECK("bind UDP [::]", bind(u6, (struct sockaddr *)&any, sizeof any));
	struct sockaddr_in to = in4(port + 2);
	CHECK("IPv4 datagram to [::]", sendto(u4, "d4", 2, 0, (struct sockaddr *)&to, sizeof to));
	waitfor(u6, POLLIN);
	len = sizeof peer;
	CHECK("recvfrom", recvfrom(u6, buf, sizeof buf, 0, (struct sockaddr *)&peer, &len));
	inet_ntop(AF_INET6, &peer.sin6_addr, text, sizeof text);
	SAME("from %s len %d", text, (int)len);
	close(u6);
	close(u4);
}

/* priority: SO_PRIORITY above 6 needs CAP_NET_ADMIN or CAP_NET_RAW
 * (root has them: kept); without them it is EPERM. It runs last: it
 * gives up root. */
static void priority(void)
{
	int t = socket(AF_INET, SOCK_STREAM, 0), seven = 7, six = 6, v = 0;
	socklen_t len = sizeof v;
	CHECK("SO_PRIORITY 7 as we run", setsockopt(t, SOL_SOCKET, SO_PRIORITY, &seven, sizeof seven));
	getsockopt(t, SOL_SOCKET, SO_PRIORITY, &v, &len);
	SAME("SO_PRIORITY reads %d", v);
	if (setresuid(65534, 65534, 65534) != 0 && errno != EPERM)
		SAME("setresuid: %s", strerrorname_np(errno));
	CHECK("SO_PRIORITY 7 as nobody", setsockopt(t, SOL_SOCKET, SO_PRIORITY, &seven, sizeof seven));
	CHECK("SO_PRIORITY 6 as nobody", setsockopt(t, SOL_SOCKET, SO_PRIORITY, &six, sizeof six));
	close(t);
}

int main(int argc, char **argv)
{
	int port = argc > 1 ? atoi(argv[1]) : 47200;
	setvbuf(stdout, NULL, _IONBF, 0);
	nonblocking_connect(port);
	buffers(port + 2);
	shutdowns(port + 3);
	vectors(port + 4);
	options();
	ipv6(port + 6);
	priority();
	return 0;
}
