/* clockfaults MODE: one kind of timer under a clock fault. Each wait is
 * followed by a line with what the node's clocks read when it ended, so
 * that a drifted node's timers can be checked against the drifted world
 * time they took. Modes: timerfd, sockets, itimer, posix, rdtsc, abstime,
 * futex, cancel, uptime, remain. */
#include <errno.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static long long ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static struct timespec ts(long long v)
{
	struct timespec t = { v / 1000000000LL, v % 1000000000LL };
	return t;
}

/* mark prints what the node's clocks read now after the wait what. */
static void mark(const char *what, long long extra)
{
	printf("%s %lld mono %lld real %lld\n", what, extra, ns(CLOCK_MONOTONIC), ns(CLOCK_REALTIME));
	fflush(stdout);
}

/* left prints a timer's time left. */
static void left(const char *what, long long ns)
{
	printf("%s left %lld\n", what, ns);
	fflush(stdout);
}

static volatile sig_atomic_t signals;

static void onsig(int sig)
{
	(void)sig;
	signals++;
}

/* awaitSignal pauses until the handler has counted one more signal. */
static void awaitSignal(void)
{
	int before = signals;
	while (signals == before)
		pause();
}

static void timerfdMode(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec it = { ts(100000000), ts(100000000) };
	timerfd_settime(fd, 0, &it, NULL);
	for (int i = 0; i < 3; i++) {
		uint64_t n = 0;
		read(fd, &n, sizeof n);
		mark("timerfd", (long long)n);
	}
	struct itimerspec rem;
	timerfd_gettime(fd, &rem);
	left("timerfd", rem.it_value.tv_sec * 1000000000LL + rem.it_value.tv_nsec);
	/* An absolute realtime expiry one second of the node's realtime on. */
	int rt = timerfd_create(CLOCK_REALTIME, 0);
	struct itimerspec abs = { ts(0), ts(ns(CLOCK_REALTIME) + 1000000000LL) };
	timerfd_settime(rt, TFD_TIMER_ABSTIME, &abs, NULL);
	uint64_t n = 0;
	read(rt, &n, sizeof n);
	mark("timerfd-abs", (long long)n);
}

static void socketsMode(void)
{
	struct timeval tv = { 0, 300000 };
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9000), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	bind(u, (struct sockaddr *)&a, sizeof a);
	setsockopt(u, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	char buf[1000];
	ssize_t r = recv(u, buf, sizeof buf, 0);
	mark("udp-rcvtimeo", r < 0 ? errno : 0);
	int sv[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	tv.tv_usec = 200000;
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	r = recv(sv[0], buf, sizeof buf, 0);
	mark("unix-rcvtimeo", r < 0 ? errno : 0);
	memset(buf, 'x', sizeof buf);
	while (send(sv[1], buf, sizeof buf, MSG_DONTWAIT) > 0)
		;
	tv.tv_usec = 100000;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	r = send(sv[1], buf, sizeof buf, 0);
	mark("unix-sndtimeo", r < 0 ? errno : 0);
}

static void itimerMode(void)
{
	signal(SIGALRM, onsig);
	struct itimerval it = { { 0, 200000 }, { 0, 200000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 3; i++) {
		awaitSignal();
		mark("itimer", signals);
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } }, old;
	setitimer(ITIMER_REAL, &off, &old);
	left("itimer", old.it_value.tv_sec * 1000000LL + old.it_value.tv_usec);
	alarm(1);
	awaitSignal();
	mark("alarm", signals);
}

static void posixMode(void)
{
	signal(SIGUSR1, onsig);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	timer_t t;
	timer_create(CLOCK_MONOTONIC, &ev, &t);
	struct itimerspec it = { ts(150000000), ts(150000000) };
	timer_settime(t, 0, &it, NULL);
	for (int i = 0; i < 2; i++) {
		awaitSignal();
		mark("posix", signals);
	}
	struct itimerspec rem;
	timer_gettime(t, &rem);
	left("posix", rem.it_value.tv_sec * 1000000000LL + rem.it_value.tv_nsec);
	timer_t r;
	timer_create(CLOCK_REALTIME, &ev, &r);
	struct itimerspec abs = { ts(0), ts(ns(CLOCK_REALTIME) + 500000000LL) };
	struct itimerspec off = { ts(0), ts(0) };
	timer_settime(t, 0, &off, NULL);
	timer_settime(r, TIMER_ABSTIME, &abs, NULL);
	awaitSignal();
	mark("posix-abs", signals);
}

static void rdtscMode(void)
{
	for (int i = 0; i < 2; i++) {
		struct timespec one = { 1, 0 };
		nanosleep(&one, NULL);
		unsigned long long tsc = __rdtsc();
		mark("rdtsc", (long long)tsc);
	}
}

/* abstimeMode sleeps to absolute realtime deadlines around the jumps the
 * test gives the node (+2 s at 0.5 s, +10 s at 3 s). */
static void abstimeMode(void)
{
	struct timespec d = ts(ns(CLOCK_REALTIME) + 3000000000LL);
	clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d, NULL);
	mark("abs-across-jump", 0);
	d = ts(ns(CLOCK_REALTIME) + 1000000000LL);
	clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d, NULL);
	mark("abs-after-jump", 0);
	d = ts(ns(CLOCK_REALTIME) + 5000000000LL);
	clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d, NULL);
	mark("abs-jumped-past", 0);
	d = ts(ns(CLOCK_MONOTONIC) + 1000000000LL);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, NULL);
	mark("abs-monotonic", 0);
}

static void futexMode(void)
{
	static uint32_t word;
	struct timespec rel = ts(500000000);
	long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
	mark("futex-relative", r < 0 ? errno : 0);
	struct timespec abs = ts(ns(CLOCK_REALTIME) + 1000000000LL);
	r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY);
	mark("futex-realtime", r < 0 ? errno : 0);
	abs = ts(ns(CLOCK_MONOTONIC) + 250000000LL);
	r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY);
	mark("futex-monotonic", r < 0 ? errno : 0);
}

/* cancelMode watches for a step of the realtime clock with a disarmed
 * timerfd armed with TFD_TIMER_CANCEL_ON_SET, polling it for 1 s (a step
 * makes it readable, and its read fails with ECANCELED), then arms it 10
 * s on three times and reads it each time (a step before it expires
 * cancels it). */
static void cancelMode(void)
{
	int fd = timerfd_create(CLOCK_REALTIME, 0);
	struct itimerspec off = { ts(0), ts(0) };
	timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &off, NULL);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int k = poll(&p, 1, 1000);
	mark("cancel-watch", k);
	uint64_t n = 0;
	if (k == 1)
		mark("cancel-watch-read", read(fd, &n, sizeof n) < 0 ? errno : 0);
	for (int i = 0; i < 3; i++) {
		struct itimerspec abs = { ts(0), ts(ns(CLOCK_REALTIME) + 10000000000LL) };
		timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &abs, NULL);
		ssize_t r = read(fd, &n, sizeof n);
		mark("cancel-read", r < 0 ? errno : (long long)n);
	}
}

/* uptimeMode sleeps 1.5 s, then reads the uptime every way a program
 * can: CLOCK_BOOTTIME (ns), /proc/uptime (hundredths of a second),
 * times() (clock ticks) and sysinfo() (seconds). */
static void uptimeMode(void)
{
	struct timespec d = ts(1500000000LL);
	nanosleep(&d, NULL);
	mark("uptime-boottime", ns(CLOCK_BOOTTIME));
	long long sec = 0, hund = 0;
	FILE *f = fopen("/proc/uptime", "r");
	if (f) {
		if (fscanf(f, "%lld.%lld", &sec, &hund) != 2)
			sec = hund = -1;
		fclose(f);
	}
	mark("uptime-proc", sec * 100 + hund);
	struct tms t;
	mark("uptime-times", (long long)times(&t));
	struct sysinfo si;
	sysinfo(&si);
	mark("uptime-sysinfo", (long long)si.uptime);
}

/* remainMode is interrupted twice by ITIMER_REAL 200 ms into a wait of
 * 1 s: a nanosleep and a ppoll on an empty pipe, each printing what its
 * timeout had left (in the node's own time, as its timers count). */
static void remainMode(void)
{
	signal(SIGALRM, onsig);
	struct itimerval it = { { 0, 0 }, { 0, 200000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	struct timespec d = ts(1000000000LL), rem = ts(0);
	nanosleep(&d, &rem);
	left("nanosleep", rem.tv_sec * 1000000000LL + rem.tv_nsec);
	int p[2];
	if (pipe(p) < 0)
		return;
	struct pollfd pf = { .fd = p[0], .events = POLLIN };
	setitimer(ITIMER_REAL, &it, NULL);
	d = ts(1000000000LL);
	syscall(SYS_ppoll, &pf, 1, &d, NULL, 8);
	left("ppoll", d.tv_sec * 1000000000LL + d.tv_nsec);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} modes[] = {
		{ "timerfd", timerfdMode }, { "sockets", socketsMode }, { "itimer", itimerMode }, { "posix", posixMode },
		{ "rdtsc", rdtscMode },	    { "abstime", abstimeMode }, { "futex", futexMode }, { "cancel", cancelMode },
		{ "uptime", uptimeMode },   { "remain", remainMode },
	};
	for (size_t i = 0; argc > 1 && i < sizeof modes / sizeof modes[0]; i++) {
		if (strcmp(argv[1], modes[i].name) == 0) {
			modes[i].run();
			return 0;
		}
	}
	fprintf(stderr, "usage: clockfaults timerfd|sockets|itimer|posix|rdtsc|abstime|futex|cancel|uptime\n");
	return 2;
}
