/* acceptopts: which socket options an accepted inet socket takes from
 * its listener (Linux clones the listener's socket at the handshake:
 * sk_clone_lock, inet_csk_clone_lock, tcp_create_openreq_child), set
 * before the connection comes, and which it does not: options set on the
 * listener after the handshake and before accept reach no queued socket.
 * usage: acceptopts PORT (uses PORT..PORT+2) */
#include "probe.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <stdlib.h>
#include <unistd.h>

struct opt {
	const char *name;
	int level, opt, val;
};

/* Every option weft serves that a listener may take, with a value
 * other than its default, but TCP_MAXSEG (a connected socket reports
 * the MSS in use, which weft does not model). */
static const struct opt v4opts[] = {
	{ "SO_REUSEADDR", SOL_SOCKET, SO_REUSEADDR, 1 },
	{ "SO_REUSEPORT", SOL_SOCKET, SO_REUSEPORT, 1 },
	{ "SO_KEEPALIVE", SOL_SOCKET, SO_KEEPALIVE, 1 },
	{ "SO_BROADCAST", SOL_SOCKET, SO_BROADCAST, 1 },
	{ "SO_OOBINLINE", SOL_SOCKET, SO_OOBINLINE, 1 },
	{ "SO_PRIORITY", SOL_SOCKET, SO_PRIORITY, 5 },
	{ "TCP_NODELAY", IPPROTO_TCP, TCP_NODELAY, 1 },
	{ "TCP_CORK", IPPROTO_TCP, TCP_CORK, 1 },
	{ "TCP_KEEPIDLE", IPPROTO_TCP, TCP_KEEPIDLE, 100 },
	{ "TCP_KEEPINTVL", IPPROTO_TCP, TCP_KEEPINTVL, 10 },
	{ "TCP_KEEPCNT", IPPROTO_TCP, TCP_KEEPCNT, 3 },
	{ "TCP_USER_TIMEOUT", IPPROTO_TCP, TCP_USER_TIMEOUT, 5000 },
	{ "TCP_DEFER_ACCEPT", IPPROTO_TCP, TCP_DEFER_ACCEPT, 5 },
	{ "TCP_FASTOPEN", IPPROTO_TCP, TCP_FASTOPEN, 5 },
	{ "TCP_QUICKACK", IPPROTO_TCP, TCP_QUICKACK, 0 },
	{ "IP_TOS", IPPROTO_IP, IP_TOS, 0x10 },
	{ "IP_TTL", IPPROTO_IP, IP_TTL, 33 },
	{ "IP_RECVERR", IPPROTO_IP, IP_RECVERR, 1 },
	{ "IP_MTU_DISCOVER", IPPROTO_IP, IP_MTU_DISCOVER, 2 },
};

static const struct opt v6opts[] = {
	{ "IPV6_V6ONLY", IPPROTO_IPV6, IPV6_V6ONLY, 1 },
	{ "IPV6_TCLASS", IPPROTO_IPV6, IPV6_TCLASS, 0x20 },
	{ "IPV6_UNICAST_HOPS", IPPROTO_IPV6, IPV6_UNICAST_HOPS, 20 },
	{ "IPV6_RECVERR", IPPROTO_IPV6, IPV6_RECVERR, 1 },
};

#define N(a) (sizeof a / sizeof a[0])

static int getint(int fd, int level, int opt)
{
	int v = -99;
	socklen_t len = sizeof v;
	if (getsockopt(fd, level, opt, &v, &len) < 0)
		return -100 - errno;
	return v;
}

static void setall(int fd, const struct opt *o, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (setsockopt(fd, o[i].level, o[i].opt, &o[i].val, sizeof o[i].val) < 0)
			SAME("set %s: %s", o[i].name, strerrorname_np(errno));
}

static void show(const char *who, int fd, const struct opt *o, size_t n)
{
	for (size_t i = 0; i < n; i++)
		SAME("%s %s %d", who, o[i].name, getint(fd, o[i].level, o[i].opt));
}

/* showstructs prints the timeouts and the linger. */
static void showstructs(const char *who, int fd)
{
	struct timeval tv = { -1, -1 };
	socklen_t len = sizeof tv;
	getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len);
	SAME("%s SO_RCVTIMEO %ld.%06ld", who, (long)tv.tv_sec, (long)tv.tv_usec);
	len = sizeof tv;
	getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &len);
	SAME("%s SO_SNDTIMEO %ld.%06ld", who, (long)tv.tv_sec, (long)tv.tv_usec);
	struct linger lg = { -1, -1 };
	len = sizeof lg;
	getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &len);
	SAME("%s SO_LINGER %d %d", who, lg.l_onoff, lg.l_linger);
}

static void setstructs(int fd)
{
	struct timeval r = { 3, 500000 }, s = { 4, 200000 };
	struct linger lg = { 1, 7 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &r, sizeof r);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &s, sizeof s);
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
}

/* bufs reports whether the accepted socket's buffer sizes are the
 * listener's (set to other than the default) or a fresh socket's. */
static void bufs(int l, int a, int fresh)
{
	static const struct { const char *name; int opt; } b[] = { { "SO_RCVBUF", SO_RCVBUF }, { "SO_SNDBUF", SO_SNDBUF } };
	for (size_t i = 0; i < N(b); i++) {
		int lv = getint(l, SOL_SOCKET, b[i].opt), av = getint(a, SOL_SOCKET, b[i].opt),
		    fv = getint(fresh, SOL_SOCKET, b[i].opt);
		SAME("accepted %s: %s", b[i].name, av == lv ? "the listener's" : av == fv ? "a fresh socket's" : "other");
	}
}

static int connect4(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK("connect", connect(c, (struct sockaddr *)&a, sizeof a));
	CHECK("write", write(c, "x", 1)); /* what TCP_DEFER_ACCEPT waits for */
	return c;
}

int main(int argc, char **argv)
{
	int port = argc > 1 ? atoi(argv[1]) : 47950, one = 1;
	setvbuf(stdout, NULL, _IONBF, 0);

	/* IPv4: every option set before listen, buffers before listen too. */
	int l = socket(AF_INET, SOCK_STREAM, 0), fresh = socket(AF_INET, SOCK_STREAM, 0);
	setall(l, v4opts, N(v4opts));
	setstructs(l);
	int rb = 4096, sb = 8192;
	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &rb, sizeof rb);
	setsockopt(l, SOL_SOCKET, SO_SNDBUF, &sb, sizeof sb);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	CHECK("bind", bind(l, (struct sockaddr *)&a, sizeof a));
	CHECK("listen", listen(l, 8));
	int c = connect4(port);
	int s = accept(l, NULL, NULL);
	SAME("accept %s", s < 0 ? strerrorname_np(errno) : "ok");
	show("accepted", s, v4opts, N(v4opts));
	showstructs("accepted", s);
	bufs(l, s, fresh);
	show("connector", c, v4opts, N(v4opts));

	/* Options the listener takes after the handshake, before accept: the
	 * queued connection was cloned already. */
	c = connect4(port);
	static const struct opt later[] = {
		{ "SO_KEEPALIVE", SOL_SOCKET, SO_KEEPALIVE, 0 },
		{ "TCP_NODELAY", IPPROTO_TCP, TCP_NODELAY, 0 },
		{ "TCP_KEEPIDLE", IPPROTO_TCP, TCP_KEEPIDLE, 200 },
		{ "IP_TOS", IPPROTO_IP, IP_TOS, 0x20 },
	};
	setall(l, later, N(later));
	s = accept(l, NULL, NULL);
	show("accepted after a change", s, later, N(later));
	c = connect4(port);
	s = accept(l, NULL, NULL);
	show("accepted after the change", s, later, N(later));

	/* IPv6 */
	int l6 = socket(AF_INET6, SOCK_STREAM, 0);
	setall(l6, v6opts, N(v6opts));
	setsockopt(l6, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((unsigned short)(port + 1)),
	                           .sin6_addr = in6addr_loopback };
	CHECK("bind6", bind(l6, (struct sockaddr *)&a6, sizeof a6));
	CHECK("listen6", listen(l6, 8));
	int c6 = socket(AF_INET6, SOCK_STREAM, 0);
	CHECK("connect6", connect(c6, (struct sockaddr *)&a6, sizeof a6));
	int s6 = accept(l6, NULL, NULL);
	show("accepted6", s6, v6opts, N(v6opts));
	return 0;
}
