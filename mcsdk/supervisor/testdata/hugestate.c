/*
 * hugestate: a node parked with state only a timeout past the clock's
 * range makes, for the determinism and checkpoint tests (MODE SEC):
 *   sleep:    nanosleep of SEC s (a sleep without end: sleepEnd), ended
 *             by SIGALRM after 1 s; prints its rem.
 *   ppoll:    ppoll on an empty pipe with SEC s (a wait without end:
 *             waitStart), ended by SIGALRM after 1 s; prints what is left.
 *   timerfd:  a timerfd armed SEC s ahead (a Never timer), then a sleep
 *             of 500 ms; prints timerfd_gettime.
 *   rcvtimeo: SO_RCVTIMEO {SEC, 0} on a UDP socket (negative: a timeout
 *             of zero), a sleep of 500 ms, then a recv that SIGALRM ends
 *             after 1 s unless it fails at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static void on(int sig) { (void)sig; }

static void half(void)
{
	struct timespec d = { 0, 500000000 };
	nanosleep(&d, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	struct sigaction sa = { .sa_handler = on };
	sigaction(SIGALRM, &sa, NULL);
	const char *mode = argv[1];
	long long sec = atoll(argv[2]);
	if (!strcmp(mode, "sleep")) {
		struct timespec ts = { sec, 0 }, rem = { 0, 0 };
		alarm(1);
		int r = nanosleep(&ts, &rem);
		printf("nanosleep %d %s rem {%lld, %ld}\n", r, r ? strerrorname_np(errno) : "ok", (long long)rem.tv_sec, rem.tv_nsec);
	} else if (!strcmp(mode, "ppoll")) {
		int p[2];
		pipe(p);
		struct pollfd fd = { .fd = p[0], .events = POLLIN };
		struct timespec ts = { sec, 0 };
		alarm(1);
		int r = syscall(SYS_ppoll, &fd, 1, &ts, NULL, 8); /* glibc's wrapper passes a copy */
		printf("ppoll %d %s left {%lld, %ld}\n", r, r < 0 ? strerrorname_np(errno) : "ok", (long long)ts.tv_sec, ts.tv_nsec);
	} else if (!strcmp(mode, "timerfd")) {
		int fd = timerfd_create(CLOCK_MONOTONIC, 0);
		struct itimerspec its = { .it_value = { sec, 0 } }, cur;
		timerfd_settime(fd, 0, &its, NULL);
		half();
		timerfd_gettime(fd, &cur);
		printf("timerfd value {%lld, %ld}\n", (long long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
	} else if (!strcmp(mode, "rcvtimeo")) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		bind(s, (struct sockaddr *)&a, sizeof a);
		struct timeval tv = { sec, 0 };
		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		half();
		alarm(1);
		char b;
		long r = recv(s, &b, 1, 0);
		printf("recv %ld %s\n", r, r < 0 ? strerrorname_np(errno) : "ok");
	}
	return 0;
}
