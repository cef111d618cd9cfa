/* unix: AF_UNIX sockets inside one process: socketpair (stream, dgram,
 * seqpacket), stream and seqpacket by path and abstract name, datagrams
 * by name, shutdown, close, errors. */
#include "probe.h"
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static socklen_t name(struct sockaddr_un *a, const char *path, int abstract)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	if (abstract) {
		memcpy(a->sun_path + 1, path, strlen(path));
		return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(path);
	}
	strcpy(a->sun_path, path);
	return sizeof *a;
}

static void pair(int type, const char *what)
{
	int sv[2];
	char buf[64] = "";
	SAME("-- socketpair %s", what);
	CHECK("socketpair", socketpair(AF_UNIX, type, 0, sv));
	int t = 0;
	socklen_t len = sizeof t;
	CHECK("SO_TYPE", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &t, &len));
	SAME("type ok %d", t == type);
	CHECK("send 3", send(sv[0], "abc", 3, 0));
	CHECK("send 2", send(sv[0], "de", 2, 0));
	CHECK("recv 64", recv(sv[1], buf, sizeof buf, 0));
	SAME("got %s", buf);
	memset(buf, 0, sizeof buf);
	CHECK("recv MSG_DONTWAIT", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
	SAME("got %s", buf);
	CHECK("recv MSG_DONTWAIT (empty)", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
	CHECK("send 6", write(sv[1], "123456", 6));
	memset(buf, 0, sizeof buf);
	CHECK("peek 4", recv(sv[0], buf, 4, MSG_PEEK));
	SAME("peeked %s", buf);
	memset(buf, 0, sizeof buf);
	CHECK("read 4", read(sv[0], buf, 4));
	SAME("got %s", buf);
	CHECK("read rest", recv(sv[0], buf, sizeof buf, MSG_DONTWAIT));
	struct sockaddr_un a;
	len = sizeof a;
	CHECK("getsockname", getsockname(sv[0], (struct sockaddr *)&a, &len));
	SAME("name length %d", (int)len);
	len = sizeof a;
	CHECK("getpeername", getpeername(sv[0], (struct sockaddr *)&a, &len));
	struct ucred cr;
	len = sizeof cr;
	CHECK("SO_PEERCRED", getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &cr, &len));
	SAME("peer is me: %d", cr.pid == getpid());
	CHECK("shutdown(WR)", shutdown(sv[0], SHUT_WR));
	CHECK("send after SHUT_WR", send(sv[0], "x", 1, MSG_NOSIGNAL));
	CHECK("read at the peer (EOF or nothing)", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
	CHECK("send the other way", send(sv[1], "y", 1, 0));
	CHECK("close", close(sv[1]));
	CHECK("recv after the peer closed", recv(sv[0], buf, sizeof buf, MSG_DONTWAIT));
	CHECK("recv again", recv(sv[0], buf, sizeof buf, MSG_DONTWAIT));
	CHECK("send after the peer closed", send(sv[0], "x", 1, MSG_NOSIGNAL));
	close(sv[0]);
}

static void server(int type, const char *what, const char *path, int abstract)
{
	struct sockaddr_un a, b;
	socklen_t al = name(&a, path, abstract), len;
	char buf[64] = "";
	SAME("-- %s %s", what, abstract ? "abstract" : "path");
	int l = socket(AF_UNIX, type, 0);
	int c = socket(AF_UNIX, type | SOCK_NONBLOCK, 0);
	CHECK("connect (no one bound)", connect(c, (struct sockaddr *)&a, al));
	CHECK("listen unbound", listen(l, 4));
	CHECK("bind", bind(l, (struct sockaddr *)&a, al));
	CHECK("bind again", bind(c, (struct sockaddr *)&a, al));
	if (!abstract) {
		struct stat st;
		CHECK("stat the socket file", stat(path, &st));
		SAME("is a socket: %d", S_ISSOCK(st.st_mode));
	}
	CHECK("connect (bound, not listening)", connect(c, (struct sockaddr *)&a, al));
	CHECK("listen", listen(l, 4));
	fcntl(l, F_SETFL, O_NONBLOCK);
	CHECK("accept (none, nonblocking)", accept(l, NULL, NULL));
	fcntl(l, F_SETFL, 0);
	CHECK("connect", connect(c, (struct sockaddr *)&a, al));
	CHECK("connect again", connect(c, (struct sockaddr *)&a, al));
	CHECK("send before accept", send(c, "early", 5, 0));
	len = sizeof b;
	int s = accept(l, (struct sockaddr *)&b, &len);
	SAME("accept ok %d, peer name length %d", s >= 0, (int)len);
	len = sizeof b;
	CHECK("getsockname(accepted)", getsockname(s, (struct sockaddr *)&b, &len));
	SAME("accepted socket's name is the listener's: %d", len == al && memcmp(&a, &b, al) == 0);
	len = sizeof b;
	CHECK("getpeername(client)", getpeername(c, (struct sockaddr *)&b, &len));
	SAME("client's peer is the listener's name: %d", len == al && memcmp(&a, &b, al) == 0);
	CHECK("recv", recv(s, buf, sizeof buf, 0));
	SAME("got %s", buf);
	int acc = 0;
	len = sizeof acc;
	CHECK("SO_ACCEPTCONN", getsockopt(l, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len));
	SAME("listener accepts: %d", acc);
	CHECK("read(listener)", read(l, buf, 1));
	CHECK("send to the client", send(s, "reply", 5, 0));
	memset(buf, 0, sizeof buf);
	CHECK("recv", recv(c, buf, sizeof buf, 0));
	SAME("got %s", buf);
	CHECK("close(server end)", close(s));
	CHECK("recv at EOF", recv(c, buf, sizeof buf, 0));
	CHECK("close(listener)", close(l));
	CHECK("connect to a closed listener", connect(socket(AF_UNIX, type, 0), (struct sockaddr *)&a, al));
	if (!abstract) {
		CHECK("unlink", unlink(path));
		CHECK("connect to the unlinked path", connect(socket(AF_UNIX, type, 0), (struct sockaddr *)&a, al));
	}
	close(c);
}

static void dgram(void)
{
	struct sockaddr_un a, b, from;
	socklen_t al = name(&a, "dgram-a", 1), bl = name(&b, "d.sock", 0), len;
	char buf[64] = "";
	SAME("-- datagrams");
	int x = socket(AF_UNIX, SOCK_DGRAM, 0), y = socket(AF_UNIX, SOCK_DGRAM, 0), z = socket(AF_UNIX, SOCK_DGRAM, 0);
	CHECK("bind x", bind(x, (struct sockaddr *)&a, al));
	CHECK("bind y", bind(y, (struct sockaddr *)&b, bl));
	CHECK("sendto x from y", sendto(y, "one", 3, 0, (struct sockaddr *)&a, al));
	CHECK("sendto x from z (unnamed)", sendto(z, "two!", 4, 0, (struct sockaddr *)&a, al));
	len = sizeof from;
	CHECK("recvfrom", recvfrom(x, buf, sizeof buf, 0, (struct sockaddr *)&from, &len));
	SAME("got %s from %s (length %d)", buf, from.sun_path, (int)len);
	memset(buf, 0, sizeof buf);
	len = sizeof from;
	CHECK("recvfrom, 2-byte buffer", recvfrom(x, buf, 2, 0, (struct sockaddr *)&from, &len));
	SAME("got %s, sender name length %d", buf, (int)len);
	CHECK("recv (empty, MSG_DONTWAIT)", recv(x, buf, sizeof buf, MSG_DONTWAIT));
	CHECK("send unconnected", send(z, "x", 1, 0));
	CHECK("connect z to x", connect(z, (struct sockaddr *)&a, al));
	CHECK("send connected", send(z, "three", 5, 0));
	CHECK("recv MSG_TRUNC", recv(x, buf, 1, MSG_TRUNC));
	CHECK("connect x to y", connect(x, (struct sockaddr *)&b, bl));
	CHECK("send from z to x (x is connected to y)", send(z, "x", 1, 0));
	struct sockaddr_un nowhere;
	socklen_t nl = name(&nowhere, "nowhere", 1);
	CHECK("sendto an unbound abstract name", sendto(z, "x", 1, 0, (struct sockaddr *)&nowhere, nl));
	nl = name(&nowhere, "no-such.sock", 0);
	CHECK("sendto a missing path", sendto(z, "x", 1, 0, (struct sockaddr *)&nowhere, nl));
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa;
	socklen_t sl = name(&sa, "stream-only", 1);
	bind(s, (struct sockaddr *)&sa, sl);
	CHECK("sendto a stream socket", sendto(z, "x", 1, 0, (struct sockaddr *)&sa, sl));
	CHECK("listen(datagram)", listen(z, 1));
	CHECK("autobind", bind(z, (struct sockaddr *)&sa, sizeof(sa_family_t)) == 0 ? 0 : -1);
	len = sizeof from;
	getsockname(z, (struct sockaddr *)&from, &len);
	SAME("autobound name: length %d, abstract %d", (int)len, from.sun_path[0] == 0);
	CHECK("close y", close(y));
	CHECK("send to closed y from x", send(x, "x", 1, 0));
	CHECK("send again", send(x, "x", 1, 0));
	unlink("d.sock");
}

/* sendfds sends one byte with the descriptors fds over s. */
static long sendfds(int s, const int *fds, int n)
{
	char ctl[CMSG_SPACE(4 * sizeof(int))];
	memset(ctl, 0, sizeof ctl);
	struct iovec iov = { "F", 1 };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = CMSG_SPACE(n * sizeof(int)) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&h);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return sendmsg(s, &h, 0);
}

/* recvfds receives one message into fds (room for room of them) and
 * returns how many came; *flags gets msg_flags. */
static int recvfds(int s, int *fds, int room, int *flags)
{
	char ctl[CMSG_SPACE(4 * sizeof(int))], b[8];
	struct iovec iov = { b, sizeof b };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
	                    .msg_controllen = room ? CMSG_SPACE(room * sizeof(int)) : 0 };
	if (recvmsg(s, &h, MSG_CMSG_CLOEXEC) < 0)
		return -1;
	*flags = h.msg_flags;
	int n = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds, CMSG_DATA(c), n * sizeof(int));
		}
	return n;
}

static void rights(int type, const char *what)
{
	int sv[2], p[2], got[4], flags = 0;
	char buf[16] = "";
	SAME("-- SCM_RIGHTS over %s", what);
	socketpair(AF_UNIX, type, 0, sv);
	pipe(p);
	int f = open("rights-file", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(f, "file!", 5);
	lseek(f, 0, SEEK_SET);
	int pass[2] = { p[0], f };
	CHECK("sendmsg(pipe read end, file)", sendfds(sv[0], pass, 2));
	CHECK("close the originals", close(p[0]) | close(f));
	write(p[1], "via pipe", 8);
	int n = recvfds(sv[1], got, 4, &flags);
	SAME("received %d descriptors, flags %#x, cloexec %d", n, flags, n > 0 && (fcntl(got[0], F_GETFD) & FD_CLOEXEC));
	if (n == 2) {
		CHECK("read the passed pipe", read(got[0], buf, sizeof buf));
		SAME("got %s", buf);
		memset(buf, 0, sizeof buf);
		CHECK("read the passed file", read(got[1], buf, sizeof buf));
		SAME("got %s", buf);
		close(p[1]);
		CHECK("EOF through the passed pipe", read(got[0], buf, sizeof buf));
		close(got[0]);
		close(got[1]);
	}
	int e = eventfd(0, 0);
	CHECK("sendmsg(eventfd)", sendfds(sv[0], &e, 1));
	n = recvfds(sv[1], got, 0, &flags);
	SAME("no room: %d descriptors, MSG_CTRUNC %d", n, (flags & MSG_CTRUNC) != 0);
	int bad = 999;
	CHECK("sendmsg(bad fd)", sendfds(sv[0], &bad, 1));
	close(e);
	close(sv[0]);
	close(sv[1]);
	unlink("rights-file");
}

/* pairargs: socketpair reads its domain, type and protocol as C ints (the
 * low 32 bits of each register), checks the type's flags, the family and
 * the type's range before the family's own rules; AF_UNIX takes protocol
 * 0 or PF_UNIX (unix_create). The raw call passes whole registers. */
static void pairargs(void)
{
	const long hi = 0x100000000L;
	struct {
		const char *name;
		long d, t, p;
	} cases[] = {
		{ "high bits", hi | AF_UNIX, hi | SOCK_STREAM, hi },
		{ "high bits, nonblock", hi | AF_UNIX, hi | SOCK_DGRAM | SOCK_NONBLOCK, hi },
		{ "protocol PF_UNIX", AF_UNIX, SOCK_STREAM, PF_UNIX },
		{ "protocol 2", AF_UNIX, SOCK_STREAM, 2 },
		{ "protocol 2, bad type", AF_UNIX, 9, 2 },
		{ "bad flag", AF_UNIX, SOCK_STREAM | 0x10, 0 },
		{ "bad flag, AF_INET", AF_INET, SOCK_STREAM | 0x10, 0 },
		{ "type SOCK_MAX", AF_UNIX, 11, 0 },
		{ "type SOCK_PACKET", AF_UNIX, 10, 0 },
		{ "family 46", 46, SOCK_STREAM, 0 },
		{ "family -1", -1, SOCK_STREAM, 0 },
		{ "family -1 as 64 bits", 0xffffffffL, SOCK_STREAM, 0 },
		{ "AF_INET, high bits", hi | AF_INET, hi | SOCK_STREAM, 0 },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int sv[2];
		errno = 0;
		long r = syscall(SYS_socketpair, cases[i].d, cases[i].t, cases[i].p, sv);
		SAME("socketpair %s -> %ld %s", cases[i].name, r, r < 0 ? strerrorname_np(errno) : "ok");
		if (r == 0) {
			SAME("socketpair %s: nonblocking %d, sends %d", cases[i].name,
			     (fcntl(sv[0], F_GETFL) & O_NONBLOCK) != 0, (int)write(sv[0], "ab", 2));
			close(sv[0]);
			close(sv[1]);
		}
	}
	/* socket(2) on AF_UNIX makes the same checks in the same order. */
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if ((int)cases[i].d != AF_UNIX)
			continue;
		errno = 0;
		long r = syscall(SYS_socket, cases[i].d, cases[i].t, cases[i].p);
		SAME("socket %s -> %s", cases[i].name, r < 0 ? strerrorname_np(errno) : "ok");
		if (r >= 0)
			close((int)r);
	}
}

/* pairfamilies: socketpair for a family other than AF_UNIX runs that
 * family's socket checks (sock_create: the family's range, whether the
 * kernel has it, then its create) before its socketpair operation, which
 * no family here has (EOPNOTSUPP); the descriptor array is written
 * before the family is looked at (EFAULT first). */
static void pairfamilies(void)
{
	struct {
		const char *name;
		long d, t, p;
	} cases[] = {
		{ "AF_INET stream", AF_INET, SOCK_STREAM, 0 },
		{ "AF_INET stream TCP", AF_INET, SOCK_STREAM, IPPROTO_TCP },
		{ "AF_INET stream UDP", AF_INET, SOCK_STREAM, IPPROTO_UDP },
		{ "AF_INET dgram", AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0 },
		{ "AF_INET dgram UDP", AF_INET, SOCK_DGRAM, IPPROTO_UDP },
		{ "AF_INET dgram TCP", AF_INET, SOCK_DGRAM, IPPROTO_TCP },
		{ "AF_INET raw 0", AF_INET, SOCK_RAW, 0 },
		{ "AF_INET seqpacket", AF_INET, SOCK_SEQPACKET, 0 },
		{ "AF_INET rdm", AF_INET, SOCK_RDM, 0 },
		{ "AF_INET protocol -1", AF_INET, SOCK_STREAM, -1 },
		{ "AF_INET protocol 263", AF_INET, SOCK_STREAM, 263 },
		{ "AF_INET protocol 263, bad type", AF_INET, SOCK_SEQPACKET, 263 },
		{ "AF_INET6 stream", AF_INET6, SOCK_STREAM, 0 },
		{ "AF_INET6 dgram UDP", AF_INET6, SOCK_DGRAM, IPPROTO_UDP },
		{ "AF_INET6 stream UDP", AF_INET6, SOCK_STREAM, IPPROTO_UDP },
		{ "AF_INET6 seqpacket", AF_INET6, SOCK_SEQPACKET, 0 },
		{ "AF_INET6 protocol 300", AF_INET6, SOCK_DGRAM, 300 },
		{ "AF_NETLINK raw route", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
		{ "AF_NETLINK dgram route", AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE },
		{ "AF_NETLINK stream", AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE },
		{ "AF_NETLINK protocol 1 (unused)", AF_NETLINK, SOCK_RAW, 1 },
		{ "AF_NETLINK protocol 32", AF_NETLINK, SOCK_RAW, 32 },
		{ "AF_NETLINK protocol -1", AF_NETLINK, SOCK_RAW, -1 },
		{ "AF_NETLINK protocol 32, bad type", AF_NETLINK, SOCK_SEQPACKET, 32 },
		{ "AF_PACKET raw", AF_PACKET, SOCK_RAW, 0 },
		{ "AF_PACKET dgram", AF_PACKET, SOCK_DGRAM, 0x0300 },
		{ "AF_PACKET stream", AF_PACKET, SOCK_STREAM, 0 },
		{ "AF_INET SOCK_PACKET", AF_INET, 10, 0 },
		{ "AF_UNSPEC", AF_UNSPEC, SOCK_STREAM, 0 },
		{ "AF_NETBEUI (no kernel has it)", 13, SOCK_DGRAM, 0 },
		{ "AF_UNSPEC, type SOCK_MAX", AF_UNSPEC, 11, 0 },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int sv[2];
		errno = 0;
		long r = syscall(SYS_socketpair, cases[i].d, cases[i].t, cases[i].p, sv);
		SAME("socketpair %s -> %ld %s", cases[i].name, r, r < 0 ? strerrorname_np(errno) : "ok");
		errno = 0;
		r = syscall(SYS_socketpair, cases[i].d, cases[i].t, cases[i].p, NULL);
		SAME("socketpair %s, no array -> %ld %s", cases[i].name, r, r < 0 ? strerrorname_np(errno) : "ok");
	}
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	pair(SOCK_STREAM, "stream");
	pair(SOCK_SEQPACKET, "seqpacket");
	pair(SOCK_DGRAM, "dgram");
	server(SOCK_STREAM, "stream", "s.sock", 0);
	server(SOCK_STREAM, "stream", "weft-probe-stream", 1);
	server(SOCK_SEQPACKET, "seqpacket", "q.sock", 0);
	dgram();
	rights(SOCK_STREAM, "stream");
	rights(SOCK_DGRAM, "dgram");
	rights(SOCK_SEQPACKET, "seqpacket");
	CHECK("socket(AF_UNIX, SOCK_RAW)", socket(AF_UNIX, SOCK_RAW, 0));
	CHECK("socketpair(AF_INET)", socketpair(AF_INET, SOCK_STREAM, 0, (int[2]){ 0 }));
	pairargs();
	pairfamilies();
	return 0;
}
