/*
 * timerfork.c: signal timers belong to a process, not to its parent or
 * children. fork(2): "The child does not inherit timers from its parent
 * (setitimer(2), alarm(2), timer_create(2))"; a timer's signal goes to
 * the process that armed it; setitimer(2)'s timer is "preserved across
 * execve" in a forked child too, while its POSIX timers are deleted; a
 * process's timers end with it. Each child prints, then ends; its parent
 * prints only once it has reaped it, so the lines keep one order.
 */
#include "probe.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms, usr1s;

static void on_signal(int sig)
{
	if (sig == SIGALRM)
		alarms++;
	else
		usr1s++;
}

/* armed reports whether ITIMER_REAL is armed, and its interval in s. */
static int armed(long *interval)
{
	struct itimerval v;
	if (getitimer(ITIMER_REAL, &v))
		return -1;
	*interval = v.it_interval.tv_sec;
	return v.it_value.tv_sec > 0 || v.it_value.tv_usec > 0;
}

/* block blocks sig (until its timer is armed and suspend waits). */
static void block(int sig)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* suspend waits for a signal with every signal let through (sigsuspend:
 * a signal blocked since before its timer was armed cannot come before
 * the wait, however late the process runs) and unblocks them all; it
 * reports whether a handled signal ended the wait. */
static int suspend(void)
{
	sigset_t none;
	sigemptyset(&none);
	int r = sigsuspend(&none) == -1 && errno == EINTR;
	sigprocmask(SIG_SETMASK, &none, NULL);
	return r;
}

/* cut reports whether a sleep of ms was cut short by a signal. */
static int cut(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	return nanosleep(&ts, NULL) != 0 && errno == EINTR;
}

/* reap waits for child c, again after a signal cut the wait short, and
 * prints how it ended. */
static void reap(const char *what, pid_t c)
{
	int st = 0, cuts = 0;
	pid_t got;
	while ((got = waitpid(c, &st, 0)) < 0 && errno == EINTR)
		cuts++;
	SAME("%s: reaped %d, exit %d, waits cut short %d", what, got == c, WIFEXITED(st) ? WEXITSTATUS(st) : -1, cuts);
}

static void after_exec(timer_t id)
{
	long iv = 0;
	int a = armed(&iv);
	SAME("execd child: ITIMER_REAL armed %d, interval %ld s", a, iv);
	struct itimerspec its;
	CHECK("execd child: timer_gettime of its timer made before exec", timer_gettime(id, &its));
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "execd")) {
		after_exec((timer_t)strtol(argv[2], NULL, 10));
		return 0;
	}
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	/* The parent's timers: the child sees none of them. */
	struct itimerval itv = { .it_value = { .tv_sec = 100 }, .it_interval = { .tv_sec = 7 } };
	CHECK("parent: setitimer(ITIMER_REAL) 100 s every 7 s", setitimer(ITIMER_REAL, &itv, NULL));
	timer_t id;
	CHECK("parent: timer_create", timer_create(CLOCK_MONOTONIC, NULL, &id));
	struct itimerspec its = { .it_value = { .tv_sec = 100 } };
	CHECK("parent: timer_settime 100 s", timer_settime(id, 0, &its, NULL));
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		long iv = 0;
		int a = armed(&iv);
		SAME("child: ITIMER_REAL armed %d, interval %ld s", a, iv);
		CHECK("child: timer_gettime of the parent's timer", timer_gettime(id, &its));
		CHECK("child: timer_settime of the parent's timer", timer_settime(id, 0, &its, NULL));
		CHECK("child: timer_getoverrun of the parent's timer", timer_getoverrun(id));
		CHECK("child: timer_delete of the parent's timer", timer_delete(id));
		CHECK("child: alarm(0) (seconds left on its own alarm)", alarm(0));
		exit(0);
	}
	reap("child with none of the parent's timers", c);
	long iv = 0;
	int a = armed(&iv);
	SAME("parent: ITIMER_REAL still armed %d, interval %ld s", a, iv);
	CHECK("parent: timer_gettime of its timer", timer_gettime(id, &its));
	SAME("parent: its POSIX timer has 99 s or more left %d", its.it_value.tv_sec >= 99);

	/* A child's alarm and POSIX timer signal the child, not the parent. */
	fflush(stdout);
	if ((c = fork()) == 0) {
		block(SIGALRM);
		CHECK("child: alarm(1)", alarm(1));
		int cutA = suspend();
		SAME("child: sigsuspend ended by a signal %d, SIGALRM taken %d", cutA, (int)alarms);
		timer_t own;
		struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
		CHECK("child: timer_create(SIGUSR1)", timer_create(CLOCK_MONOTONIC, &sev, &own));
		struct itimerspec in = { .it_value = { .tv_nsec = 200000000 } };
		block(SIGUSR1);
		CHECK("child: timer_settime 200 ms", timer_settime(own, 0, &in, NULL));
		int cutP = suspend();
		SAME("child: sigsuspend ended by a signal %d, SIGUSR1 taken %d", cutP, (int)usr1s);
		/* SIGEV_THREAD_ID names a thread of the caller's own process. */
		struct sigevent other = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
		other._sigev_un._tid = getppid();
		CHECK("child: timer_create(SIGEV_THREAD_ID, the parent's thread)", timer_create(CLOCK_MONOTONIC, &other, &own));
		other._sigev_un._tid = syscall(SYS_gettid);
		CHECK("child: timer_create(SIGEV_THREAD_ID, its own thread)", timer_create(CLOCK_MONOTONIC, &other, &own));
		exit(0);
	}
	reap("child whose alarm and timer fired", c);
	SAME("parent: SIGALRM taken %d, SIGUSR1 taken %d", (int)alarms, (int)usr1s);

	/* The parent's alarm signals the parent, not a child. */
	fflush(stdout);
	if ((c = fork()) == 0) {
		int cutC = cut(800);
		SAME("child: 800 ms sleep cut short %d, SIGALRM taken %d", cutC, (int)alarms);
		exit(0);
	}
	struct itimerval once = { .it_value = { .tv_usec = 100000 } };
	block(SIGALRM);
	int r = setitimer(ITIMER_REAL, &once, NULL);
	int cutM = suspend();
	reap("child beside the parent's alarm", c);
	SAME("parent: setitimer(ITIMER_REAL) 100 ms -> %d", r);
	SAME("parent: sigsuspend ended by a signal %d, SIGALRM taken %d", cutM, (int)alarms);

	/* A child's timers end with it. */
	fflush(stdout);
	if ((c = fork()) == 0) {
		alarm(1);
		timer_t own;
		struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
		timer_create(CLOCK_MONOTONIC, &sev, &own);
		struct itimerspec in = { .it_value = { .tv_nsec = 500000000 } };
		timer_settime(own, 0, &in, NULL);
		exit(0);
	}
	reap("child that ended with timers armed", c);
	int cutE = cut(2000);
	SAME("parent: 2 s sleep cut short %d, SIGALRM taken %d, SIGUSR1 taken %d", cutE, (int)alarms, (int)usr1s);

	/* A child that execs keeps its ITIMER_REAL; its POSIX timers go. */
	fflush(stdout);
	if ((c = fork()) == 0) {
		signal(SIGALRM, SIG_IGN);
		struct itimerval mine = { .it_value = { .tv_sec = 200 }, .it_interval = { .tv_sec = 3 } };
		CHECK("child: setitimer(ITIMER_REAL) 200 s every 3 s", setitimer(ITIMER_REAL, &mine, NULL));
		timer_t own;
		CHECK("child: timer_create", timer_create(CLOCK_MONOTONIC, NULL, &own));
		fflush(stdout);
		char self[256], arg[32];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n < 0)
			_exit(91);
		self[n] = 0;
		snprintf(arg, sizeof arg, "%ld", (long)own);
		execl(self, self, "execd", arg, (char *)NULL);
		_exit(92);
	}
	reap("child that exec'd", c);
	a = armed(&iv);
	SAME("parent: ITIMER_REAL armed %d (its 100 ms timer fired)", a);
	return 0;
}
