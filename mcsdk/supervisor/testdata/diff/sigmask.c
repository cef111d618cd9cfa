/*
 * sigmask: ppoll, pselect6, epoll_pwait and epoll_pwait2 install their
 * signal mask for the wait. The thread blocks SIGUSR1 and SIGUSR2; each
 * call waits on an empty pipe with a mask that lets both through. A
 * SIGUSR1 pending before the call interrupts it at once; one another
 * thread or a timer raises during the wait interrupts it then. Each time
 * the call
 * fails with EINTR, the handler runs with the call's mask installed
 * (SIGUSR2 not blocked) and the thread's own mask is back afterwards.
 * With a zero timeout, a pending one interrupts ppoll and pselect6 (they
 * look for signals before giving up), while the epoll calls return 0 and
 * leave it pending; so too for one that arrives while a thread spins on
 * zero-timeout calls (spin). A signal the kernel raised itself (SIGXFSZ)
 * and the thread blocks interrupts a call whose mask lets it through at
 * once, as one another process sent would (raisedByKernel).
 */
#include "probe.h"
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int handled, usr2InHandler = -1;

static void on(int sig)
{
	(void)sig;
	sigset_t cur;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	handled++;
	usr2InHandler = sigismember(&cur, SIGUSR2);
}

static int rfd, epfd;

/* waitIn calls one of the four with an empty mask and a timeout of sec
 * seconds: the pipe's read end never becomes ready. */
static long waitIn(const char *call, int sec)
{
	sigset_t none;
	sigemptyset(&none);
	struct timespec ts = { .tv_sec = sec };
	if (!strcmp(call, "ppoll")) {
		struct pollfd p = { .fd = rfd, .events = POLLIN };
		return syscall(SYS_ppoll, &p, 1, &ts, &none, 8);
	}
	if (!strcmp(call, "pselect6")) {
		fd_set r;
		FD_ZERO(&r);
		FD_SET(rfd, &r);
		struct { const sigset_t *ss; size_t len; } data = { &none, 8 };
		return syscall(SYS_pselect6, rfd + 1, &r, NULL, NULL, &ts, &data);
	}
	struct epoll_event ev;
	if (!strcmp(call, "epoll_pwait"))
		return syscall(SYS_epoll_pwait, epfd, &ev, 1, sec * 1000, &none, 8);
	return syscall(SYS_epoll_pwait2, epfd, &ev, 1, &ts, &none, 8);
}

static void *raiser(void *arg)
{
	(void)arg;
	struct timespec d = { .tv_nsec = 50000000 };
	nanosleep(&d, NULL);
	kill(getpid(), SIGUSR1);
	return NULL;
}

static void report(const char *call, const char *when, long r, int err)
{
	sigset_t cur, pend;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	sigpending(&pend);
	SAME("%s, SIGUSR1 %s: -> %ld %s; handled %d, SIGUSR2 blocked in the handler %d; after: SIGUSR1 blocked %d, SIGUSR2 blocked %d, SIGUSR1 pending %d",
	     call, when, r, r < 0 ? strerrorname_np(err) : "ok", handled, usr2InHandler,
	     sigismember(&cur, SIGUSR1), sigismember(&cur, SIGUSR2), sigismember(&pend, SIGUSR1));
	handled = 0;
	usr2InHandler = -1;
}

static volatile int sent;

static void *sender(void *arg)
{
	(void)arg;
	struct timespec d = { .tv_nsec = 20000000 };
	nanosleep(&d, NULL);
	kill(getpid(), SIGUSR1);
	sent = 1;
	return NULL;
}

/* spin calls one of the four with a zero timeout and an empty mask, over
 * and over, while another thread sends SIGUSR1 after 20 ms, and 64 times
 * more once it has: the epoll calls never wait, so they return 0 each
 * time and the signal stays pending (or, open: the thread does not block
 * SIGUSR1, its handler runs after a call that returned 0); ppoll and
 * pselect6 fail with EINTR once it is there. */
static void spin(const char *call, int open)
{
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (open)
		sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	sigset_t none;
	sigemptyset(&none);
	struct timespec zero = { 0 };
	struct epoll_event ev;
	pthread_t th;
	sent = 0;
	pthread_create(&th, NULL, sender, NULL);
	long r = 0, eintr = 0, other = 0, more = 64;
	while ((!sent || more-- > 0) && eintr == 0) {
		errno = 0;
		if (!strcmp(call, "epoll_pwait"))
			r = syscall(SYS_epoll_pwait, epfd, &ev, 1, 0, &none, 8);
		else if (!strcmp(call, "epoll_pwait2"))
			r = syscall(SYS_epoll_pwait2, epfd, &ev, 1, &zero, &none, 8);
		else
			r = waitIn(call, 0);
		if (r < 0 && errno == EINTR)
			eintr++;
		else if (r != 0)
			other++;
	}
	pthread_join(th, NULL);
	if (open)
		sigprocmask(SIG_BLOCK, &usr1, NULL);
	report(call, eintr ? "sent while spinning, zero timeout (EINTR)" : "sent while spinning, zero timeout (all 0)",
	       eintr ? -1 : 0, eintr ? EINTR : 0);
	SAME("%s spinning%s: other answers %ld", call, open ? ", SIGUSR1 not blocked" : "", other);
	sigtimedwait(&usr1, NULL, &zero);
}

static long long monoNs(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* raisedByKernel has the kernel raise SIGXFSZ itself (a write past
 * RLIMIT_FSIZE), which the thread blocks, then waits with a 10 s timeout
 * under a mask that lets it through: the call fails with EINTR at once,
 * before it waits, and the handler runs. */
static void raisedByKernel(const char *call)
{
	struct rlimit old, one;
	getrlimit(RLIMIT_FSIZE, &old);
	one = old;
	one.rlim_cur = 1;
	setrlimit(RLIMIT_FSIZE, &one);
	int f = open("xfsz", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	errno = 0;
	long w = write(f, "ab", 2);
	SAME("write 2 bytes with RLIMIT_FSIZE 1 -> %ld", w);
	CHECK("write past RLIMIT_FSIZE", write(f, "c", 1));
	close(f);
	unlink("xfsz");
	setrlimit(RLIMIT_FSIZE, &old);
	sigset_t pend;
	sigpending(&pend);
	SAME("SIGXFSZ pending %d", sigismember(&pend, SIGXFSZ));
	long long t0 = monoNs();
	errno = 0;
	long r = waitIn(call, 10);
	int err = errno;
	long long dt = monoNs() - t0;
	sigpending(&pend);
	SAME("%s, SIGXFSZ the kernel raised before: -> %ld %s; within 5 s %d; handled %d, SIGUSR2 blocked in the handler %d; SIGXFSZ pending after %d",
	     call, r, r < 0 ? strerrorname_np(err) : "ok", dt < 5000000000LL, handled, usr2InHandler, sigismember(&pend, SIGXFSZ));
	VIRT("%s, SIGXFSZ the kernel raised before: returned after %lld ns", call, dt);
	handled = 0;
	usr2InHandler = -1;
	sigset_t x;
	sigemptyset(&x);
	sigaddset(&x, SIGXFSZ);
	struct timespec z = { 0 };
	sigtimedwait(&x, NULL, &z);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa = { .sa_handler = on };
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigset_t both;
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	sigprocmask(SIG_BLOCK, &both, NULL);
	int p[2];
	if (pipe(p) < 0)
		return 1;
	rfd = p[0];
	epfd = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };
	epoll_ctl(epfd, EPOLL_CTL_ADD, rfd, &ev);
	const char *calls[] = { "ppoll", "pselect6", "epoll_pwait", "epoll_pwait2" };
	/* First, before weft has queued any signal for the node. */
	sigaction(SIGXFSZ, &sa, NULL);
	sigset_t xfsz;
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	sigprocmask(SIG_BLOCK, &xfsz, NULL);
	for (int i = 0; i < 4; i++)
		raisedByKernel(calls[i]);
	for (int i = 0; i < 4; i++) {
		kill(getpid(), SIGUSR1);
		errno = 0;
		long r = waitIn(calls[i], 10);
		report(calls[i], "pending before", r, errno);

		kill(getpid(), SIGUSR1);
		errno = 0;
		r = waitIn(calls[i], 0);
		report(calls[i], "pending before, zero timeout", r, errno);
		sigset_t usr1;
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		struct timespec z = { 0 };
		sigtimedwait(&usr1, NULL, &z); /* what the epoll calls left pending */

		pthread_t th;
		pthread_create(&th, NULL, raiser, NULL); /* inherits the mask: SIGUSR1 can only reach the waiter */
		errno = 0;
		r = waitIn(calls[i], 10);
		int err = errno;
		pthread_join(th, NULL);
		report(calls[i], "raised during the wait", r, err);

		struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
		timer_t id;
		timer_create(CLOCK_MONOTONIC, &sev, &id);
		struct itimerspec its = { .it_value = { .tv_nsec = 50000000 } };
		timer_settime(id, 0, &its, NULL);
		errno = 0;
		r = waitIn(calls[i], 10);
		report(calls[i], "sent by a timer during the wait", r, errno);
		timer_delete(id);
	}
	for (int i = 0; i < 4; i++) {
		spin(calls[i], 0);
		if (i >= 2) /* ppoll's and pselect6's answer would depend on where the thread is when the signal comes */
			spin(calls[i], 1);
	}
	/* A mask of the wrong size, or one that cannot be read. */
	sigset_t none;
	sigemptyset(&none);
	struct timespec zero = { 0 };
	struct pollfd pf = { .fd = rfd, .events = POLLIN };
	struct epoll_event e;
	struct { const sigset_t *ss; size_t len; } bad = { &none, 7 }, unread = { (sigset_t *)8, 8 };
	CHECK("ppoll(mask size 7)", syscall(SYS_ppoll, &pf, 1, &zero, &none, 7));
	CHECK("ppoll(mask at 8)", syscall(SYS_ppoll, &pf, 1, &zero, (sigset_t *)8, 8));
	CHECK("pselect6(mask size 7)", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, &bad));
	CHECK("pselect6(mask at 8)", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, &unread));
	CHECK("pselect6(pair at 8)", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, (void *)8));
	CHECK("epoll_pwait(mask size 7)", syscall(SYS_epoll_pwait, epfd, &e, 1, 0, &none, 7));
	CHECK("epoll_pwait(mask at 8)", syscall(SYS_epoll_pwait, epfd, &e, 1, 0, (sigset_t *)8, 8));
	CHECK("epoll_pwait2(mask size 7)", syscall(SYS_epoll_pwait2, epfd, &e, 1, &zero, &none, 7));
	CHECK("epoll_pwait2(mask at 8)", syscall(SYS_epoll_pwait2, epfd, &e, 1, &zero, (sigset_t *)8, 8));
	CHECK("ppoll(no mask, size 7)", syscall(SYS_ppoll, &pf, 1, &zero, NULL, 7));
	return 0;
}
