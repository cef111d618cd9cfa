/*
 * unixtimeo: blocking AF_UNIX calls that nothing will answer, each under
 * an SO_RCVTIMEO or SO_SNDTIMEO that is not a whole number of ticks: a
 * stream recv, a datagram recv, an accept on an empty backlog, and a send
 * to a full datagram queue. Each prints the timeout as getsockopt reads it
 * back, the call's answer, and CLOCK_MONOTONIC before and after it: under
 * weft the call ends with EAGAIN when the node's clock has run exactly
 * the timeout in ticks of the virtual HZ.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* set sets opt on fd to tv and returns what getsockopt reads back. */
static struct timeval set(int fd, int opt, struct timeval tv)
{
	struct timeval got = { -1, -1 };
	socklen_t len = sizeof got;
	setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof tv);
	getsockopt(fd, SOL_SOCKET, opt, &got, &len);
	return got;
}

/* wait times call(fd), whose timeout tv read back as got. */
static void wait(const char *what, int fd, struct timeval tv, struct timeval got, long (*call)(int))
{
	long long before = now();
	errno = 0;
	long r = call(fd);
	int e = errno;
	long long after = now();
	printf("%s: {%ld,%ld} reads {%ld,%ld}; %ld %s; clock %lld -> %lld, waited %lld ns\n", what, (long)tv.tv_sec,
	       (long)tv.tv_usec, (long)got.tv_sec, (long)got.tv_usec, r, r < 0 ? strerrorname_np(e) : "ok", before, after,
	       after - before);
}

static long do_recv(int fd)
{
	char b[8];
	return recv(fd, b, sizeof b, 0);
}

static long do_accept(int fd) { return accept(fd, NULL, NULL); }

static long do_send(int fd)
{
	char b[4096] = { 0 };
	return send(fd, b, sizeof b, 0);
}

/* Every timeout is set before the first call waits, so a copy of the
 * node made while it waits must carry the others' values. */
int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int st[2], dg[2], full[2], l = socket(AF_UNIX, SOCK_STREAM, 0);
	socketpair(AF_UNIX, SOCK_STREAM, 0, st);
	socketpair(AF_UNIX, SOCK_DGRAM, 0, dg);
	socketpair(AF_UNIX, SOCK_DGRAM, 0, full);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	bind(l, (struct sockaddr *)&a, sizeof(sa_family_t));
	listen(l, 1);
	char b[4096] = { 0 };
	while (send(full[0], b, sizeof b, MSG_DONTWAIT) > 0)
		;
	struct timeval t1 = { 1, 234567 }, t2 = { 0, 1 }, t3 = { 0, 30001 }, t4 = { 2, 999999 };
	struct timeval g1 = set(st[0], SO_RCVTIMEO, t1), g2 = set(dg[0], SO_RCVTIMEO, t2);
	struct timeval g3 = set(full[0], SO_SNDTIMEO, t3), g4 = set(l, SO_RCVTIMEO, t4);
	wait("stream recv", st[0], t1, g1, do_recv);
	wait("dgram recv", dg[0], t2, g2, do_recv);
	wait("dgram send to a full queue", full[0], t3, g3, do_send);
	wait("accept", l, t4, g4, do_accept);
	return 0;
}
