/*
 * polltime: ppoll, pselect6 and select write back what their timeout has
 * left when they return (select(2), NOTES: Linux modifies timeout). Each
 * call waits on an empty pipe (or a full one, ready at once) with a
 * timeout of 10 s, interrupted after 50 ms by a signal another thread
 * sends, or a timeout of 50 ms it lets pass; a zero timeout is left as it
 * is. Natively what is left depends on the host's timing: the "=" lines
 * say only whether it was written and its bounds; weft's virtual clock
 * makes it exact ("~" lines). The raw calls are used: glibc's wrappers
 * pass the kernel a copy.
 *
 * A timeout the kernel rejects (poll_select_set_timeout, timespec64_valid:
 * a negative tv_sec, a tv_nsec outside 0..999999999) is EINVAL before any
 * descriptor is looked at; select first carries whole seconds of tv_usec
 * into tv_sec, so only what is left after that must be valid.
 */
#include "probe.h"
#include <pthread.h>
#include <signal.h>
#include <limits.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

static void on(int sig) { (void)sig; }

static pid_t maintid;

/* raiser signals the main thread 50 ms in, once it sleeps in its call. */
static void *raiser(void *arg)
{
	struct timespec d = { .tv_nsec = 50000000 };
	nanosleep(&d, NULL);
	await_sleeping(maintid);
	pthread_kill(*(pthread_t *)arg, SIGUSR1);
	return NULL;
}

/* call runs one of the three on fd with a timeout of ns (its left time
 * back in *left, ns) and returns its answer. */
static long call(const char *name, int fd, long long ns, long long *left)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	fd_set r;
	FD_ZERO(&r);
	FD_SET(fd, &r);
	long ret;
	if (!strcmp(name, "ppoll") || !strcmp(name, "pselect6")) {
		struct timespec ts = { ns / 1000000000, ns % 1000000000 };
		if (!strcmp(name, "ppoll"))
			ret = syscall(SYS_ppoll, &p, 1, &ts, NULL, 8);
		else
			ret = syscall(SYS_pselect6, fd + 1, &r, NULL, NULL, &ts, NULL);
		*left = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		return ret;
	}
	struct timeval tv = { ns / 1000000000, ns % 1000000000 / 1000 };
	ret = syscall(SYS_select, fd + 1, &r, NULL, NULL, &tv);
	*left = tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
	return ret;
}

static void show(const char *name, const char *how, long r, int err, long long given, long long left)
{
	SAME("%s, %s: -> %ld %s; written %d, left 0 %d, left within (given - 1 s, given) %d", name, how, r,
	     r < 0 ? strerrorname_np(err) : "ok", left != given, left == 0, left > given - 1000000000LL && left < given);
	VIRT("%s, %s: left %lld", name, how, left);
}

/* bad tries each call with timeout {sec, frac} (frac in ns, or in us for
 * select) on fd, ready at once, and prints its answer. */
static void bad(int fd, long long sec, long long frac)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	fd_set r;
	struct timespec ts = { sec, frac };
	FD_ZERO(&r);
	FD_SET(fd, &r);
	errno = 0;
	long ret = syscall(SYS_ppoll, &p, 1, &ts, NULL, 8);
	SAME("ppoll, timeout {%lld, %lld}: -> %ld %s", sec, frac, ret, ret < 0 ? strerrorname_np(errno) : "ok");
	ts = (struct timespec){ sec, frac };
	errno = 0;
	ret = syscall(SYS_pselect6, fd + 1, &r, NULL, NULL, &ts, NULL);
	SAME("pselect6, timeout {%lld, %lld}: -> %ld %s", sec, frac, ret, ret < 0 ? strerrorname_np(errno) : "ok");
	struct timeval tv = { sec, frac };
	FD_ZERO(&r);
	FD_SET(fd, &r);
	errno = 0;
	ret = syscall(SYS_select, fd + 1, &r, NULL, NULL, &tv);
	SAME("select, timeout {%lld, %lld}: -> %ld %s", sec, frac, ret, ret < 0 ? strerrorname_np(errno) : "ok");
}

static int hugefd[2];

/* WRAPS seconds are 512 ns in 64-bit nanoseconds: 20211507185753197e9
 * is 512 modulo 2^64. */
#define WRAPS 20211507185753197LL

static void *writer(void *arg)
{
	(void)arg;
	struct timespec d = { .tv_nsec = 20000000 };
	nanosleep(&d, NULL);
	write(hugefd[1], "x", 1);
	return NULL;
}

/* huge waits with each call on an empty pipe a thread writes to after
 * 20 ms, under a timeout far past any clock (Linux caps the deadline,
 * poll_select_set_timeout, timespec64_add_safe): the call sees the byte,
 * never an overflowed deadline that has passed. epoll_pwait2 checks its
 * timeout as ppoll does, before its signal mask. */
static void huge(void)
{
	struct {
		const char *name;
		long long sec, frac;
	} cases[] = {
		{ "poll", INT_MAX, 0 }, { "epoll_wait", INT_MAX, 0 },
		{ "ppoll", INT64_MAX, 999999999 }, { "ppoll", 9000000000LL, 0 }, { "ppoll", 9223372036LL, 854775807 },
		{ "ppoll", WRAPS, 0 }, { "pselect6", INT64_MAX, 999999999 }, { "pselect6", WRAPS, 0 },
		{ "select", INT64_MAX, 999999 }, { "select", WRAPS, 0 },
		{ "epoll_pwait2", INT64_MAX, 999999999 }, { "epoll_pwait2", 9000000000LL, 0 }, { "epoll_pwait2", WRAPS, 0 },
	};
	pipe(hugefd);
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN }, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, hugefd[0], &ev);
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *n = cases[i].name;
		struct pollfd p = { .fd = hugefd[0], .events = POLLIN };
		struct timespec ts = { cases[i].sec, cases[i].frac };
		struct timeval tv = { cases[i].sec, cases[i].frac };
		fd_set r;
		FD_ZERO(&r);
		FD_SET(hugefd[0], &r);
		pthread_t th;
		pthread_create(&th, NULL, writer, NULL);
		errno = 0;
		long ret;
		if (!strcmp(n, "poll"))
			ret = poll(&p, 1, (int)cases[i].sec);
		else if (!strcmp(n, "epoll_wait"))
			ret = epoll_wait(ep, &out, 1, (int)cases[i].sec);
		else if (!strcmp(n, "ppoll"))
			ret = syscall(SYS_ppoll, &p, 1, &ts, NULL, 8);
		else if (!strcmp(n, "pselect6"))
			ret = syscall(SYS_pselect6, hugefd[0] + 1, &r, NULL, NULL, &ts, NULL);
		else if (!strcmp(n, "select"))
			ret = syscall(SYS_select, hugefd[0] + 1, &r, NULL, NULL, &tv);
		else
			ret = syscall(SYS_epoll_pwait2, ep, &out, 1, &ts, NULL, 8);
		SAME("%s, timeout {%lld, %lld}, a byte after 20 ms: -> %ld %s", n, cases[i].sec, cases[i].frac, ret,
		     ret < 0 ? strerrorname_np(errno) : "ok");
		pthread_join(th, NULL);
		char b;
		read(hugefd[0], &b, 1);
	}
	struct timespec bad[] = { { 0, 1000000000 }, { 0, -1 }, { -1, 0 } };
	sigset_t none;
	sigemptyset(&none);
	for (unsigned i = 0; i < 3; i++) {
		errno = 0;
		long ret = syscall(SYS_epoll_pwait2, ep, &out, 1, &bad[i], NULL, 8);
		SAME("epoll_pwait2, timeout {%lld, %lld}: -> %ld %s", (long long)bad[i].tv_sec, (long long)bad[i].tv_nsec, ret,
		     ret < 0 ? strerrorname_np(errno) : "ok");
		errno = 0;
		ret = syscall(SYS_epoll_pwait2, ep, &out, 1, &bad[i], &none, 7);
		SAME("epoll_pwait2, timeout {%lld, %lld}, bad mask size: -> %ld %s", (long long)bad[i].tv_sec,
		     (long long)bad[i].tv_nsec, ret, ret < 0 ? strerrorname_np(errno) : "ok");
	}
	errno = 0;
	long ret = syscall(SYS_epoll_pwait2, ep, &out, 1, (void *)8, &none, 7);
	SAME("epoll_pwait2, unreadable timeout, bad mask size: -> %ld %s", ret, ret < 0 ? strerrorname_np(errno) : "ok");
	close(ep);
}

/* sat is x ns plus the timeout {sec, nsec} as Linux adds them
 * (timespec64_add_safe): exact, or {TIME64_MAX, 0} when the seconds
 * overflow. */
static __int128 sat(struct timespec x, long long sec, long long nsec)
{
	__int128 s = (__int128)x.tv_sec + sec, n = x.tv_nsec + nsec;
	if (n >= 1000000000)
		s++, n -= 1000000000;
	if (s > INT64_MAX)
		s = INT64_MAX, n = 0;
	return s * 1000000000 + n;
}

/* farleft has ppoll, pselect6 and select wait under a timeout whose end
 * is past KTIME_MAX, or past TIME64_MAX once added to the clock: the
 * call waits without end (timespec64_to_ktime) for the byte a thread
 * writes after 20 ms, or finds the full pipe ready at once, and writes
 * back its end (start + timeout, saturated at {TIME64_MAX, 0}) less the
 * clock when it returns (poll_select_finish): the clock before the call
 * plus what is left is at most the end from the clock after the call,
 * and the clock after plus what is left is at least the end from the
 * clock before. select's tv_usec of 10^6 or more is carried into tv_sec
 * first. */
static void farleft(int full)
{
	struct {
		long long sec, frac;
	} cases[] = {
		{ 9223372035LL, 999999999 }, { 9223372036LL, 0 }, { 9223372036LL, 854775807 }, { 9000000000LL, 0 },
		{ WRAPS, 0 }, { INT64_MAX - 100, 0 }, { INT64_MAX, 999999999 },
	};
	const char *calls[] = { "ppoll", "pselect6", "select" };
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (int c = 0; c < 3; c++)
			for (int ready = 0; ready < 2; ready++) {
				int fd = ready ? full : hugefd[0];
				long long sec = cases[i].sec, frac = cases[i].frac;
				if (c == 2) /* select: microseconds, and 10^6 of them carried */
					frac = frac >= 999999 ? 1999999 : frac / 1000, sec -= frac >= 1000000 && sec > 0;
				struct pollfd p = { .fd = fd, .events = POLLIN };
				struct timespec ts = { sec, frac }, before, after;
				struct timeval tv = { sec, frac };
				fd_set r;
				FD_ZERO(&r);
				FD_SET(fd, &r);
				clock_gettime(CLOCK_MONOTONIC, &before);
				pthread_t th;
				if (!ready)
					pthread_create(&th, NULL, writer, NULL);
				errno = 0;
				long ret;
				if (c == 0)
					ret = syscall(SYS_ppoll, &p, 1, &ts, NULL, 8);
				else if (c == 1)
					ret = syscall(SYS_pselect6, fd + 1, &r, NULL, NULL, &ts, NULL);
				else
					ret = syscall(SYS_select, fd + 1, &r, NULL, NULL, &tv);
				clock_gettime(CLOCK_MONOTONIC, &after);
				long long ls = c == 2 ? tv.tv_sec : ts.tv_sec, ln = c == 2 ? tv.tv_usec * 1000LL : ts.tv_nsec;
				long long gn = c == 2 ? frac % 1000000 * 1000 : frac, gs = c == 2 ? sec + frac / 1000000 : sec;
				__int128 left = (__int128)ls * 1000000000 + ln;
				__int128 b = (__int128)before.tv_sec * 1000000000 + before.tv_nsec;
				__int128 a = (__int128)after.tv_sec * 1000000000 + after.tv_nsec;
				/* select's microseconds are the nanoseconds truncated */
				int within = b + left <= sat(after, gs, gn) && a + left + (c == 2 ? 999 : 0) >= sat(before, gs, gn);
				if (ready)
					SAME("%s, timeout {%lld, %lld}, ready at once: -> %ld %s; end within the clock plus left %d",
					     calls[c], sec, frac, ret, ret < 0 ? strerrorname_np(errno) : "ok", within);
				else
					SAME("%s, timeout {%lld, %lld}, a byte after 20 ms: -> %ld %s; written %d, end within the clock plus left %d",
					     calls[c], sec, frac, ret, ret < 0 ? strerrorname_np(errno) : "ok", ls != gs || ln != gn,
					     within);
				VIRT("%s, timeout {%lld, %lld}%s: left {%lld, %lld}", calls[c], sec, frac, ready ? ", ready" : "", ls,
				     ln);
				if (!ready) {
					pthread_join(th, NULL);
					char ch;
					read(hugefd[0], &ch, 1);
				}
			}
}

static int tfd, rearm;

static void *later(void *arg)
{
	(void)arg;
	struct timespec d = { .tv_nsec = 5000000 };
	nanosleep(&d, NULL);
	if (rearm) {
		struct itimerspec far = { .it_value = { 10, 0 } };
		timerfd_settime(tfd, 0, &far, NULL);
	}
	d.tv_nsec = 45000000;
	nanosleep(&d, NULL);
	write(hugefd[1], "x", 1);
	return NULL;
}

/* timerwait waits on an empty pipe a thread writes to after 50 ms and
 * on a timerfd that expires after 10 ms, watched for nothing that
 * expiry makes ready (no events, POLLOUT, EPOLLOUT, the write set), or
 * re-armed to 10 s after 5 ms: the expiry readies nothing, and the
 * call waits on to the byte, whatever its own timeout (none, or 1 s). */
static void timerwait(void)
{
	struct {
		const char *name;
		short events;
		int periodic, rearm;
		long long ms;
	} cases[] = {
		{ "poll, no events", 0, 0, 0, 1000 }, { "poll, no events", 0, 0, 0, -1 },
		{ "poll, POLLOUT, periodic", POLLOUT, 1, 0, 1000 }, { "poll, POLLIN, re-armed", POLLIN, 0, 1, 1000 },
		{ "poll, POLLIN, re-armed", POLLIN, 0, 1, -1 }, { "ppoll, POLLOUT", POLLOUT, 0, 0, 1000 },
		{ "ppoll, POLLOUT", POLLOUT, 0, 0, -1 }, { "select, write set", 0, 0, 0, 1000 },
		{ "select, write set", 0, 0, 0, -1 }, { "epoll_wait, EPOLLOUT", EPOLLOUT, 0, 0, 1000 },
		{ "epoll_wait, EPOLLOUT", EPOLLOUT, 0, 0, -1 }, { "epoll_wait, EPOLLIN, re-armed", EPOLLIN, 0, 1, -1 },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *n = cases[i].name;
		tfd = timerfd_create(CLOCK_MONOTONIC, 0);
		rearm = cases[i].rearm;
		struct itimerspec its = { .it_value = { 0, 10000000 } };
		if (cases[i].periodic)
			its.it_interval.tv_nsec = 10000000;
		timerfd_settime(tfd, 0, &its, NULL);
		struct pollfd p[2] = { { .fd = hugefd[0], .events = POLLIN }, { .fd = tfd, .events = cases[i].events } };
		struct timespec ts = { cases[i].ms / 1000, cases[i].ms % 1000 * 1000000 };
		struct timeval tv = { cases[i].ms / 1000, cases[i].ms % 1000 * 1000 };
		pthread_t th;
		pthread_create(&th, NULL, later, NULL);
		errno = 0;
		long ret;
		if (!strncmp(n, "poll", 4)) {
			ret = poll(p, 2, (int)cases[i].ms);
		} else if (!strncmp(n, "ppoll", 5)) {
			ret = syscall(SYS_ppoll, p, 2, cases[i].ms < 0 ? NULL : &ts, NULL, 8);
		} else if (!strncmp(n, "select", 6)) {
			fd_set r, w;
			FD_ZERO(&r);
			FD_ZERO(&w);
			FD_SET(hugefd[0], &r);
			FD_SET(tfd, &w);
			int top = (hugefd[0] > tfd ? hugefd[0] : tfd) + 1;
			ret = syscall(SYS_select, top, &r, &w, NULL, cases[i].ms < 0 ? NULL : &tv);
		} else {
			int ep = epoll_create1(0);
			struct epoll_event a = { .events = EPOLLIN, .data.fd = hugefd[0] };
			struct epoll_event b = { .events = cases[i].events, .data.fd = tfd }, out[2];
			epoll_ctl(ep, EPOLL_CTL_ADD, hugefd[0], &a);
			epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &b);
			ret = epoll_wait(ep, out, 2, (int)cases[i].ms);
			close(ep);
		}
		/* A re-armed timerfd natively expires first when the thread
		 * comes late: then it is what is ready, and the byte is not. */
		SAME("%s, timerfd after 10 ms, timeout %lld ms, a byte after 50 ms: -> %s %s", n, cases[i].ms,
		     ret > 0 ? "ready" : ret == 0 ? "0" : "-1", ret < 0 ? strerrorname_np(errno) : "ok");
		pthread_join(th, NULL);
		char b;
		read(hugefd[0], &b, 1);
		close(tfd);
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	maintid = gettid();
	struct sigaction sa = { .sa_handler = on };
	sigaction(SIGUSR1, &sa, NULL);
	int empty[2], full[2];
	if (pipe(empty) < 0 || pipe(full) < 0 || write(full[1], "x", 1) != 1)
		return 1;
	const char *calls[] = { "ppoll", "pselect6", "select" };
	for (int i = 0; i < 3; i++) {
		long long left;
		pthread_t self = pthread_self(), th;
		pthread_create(&th, NULL, raiser, &self);
		errno = 0;
		long r = call(calls[i], empty[0], 10000000000LL, &left);
		int err = errno;
		pthread_join(th, NULL);
		show(calls[i], "interrupted after 50 ms of 10 s", r, err, 10000000000LL, left);

		errno = 0;
		r = call(calls[i], empty[0], 50000000LL, &left);
		show(calls[i], "timed out after 50 ms", r, errno, 50000000LL, left);

		errno = 0;
		r = call(calls[i], full[0], 10000000000LL, &left);
		SAME("%s, ready at once: -> %ld; left at most the 10 s given %d", calls[i], r, left <= 10000000000LL);
		VIRT("%s, ready at once: left %lld", calls[i], left);

		errno = 0;
		r = call(calls[i], empty[0], 0, &left);
		SAME("%s, zero timeout: -> %ld; left %lld", calls[i], r, left);
	}
	long long edges[][2] = {
		{ -1, 0 }, { 0, -1 }, { 0, 999999 }, { 0, 1000000 }, { 0, 999999999 }, { 0, 1000000000 },
		{ 1, -1000000 }, { 1, -1 }, { 0, -1000000 }, { -2, 3000000 }, { -1, 2000000 },
	};
	for (unsigned i = 0; i < sizeof edges / sizeof edges[0]; i++)
		bad(full[0], edges[i][0], edges[i][1]);
	huge();
	farleft(full[0]);
	timerwait();
	return 0;
}
