/* An event loop in the shape of libev's ev_run with a zero-delay timer
 * (issue 37: tarantool's loop, 1,047,999 epoll_wait calls while the
 * virtual clock never moved): user-space timers in a small heap-less
 * table, a zero-delay timer that re-arms itself while the loop runs (an
 * idle watcher, so every poll has a zero timeout), and a 20 ms periodic
 * timer that ends the loop at its tenth expiry. The poll call is chosen
 * by argv[1]: epoll, poll, ppoll, select, pselect. Prints how many times
 * each timer ran and how much (virtual) time passed. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct timer {
	double at, repeat;
	int active, fired;
};

/* backend polls every descriptor of the loop (here: the read end of a
 * pipe nobody writes, as libev's signal pipe) with a timeout in
 * milliseconds (0: do not wait). */
static int backend(const char *how, int ep, int fd, int ms) {
	if (!strcmp(how, "epoll")) {
		struct epoll_event ev[4];
		return epoll_wait(ep, ev, 4, ms);
	}
	if (!strcmp(how, "poll")) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		return poll(&p, 1, ms);
	}
	if (!strcmp(how, "ppoll")) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
		return ppoll(&p, 1, &ts, NULL);
	}
	fd_set r;
	FD_ZERO(&r);
	FD_SET(fd, &r);
	if (!strcmp(how, "select")) {
		struct timeval tv = {ms / 1000, ms % 1000 * 1000L};
		return select(fd + 1, &r, NULL, NULL, &tv);
	}
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
	return pselect(fd + 1, &r, NULL, NULL, &ts, NULL);
}

int main(int argc, char **argv) {
	const char *how = argc > 1 ? argv[1] : "epoll";
	int p[2];
	if (pipe(p) < 0)
		return 2;
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN};
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	double start = now();
	struct timer zero = {start, 0, 1, 0}, tick = {start + 0.02, 0.02, 1, 0};
	long polls = 0;
	while (tick.fired < 10) {
		double t = now();
		if (zero.active && zero.at <= t) { /* zero delay: run, and arm again for "now" */
			zero.fired++;
			zero.at = t;
		}
		if (tick.at <= t) {
			tick.fired++;
			tick.at += tick.repeat;
		}
		/* ev_run's waittime: 0 while a zero-delay timer is pending,
		 * otherwise until the next timer, at least 1 ms. */
		int ms = 0;
		if (!zero.active) {
			ms = (int)((tick.at - t) * 1e3 + 0.9999);
			if (ms < 1)
				ms = 1;
		}
		backend(how, ep, p[0], ms);
		polls++;
	}
	printf("%s: tick fired %d times, zero-delay timer ran %d times, %ld polls, %.3f s passed\n", how, tick.fired,
	       zero.fired, polls, now() - start);
	return 0;
}
