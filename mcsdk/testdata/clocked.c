/*
 * clocked: a node that wakes every 100 ms of its own monotonic clock and
 * records how far its realtime clock is from its monotonic one (skew_us:
 * the clock fault's offset plus the jumps passed) and how many times it
 * woke. usage: clocked ID
 */
#include <poll.h>
#include <time.h>

int skew_us; /* realtime - 2026-01-01 - (monotonic - its origin), µs */
int ticks;

static long long ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
	for (ticks = 0; ticks < 20; ticks++) {
		long long rt = ns(CLOCK_REALTIME), mono = ns(CLOCK_MONOTONIC);
		skew_us = (int)(((rt - 1767225600000000000LL) - (mono - 1000000000000LL)) / 1000);
		poll(NULL, 0, 100);
	}
	return 0;
}
