/* sigfd: what a child's SIGCHLD and a signalfd read carry. usage:
 * sigfd MODE, MODE one of chldinfo (an SA_SIGINFO handler), signalfd,
 * kidfd (a child's signalfd for SIGURG while its parent keeps calling). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got, code, from, status, uid;
static volatile long utime, stime;

static void onchld(int s, siginfo_t *si, void *u)
{
	(void)s, (void)u;
	got++, code = si->si_code, from = si->si_pid, status = si->si_status, uid = si->si_uid;
	utime = si->si_utime, stime = si->si_stime;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void chldinfo(void)
{
	struct sigaction sa = { .sa_sigaction = onchld, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	pid_t kid = fork();
	if (kid == 0)
		_exit(5);
	while (!got)
		nap(1000);
	printf("chldinfo: got %d code %d pid %s status %d uid %d utime %ld stime %ld\n", (int)got, (int)code,
	       from == kid ? "child" : "other", (int)status, (int)uid, utime, stime);
	waitpid(kid, NULL, 0);
	kid = fork();
	if (kid == 0) {
		nap(10);
		*(volatile int *)0 = 1;
	}
	while (got < 2)
		nap(1000);
	printf("chldinfo: got %d code %d pid %s status %d\n", (int)got, (int)code, from == kid ? "child" : "other", (int)status);
}

static void show(const char *what, int fd)
{
	struct signalfd_siginfo si;
	errno = 0;
	ssize_t k = read(fd, &si, sizeof si);
	int e = errno;
	if (k != sizeof si) {
		printf("%s: read %zd %s\n", what, k, k < 0 ? strerrorname_np(e) : "");
		return;
	}
	printf("%s: signo %u code %d pid %s(%u) uid %u status %d int %d utime %llu stime %llu\n", what, si.ssi_signo,
	       si.ssi_code, si.ssi_pid == (unsigned)getpid() ? "self" : "other", si.ssi_pid, si.ssi_uid,
	       si.ssi_status, si.ssi_int, (unsigned long long)si.ssi_utime, (unsigned long long)si.ssi_stime);
}

static void sigfd(void)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGCHLD);
	sigprocmask(SIG_BLOCK, &m, NULL);
	sigdelset(&m, SIGCHLD);
	int fd = signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC);
	show("empty", fd);
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	printf("poll before: %d\n", poll(&pf, 1, 0));
	kill(getpid(), SIGUSR1);
	int r = poll(&pf, 1, 0);
	printf("poll after kill: %d revents %#x\n", r, pf.revents);
	show("kill", fd);
	union sigval v = { .sival_int = 42 };
	sigqueue(getpid(), SIGUSR1, v);
	show("sigqueue", fd);
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	show("tgkill", fd);
	/* SIGCHLD is not in the mask yet: the child's end is not readable */
	pid_t kid = fork();
	if (kid == 0)
		_exit(3);
	nap(10);
	show("chld not in mask", fd);
	sigaddset(&m, SIGCHLD);
	printf("update: %d\n", signalfd(fd, &m, 0) == fd);
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 7 }, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	int n = epoll_wait(ep, &out, 1, 1000);
	printf("epoll: %d data %u\n", n, n > 0 ? out.data.u32 : 0);
	show("chld", fd);
	printf("child was %d\n", kid);
	waitpid(kid, NULL, 0);
	/* a blocking descriptor: the read parks until the child ends */
	int bfd = signalfd(-1, &m, 0);
	kid = fork();
	if (kid == 0) {
		nap(20);
		_exit(4);
	}
	show("blocking chld", bfd);
	waitpid(kid, NULL, 0);
}

/* kidfd: a child makes a signalfd for SIGURG (Go's preemption signal,
 * postgres's latch signal) while its parent keeps making calls, then
 * waits on it in epoll and in a blocking read; the parent sends SIGURG
 * only after the child says it waits, ROUNDS times. Each wait must end
 * with the parent's signal: none sooner (weft's own SIGURG is not the
 * node's), none missed. */
#define ROUNDS 6
static void kidfd(void)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGURG);
	sigprocmask(SIG_BLOCK, &m, NULL);
	int up[2], down[2];
	if (pipe(up) || pipe(down))
		return;
	pid_t kid = fork();
	if (kid == 0) {
		close(up[0]), close(down[1]);
		int fd = signalfd(-1, &m, SFD_CLOEXEC);
		int ep = epoll_create1(0);
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 9 }, out;
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		for (int i = 0; i < ROUNDS; i++) {
			char c;
			if (write(up[1], "w", 1) != 1 || read(down[0], &c, 1) != 1)
				_exit(2);
			if (i % 2 == 1) {
				int n = epoll_wait(ep, &out, 1, -1);
				sigset_t p;
				sigpending(&p);
				printf("round %d: epoll %d data %u pending %d\n", i, n, n > 0 ? out.data.u32 : 0,
				       sigismember(&p, SIGURG));
			}
			struct signalfd_siginfo si;
			ssize_t k = read(fd, &si, sizeof si);
			printf("round %d: read %zd signo %u from %s\n", i, k, k > 0 ? si.ssi_signo : 0,
			       k > 0 && si.ssi_pid == (unsigned)getppid() ? "parent" : "other");
		}
		_exit(0);
	}
	close(up[1]), close(down[0]);
	for (int i = 0; i < ROUNDS; i++) {
		char c;
		/* calls of the parent's own between the child's */
		for (int j = 0; j < 3; j++)
			nap(1);
		if (read(up[0], &c, 1) != 1)
			return;
		for (int j = 0; j < 3; j++)
			nap(1);
		/* the child is told first, then signalled: its wait cannot end
		 * before the signal is sent */
		if (write(down[1], "s", 1) != 1)
			return;
		nap(5);
		kill(kid, SIGURG);
	}
	int st;
	waitpid(kid, &st, 0);
	printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "signalfd"))
		sigfd();
	else if (argc > 1 && !strcmp(argv[1], "kidfd"))
		kidfd();
	else
		chldinfo();
	return 0;
}
