/*
 * waiters: threads parked on descriptors while another thread of the same
 * node keeps running, for TestSettleSparesDescriptorWaits.
 *
 *   waiters N
 *
 * Nine threads each wait on their own object: read(2) on a pipe, recv(2)
 * on an AF_UNIX stream socket, accept(2) on a listening AF_UNIX socket,
 * read(2) on an eventfd, epoll_wait(2) on an instance watching a pipe and
 * an eventfd, poll(2) on a pipe, select(2) on a pipe, sigsuspend(2)
 * for SIGUSR1, which every thread blocks otherwise, and wait4(2) for a
 * child process it forked, which reads a pipe and exits. The main thread
 * then sleeps N times for 1 ms (each wake-up runs it, so every parked call
 * would be retried after it), and only then wakes each waiter in turn by
 * writing to its object (the sigsuspend by pthread_kill, the wait4 by
 * writing to its child's pipe), waiting (by a reply
 * pipe) for the waiter to say what it got before it wakes the next one.
 * Each waiter prints one line.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int reply[2];
static int piperd[2], pipeep[2], pipepoll[2], pipesel[2], pipekid[2];
static int upair[2], lsock, efd, efdep, ep;
static struct sockaddr_un lname = { .sun_family = AF_UNIX, .sun_path = "\0weft-waiters" };
#define LNAME_LEN (offsetof(struct sockaddr_un, sun_path) + 13)

static void say(const char *what, long v)
{
	printf("%s %ld\n", what, v);
	fflush(stdout);
	char c = 'k';
	if (write(reply[1], &c, 1) != 1)
		exit(3);
}

static void *piper(void *arg)
{
	char b[16];
	say("pipe read", (long)read(piperd[0], b, sizeof b));
	return arg;
}

static void *recver(void *arg)
{
	char b[16];
	say("unix recv", (long)recv(upair[1], b, sizeof b, 0));
	return arg;
}

static void *accepter(void *arg)
{
	int s = accept(lsock, NULL, NULL);
	say("unix accept", s >= 0);
	return arg;
}

static void *eventer(void *arg)
{
	uint64_t v = 0;
	if (read(efd, &v, sizeof v) != sizeof v)
		v = 0;
	say("eventfd read", (long)v);
	return arg;
}

static void *epoller(void *arg)
{
	struct epoll_event evs[4];
	long got = 0;
	while (got < 2) { /* the pipe, then the eventfd */
		int n = epoll_wait(ep, evs, 4, -1);
		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd == pipeep[0]) {
				char b[16];
				if (read(pipeep[0], b, sizeof b) > 0)
					got++;
			} else {
				uint64_t v;
				if (read(efdep, &v, sizeof v) == sizeof v)
					got++;
			}
		}
		if (got < 2) {
			char c = 'k';
			if (write(reply[1], &c, 1) != 1)
				exit(3);
		}
	}
	say("epoll events", got);
	return arg;
}

static void *poller(void *arg)
{
	struct pollfd p = { .fd = pipepoll[0], .events = POLLIN };
	say("poll", poll(&p, 1, -1));
	return arg;
}

static void *selecter(void *arg)
{
	fd_set r;
	FD_ZERO(&r);
	FD_SET(pipesel[0], &r);
	say("select", select(pipesel[0] + 1, &r, NULL, NULL, NULL));
	return arg;
}

static volatile sig_atomic_t usr1;

static void onusr1(int sig)
{
	usr1 = sig;
}

static void *suspender(void *arg)
{
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	sigdelset(&m, SIGUSR1);
	int r = sigsuspend(&m);
	say("sigsuspend", r == -1 && usr1 == SIGUSR1);
	return arg;
}

static void *reaper(void *arg)
{
	pid_t kid = fork();
	if (kid == 0) {
		char b;
		_exit(read(pipekid[0], &b, 1) == 1 ? 7 : 1);
	}
	int st = 0;
	pid_t r = waitpid(kid, &st, 0);
	say("wait4", r == kid && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return arg;
}

/* wake writes one byte to fd and waits for the woken waiter's reply. */
static void wake(int fd)
{
	char c = 'x';
	if (write(fd, &c, 1) != 1)
		exit(4);
	if (read(reply[0], &c, 1) != 1)
		exit(5);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	if (pipe(reply) || pipe(piperd) || pipe(pipeep) || pipe(pipepoll) || pipe(pipesel) || pipe(pipekid) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, upair))
		return 2;
	lsock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lsock < 0 || bind(lsock, (struct sockaddr *)&lname, LNAME_LEN) || listen(lsock, 4))
		return 2;
	efd = eventfd(0, 0);
	efdep = eventfd(0, 0);
	ep = epoll_create1(0);
	struct epoll_event e1 = { .events = EPOLLIN, .data.fd = pipeep[0] };
	struct epoll_event e2 = { .events = EPOLLIN, .data.fd = efdep };
	if (efd < 0 || efdep < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, pipeep[0], &e1) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, efdep, &e2))
		return 2;
	struct sigaction sa = { .sa_handler = onusr1 };
	sigset_t usr;
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	if (sigaction(SIGUSR1, &sa, NULL) || pthread_sigmask(SIG_BLOCK, &usr, NULL))
		return 2;
	void *(*fns[])(void *) = { piper, recver, accepter, eventer, epoller, poller, selecter, suspender, reaper };
	pthread_t ts[9];
	for (int i = 0; i < 9; i++)
		if (pthread_create(&ts[i], NULL, fns[i], NULL))
			return 2;
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < n; i++)
		nanosleep(&ms, NULL);
	wake(piperd[1]);
	wake(upair[0]);
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&lname, LNAME_LEN))
		return 6;
	char k;
	if (read(reply[0], &k, 1) != 1)
		return 5;
	uint64_t one = 1;
	if (write(efd, &one, sizeof one) != sizeof one || read(reply[0], &k, 1) != 1)
		return 5;
	wake(pipeep[1]);
	if (write(efdep, &one, sizeof one) != sizeof one || read(reply[0], &k, 1) != 1)
		return 5;
	wake(pipepoll[1]);
	wake(pipesel[1]);
	if (pthread_kill(ts[7], SIGUSR1) || read(reply[0], &k, 1) != 1)
		return 5;
	wake(pipekid[1]);
	for (int i = 0; i < 9; i++)
		pthread_join(ts[i], NULL);
	printf("done\n");
	return 0;
}
