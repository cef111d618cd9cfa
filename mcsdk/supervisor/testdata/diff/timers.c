/*
 * timers.c: POSIX timers and ITIMER_REAL against Linux. timer_create(2):
 * the clocks a timer may use (a clock with no timers is EOPNOTSUPP, an
 * unknown one EINVAL); "the timers are disarmed and deleted during an
 * execve", while setitimer(2)'s "interval timers are preserved across
 * execve". The signals are ignored, so a timer may fire at any point.
 */
#include "probe.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void after_exec(timer_t id)
{
	struct itimerspec its;
	CHECK("execd: timer_gettime of the timer made before exec", timer_gettime(id, &its));
	CHECK("execd: timer_delete of it", timer_delete(id));
	struct itimerval itv;
	CHECK("execd: getitimer(ITIMER_REAL)", getitimer(ITIMER_REAL, &itv));
	SAME("execd: ITIMER_REAL still armed %d, interval %ld s", itv.it_value.tv_sec > 0 || itv.it_value.tv_usec > 0,
	     (long)itv.it_interval.tv_sec);
	timer_t again;
	CHECK("execd: timer_create", timer_create(CLOCK_MONOTONIC, NULL, &again));
	CHECK("execd: timer_gettime of the new one", timer_gettime(again, &its));
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "execd")) {
		after_exec((timer_t)strtol(argv[2], NULL, 10));
		return 0;
	}
	signal(SIGALRM, SIG_IGN); /* kept across exec */
	timer_t id, other;
	static const struct {
		const char *name;
		clockid_t clock;
	} clocks[] = {
		{ "CLOCK_REALTIME", CLOCK_REALTIME },
		{ "CLOCK_MONOTONIC", CLOCK_MONOTONIC },
		{ "CLOCK_BOOTTIME", CLOCK_BOOTTIME },
		{ "CLOCK_TAI", CLOCK_TAI },
		{ "CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW },
		{ "CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE },
		{ "CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE },
		{ "clock 10", 10 },
		{ "clock 12", 12 },
	};
	for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
		char what[64];
		snprintf(what, sizeof what, "timer_create(%s)", clocks[i].name);
		errno = 0;
		int r = timer_create(clocks[i].clock, NULL, &other);
		SAME("%s -> %d %s", what, r, r ? strerrorname_np(errno) : "ok");
		if (r == 0)
			timer_delete(other);
	}
	CHECK("timer_create", timer_create(CLOCK_MONOTONIC, NULL, &id));
	struct itimerspec its = { .it_value = { .tv_sec = 100 } };
	CHECK("timer_settime 100 s", timer_settime(id, 0, &its, NULL));
	struct itimerval itv = { .it_value = { .tv_sec = 200 }, .it_interval = { .tv_sec = 7 } };
	CHECK("setitimer(ITIMER_REAL) 200 s every 7 s", setitimer(ITIMER_REAL, &itv, NULL));
	fflush(stdout);
	char self[256], arg[32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n < 0)
		return 91;
	self[n] = 0;
	snprintf(arg, sizeof arg, "%ld", (long)id);
	execl(self, self, "execd", arg, (char *)NULL);
	return 92;
}
