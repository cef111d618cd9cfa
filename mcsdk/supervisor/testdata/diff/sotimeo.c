/*
 * sotimeo: SO_RCVTIMEO and SO_SNDTIMEO values Linux takes its own way
 * (sock_set_timeout): tv_usec outside 0..999999 is EDOM, and a negative
 * tv_sec is taken as a timeout of zero, so a blocking receive fails with
 * EAGAIN at once, and getsockopt reports 0. On a UDP socket of the
 * virtual network and on AF_UNIX stream and datagram sockets, where a
 * zero SO_SNDTIMEO also fails a send to a full queue at once, and an
 * AF_UNIX listener's SO_RCVTIMEO bounds accept as its SO_SNDTIMEO does a
 * connect to a full backlog (unix_accept, unix_stream_connect). A
 * timeout is kept in the kernel's ticks, its tv_usec rounded up to one,
 * and getsockopt reads the ticks back (sock_get_timeout): "~" lines, as
 * they show the kernel's CONFIG_HZ.
 */
#include "probe.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static void probe(const char *what, int fd)
{
	static const struct timeval bad[] = { { 1, 1000000 }, { 1, -1 }, { -1, -1 }, { 0, 2000000 } };
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s: SO_RCVTIMEO {%ld,%ld}", what, (long)bad[i].tv_sec, (long)bad[i].tv_usec);
		CHECK(name, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bad[i], sizeof bad[i]));
		snprintf(name, sizeof name, "%s: SO_SNDTIMEO {%ld,%ld}", what, (long)bad[i].tv_sec, (long)bad[i].tv_usec);
		CHECK(name, setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &bad[i], sizeof bad[i]));
	}
	struct timeval neg = { -5, 0 }, got;
	socklen_t len = sizeof got;
	char buf[8];
	CHECK("set SO_RCVTIMEO {-5,0}", setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &neg, sizeof neg));
	CHECK("get SO_RCVTIMEO", getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &got, &len));
	SAME("%s: SO_RCVTIMEO reads {%ld,%ld}", what, (long)got.tv_sec, (long)got.tv_usec);
	CHECK("recv with a negative timeout", recv(fd, buf, sizeof buf, 0));
	CHECK("read with a negative timeout", read(fd, buf, sizeof buf));
	neg.tv_sec = -1;
	neg.tv_usec = 999999;
	CHECK("set SO_RCVTIMEO {-1,999999}", setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &neg, sizeof neg));
	len = sizeof got;
	CHECK("get SO_RCVTIMEO", getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &got, &len));
	SAME("%s: SO_RCVTIMEO reads {%ld,%ld}", what, (long)got.tv_sec, (long)got.tv_usec);
	CHECK("recv with a negative timeout", recv(fd, buf, sizeof buf, 0));
	/* Kept in ticks (sock_set_timeout rounds tv_usec up to one) and read
	 * back as the ticks' time (sock_get_timeout): the kernel's HZ shows, so
	 * these lines are weft's virtual HZ's (250), the same natively only on
	 * a host of that HZ. */
	static const struct timeval odd[] = { { 0, 1 }, { 0, 1234 }, { 2, 999999 }, { 7, 500001 } };
	for (unsigned i = 0; i < sizeof odd / sizeof odd[0]; i++) {
		struct timeval r, s;
		socklen_t rl = sizeof r, sl = sizeof s;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &odd[i], sizeof odd[i]);
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &odd[i], sizeof odd[i]);
		getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &r, &rl);
		getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &s, &sl);
		VIRT("%s: {%ld,%ld} reads back as SO_RCVTIMEO {%ld,%ld} SO_SNDTIMEO {%ld,%ld}", what, (long)odd[i].tv_sec,
		     (long)odd[i].tv_usec, (long)r.tv_sec, (long)r.tv_usec, (long)s.tv_sec, (long)s.tv_usec);
	}
	struct timeval none = { 0, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
}

/* fill queues stream or datagram writes on fd until it would block. */
static void fill(int fd)
{
	static char chunk[4096];
	while (send(fd, chunk, sizeof chunk, MSG_DONTWAIT) > 0)
		;
}

/* sendprobe: a send to a full queue under a negative, then a short, SO_SNDTIMEO. */
static void sendprobe(const char *what, int fd)
{
	char name[64], b = 0;
	struct timeval neg = { -3, 0 }, brief = { 0, 20000 };
	fill(fd);
	CHECK("set SO_SNDTIMEO {-3,0}", setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &neg, sizeof neg));
	snprintf(name, sizeof name, "%s: send to a full queue, negative timeout", what);
	CHECK(name, send(fd, &b, 1, 0));
	CHECK("set SO_SNDTIMEO {0,20000}", setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &brief, sizeof brief));
	snprintf(name, sizeof name, "%s: send to a full queue, 20 ms timeout", what);
	CHECK(name, send(fd, &b, 1, 0));
}

/* listenprobe: accept on an empty backlog and connect to a full one. */
static void listenprobe(void)
{
	struct timeval neg = { -1, 0 }, brief = { 0, 20000 };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len = sizeof a;
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK("autobind listener", bind(l, (struct sockaddr *)&a, sizeof(sa_family_t)));
	CHECK("getsockname", getsockname(l, (struct sockaddr *)&a, &len));
	CHECK("listen 0", listen(l, 0));
	CHECK("set listener SO_RCVTIMEO {-1,0}", setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &neg, sizeof neg));
	CHECK("accept, negative timeout", accept(l, NULL, NULL));
	CHECK("set listener SO_RCVTIMEO {0,20000}", setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &brief, sizeof brief));
	CHECK("accept, 20 ms timeout", accept(l, NULL, NULL));
	int c1 = socket(AF_UNIX, SOCK_STREAM, 0), c2 = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK("connect to an empty backlog", connect(c1, (struct sockaddr *)&a, len));
	CHECK("set SO_SNDTIMEO {-1,0}", setsockopt(c2, SOL_SOCKET, SO_SNDTIMEO, &neg, sizeof neg));
	CHECK("connect to a full backlog, negative timeout", connect(c2, (struct sockaddr *)&a, len));
	CHECK("set SO_SNDTIMEO {0,20000}", setsockopt(c2, SOL_SOCKET, SO_SNDTIMEO, &brief, sizeof brief));
	CHECK("connect to a full backlog, 20 ms timeout", connect(c2, (struct sockaddr *)&a, len));
	close(c1);
	close(c2);
	close(l);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	CHECK("bind udp", bind(u, (struct sockaddr *)&a, sizeof a));
	probe("udp", u);
	int sv[2];
	CHECK("socketpair stream", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	probe("unix stream", sv[0]);
	sendprobe("unix stream", sv[0]);
	close(sv[0]);
	close(sv[1]);
	CHECK("socketpair dgram", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	probe("unix dgram", sv[0]);
	sendprobe("unix dgram", sv[0]);
	close(sv[0]);
	close(sv[1]);
	listenprobe();
	return 0;
}
