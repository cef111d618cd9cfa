/*
 * probe.h: helpers for the differential probes. Each probe prints one
 * line per observation: "= ..." lines must read the same natively and
 * under weft (return codes, errnos, semantics); "~ ..." lines show values
 * weft virtualises (times, machine facts), which must only be identical
 * between two weft runs of one seed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define SAME(...) (printf("= " __VA_ARGS__), putchar('\n'))
#define VIRT(...) (printf("~ " __VA_ARGS__), putchar('\n'))

/* CHECK prints what a call returned and, on failure, its errno's name. */
#define CHECK(name, expr)                                                   \
	do {                                                                \
		errno = 0;                                                  \
		long r_ = (long)(expr);                                     \
		SAME("%s -> %ld %s", name, r_ < 0 ? -1L : r_ > 0 ? 1L : 0L, \
		     r_ < 0 ? strerrorname_np(errno) : "ok");                \
	} while (0)

/* await_sleeping returns once thread tid of this process sleeps in a call
 * (S in its /proc stat, as weft shows a parked call too), or after 10 s.
 * A thread that interrupts another's wait after a delay calls it first:
 * natively, on a loaded machine, the other may reach its call later than
 * the delay, and the interruption would come before it. */
static inline void await_sleeping(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	for (int i = 0; i < 10000; i++) {
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			return;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = 0;
		char *p = strrchr(buf, ')');
		if (!p || (p[1] == ' ' && p[2] == 'S'))
			return;
		struct timespec d = { .tv_nsec = 1000000 };
		nanosleep(&d, NULL);
	}
}
