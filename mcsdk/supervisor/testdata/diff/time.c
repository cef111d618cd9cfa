/* time: clocks, sleeps and their errors. */
#include "probe.h"
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>

static long long ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
	struct timespec t;
	CHECK("clock_gettime(MONOTONIC)", clock_gettime(CLOCK_MONOTONIC, &t));
	CHECK("clock_gettime(REALTIME)", clock_gettime(CLOCK_REALTIME, &t));
	CHECK("clock_gettime(BOOTTIME)", clock_gettime(CLOCK_BOOTTIME, &t));
	CHECK("clock_gettime(1234)", clock_gettime(1234, &t));
	CHECK("clock_getres(MONOTONIC)", clock_getres(CLOCK_MONOTONIC, &t));
	VIRT("realtime %lld", ns(CLOCK_REALTIME));
	VIRT("monotonic %lld", ns(CLOCK_MONOTONIC));
	struct timeval tv;
	CHECK("gettimeofday", gettimeofday(&tv, NULL));
	VIRT("gettimeofday %lld.%06ld", (long long)tv.tv_sec, (long)tv.tv_usec);
	VIRT("time %lld", (long long)time(NULL));
	long long a = ns(CLOCK_MONOTONIC);
	struct timespec d = { 0, 10 * 1000 * 1000 };
	CHECK("nanosleep(10ms)", nanosleep(&d, NULL));
	long long b = ns(CLOCK_MONOTONIC);
	SAME("slept at least 10ms: %d", b - a >= 10 * 1000 * 1000);
	VIRT("slept %lld ns", b - a);
	/* A sleep that completes leaves rem as it was (nanosleep(2)): only
	 * an interrupted one writes what is left. */
	struct timespec rem;
	memset(&rem, 0x5a, sizeof rem);
	CHECK("nanosleep(1ms, rem)", nanosleep(&(struct timespec){ 0, 1000000 }, &rem));
	SAME("nanosleep completed: rem %llx %llx", (unsigned long long)rem.tv_sec, (unsigned long long)rem.tv_nsec);
	memset(&rem, 0x5a, sizeof rem);
	errno = clock_nanosleep(CLOCK_MONOTONIC, 0, &(struct timespec){ 0, 1000000 }, &rem);
	SAME("clock_nanosleep completed: %s rem %llx %llx", errno ? strerrorname_np(errno) : "ok",
	     (unsigned long long)rem.tv_sec, (unsigned long long)rem.tv_nsec);
	struct tms tm;
	clock_t ticks = times(&tm);
	SAME("times ok: %d", ticks != (clock_t)-1);
	VIRT("times %lld utime %lld", (long long)ticks, (long long)tm.tms_utime);
	return 0;
}
