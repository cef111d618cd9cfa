/*
 * probe.h: helpers for the differential probes. Each probe prints one
 * line per observation: "= ..." lines must read the same natively and
 * under weft (return codes, errnos, semantics); "~ ..." lines show values
 * weft virtualises (times, machine facts), which must only be identical
 * between two weft runs of one seed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
