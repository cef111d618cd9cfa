/* clock: what a node reads of its clocks, and how long its timers take,
 * under a clock fault (offset, drift, a jump). Prints one line per read. */
#include <poll.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static long long ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void show(const char *when)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	printf("%s realtime %lld monotonic %lld tod %lld.%06ld time %lld\n", when, ns(CLOCK_REALTIME),
	       ns(CLOCK_MONOTONIC), (long long)tv.tv_sec, (long)tv.tv_usec, (long long)time(NULL));
}

int main(void)
{
	show("start");
	struct timespec d = { 1, 0 };
	nanosleep(&d, NULL);
	show("slept");
	poll(NULL, 0, 250);
	show("polled");
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += 2;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
	show("until");
	return 0;
}
