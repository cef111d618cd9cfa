/*
 * sotimeo: SO_RCVTIMEO and SO_SNDTIMEO values Linux takes its own way
 * (sock_set_timeout): tv_usec outside 0..999999 is EDOM, and a negative
 * tv_sec is taken as a timeout of zero, so a blocking receive fails with
 * EAGAIN at once, and getsockopt reports 0. On a UDP socket of the
 * virtual network (an AF_UNIX socket's negative timeout is not yet
 * served: weft's placeholder reads it as none).
 */
#include "probe.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
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
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	CHECK("bind udp", bind(u, (struct sockaddr *)&a, sizeof a));
	probe("udp", u);
	return 0;
}
