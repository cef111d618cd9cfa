/* epoll: level-triggered, EPOLLET, EPOLLONESHOT, EPOLLRDHUP, nesting,
 * epoll_ctl errors, closing a watched descriptor, epoll_pwait2. */
#include "probe.h"
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* wait reports the ready set, sorted by data, so the kernel's ready-list
 * order does not show. */
static void wait_(int ep, const char *what)
{
	struct epoll_event ev[16];
	int n = epoll_wait(ep, ev, 16, 0);
	char line[256] = "";
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (ev[j].data.u64 < ev[i].data.u64) {
				struct epoll_event t = ev[i];
				ev[i] = ev[j];
				ev[j] = t;
			}
	for (int i = 0; i < n; i++)
		snprintf(line + strlen(line), sizeof line - strlen(line), " %llu:%#x", (unsigned long long)ev[i].data.u64, ev[i].events);
	SAME("%s: %d ready%s", what, n, line);
}

/* fs shows what fstatfs says of a descriptor's file system: a pseudo
 * file system's magic and its zero counts (the fsid, a host device
 * number, weft shows as 0). */
static void fs(const char *what, int fd)
{
	struct statfs s;
	if (fstatfs(fd, &s) != 0) {
		SAME("fstatfs(%s) -> %s", what, strerrorname_np(errno));
		return;
	}
	SAME("fstatfs(%s) type %#lx bsize %ld blocks %lu/%lu/%lu files %lu/%lu namelen %ld frsize %ld flags %#lx", what,
	     (long)s.f_type, (long)s.f_bsize, s.f_blocks, s.f_bfree, s.f_bavail, s.f_files, s.f_ffree, (long)s.f_namelen,
	     (long)s.f_frsize, (long)s.f_flags);
	VIRT("fstatfs(%s) fsid %d,%d", what, s.f_fsid.__val[0], s.f_fsid.__val[1]);
}

static int add(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event e = { .events = events, .data.u64 = data };
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	SAME("epoll_create1 ok %d", ep >= 0);
	struct stat st;
	CHECK("fstat(epoll)", fstat(ep, &st));
	SAME("epoll mode %#o, F_GETFL %#x", st.st_mode, fcntl(ep, F_GETFL));
	int tf0 = timerfd_create(CLOCK_MONOTONIC, 0);
	CHECK("fstat(timerfd)", fstat(tf0, &st));
	SAME("timerfd mode %#o, F_GETFL %#x", st.st_mode, fcntl(tf0, F_GETFL));
	char lk[64], fdp[64];
	ssize_t ln;
	snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", ep);
	ln = readlink(fdp, lk, sizeof lk - 1);
	lk[ln > 0 ? ln : 0] = 0;
	SAME("epoll link %s", lk);
	snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", tf0);
	ln = readlink(fdp, lk, sizeof lk - 1);
	lk[ln > 0 ? ln : 0] = 0;
	SAME("timerfd link %s", lk);
	fs("epoll", ep);
	fs("timerfd", tf0);
	close(tf0);
	CHECK("epoll_create(0)", epoll_create(0));
	CHECK("epoll_create1(bad)", epoll_create1(1));
	int p[2], sv[2];
	pipe(p);
	socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv);
	int e = eventfd(0, EFD_NONBLOCK);
	fs("pipe", p[0]);
	fs("socketpair", sv[0]);
	fs("eventfd", e);
	struct epoll_event x = { .events = EPOLLIN };
	CHECK("ADD pipe", add(ep, p[0], EPOLLIN, 1));
	CHECK("ADD again", add(ep, p[0], EPOLLIN, 1));
	CHECK("MOD unknown", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &x));
	CHECK("DEL unknown", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL));
	CHECK("ADD itself", add(ep, ep, EPOLLIN, 0));
	CHECK("ADD bad fd", add(ep, 999, EPOLLIN, 0));
	CHECK("ctl on a non-epoll fd", add(p[0], p[1], EPOLLIN, 0));
	CHECK("ADD stdin (/dev/null)", add(ep, 0, EPOLLIN, 0));
	int f = open("epoll-file", O_CREAT | O_RDWR, 0644);
	CHECK("ADD a regular file", add(ep, f, EPOLLIN, 0));
	CHECK("EXCLUSIVE|ONESHOT", add(ep, p[1], EPOLLOUT | EPOLLEXCLUSIVE | EPOLLONESHOT, 0));
	CHECK("ADD eventfd (ET)", add(ep, e, EPOLLIN | EPOLLET, 2));
	CHECK("ADD socket (ONESHOT, RDHUP)", add(ep, sv[0], EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, 3));
	CHECK("ADD write end (EXCLUSIVE)", add(ep, p[1], EPOLLOUT | EPOLLEXCLUSIVE, 4));
	wait_(ep, "start");
	write(p[1], "ab", 2);
	uint64_t one = 1;
	write(e, &one, 8);
	write(sv[1], "s", 1);
	wait_(ep, "after writes");
	wait_(ep, "again (ET and ONESHOT quiet)");
	write(e, &one, 8);
	wait_(ep, "eventfd written again (ET re-armed)");
	char buf[8];
	read(p[0], buf, 1);
	wait_(ep, "pipe half read (LT still ready)");
	read(p[0], buf, 1);
	wait_(ep, "pipe drained");
	struct epoll_event m = { .events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.u64 = 3 };
	CHECK("MOD re-arms the oneshot", epoll_ctl(ep, EPOLL_CTL_MOD, sv[0], &m));
	wait_(ep, "after MOD");
	read(sv[0], buf, 1);
	epoll_ctl(ep, EPOLL_CTL_MOD, sv[0], &m);
	shutdown(sv[1], SHUT_WR);
	wait_(ep, "peer shut down writing (RDHUP)");
	CHECK("MOD EXCLUSIVE", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &x));
	CHECK("DEL write end", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL));

	SAME("-- nesting");
	int outer = epoll_create1(0);
	CHECK("ADD inner epoll to outer", add(outer, ep, EPOLLIN, 9));
	CHECK("ADD outer to inner (loop)", add(ep, outer, EPOLLIN, 0));
	int q[2];
	pipe(q);
	int inner2 = epoll_create1(0);
	add(inner2, q[0], EPOLLIN, 5);
	add(outer, inner2, EPOLLIN, 10);
	wait_(outer, "outer");
	write(q[1], "x", 1);
	wait_(outer, "outer after a write to the inner pipe");
	wait_(inner2, "inner2");

	SAME("-- closing watched descriptors");
	int ep3 = epoll_create1(0);
	int r[2];
	pipe(r);
	write(r[1], "x", 1);
	add(ep3, r[0], EPOLLIN, 7);
	int d = dup(r[0]);
	close(r[0]);
	wait_(ep3, "closed, but a dup keeps the file");
	CHECK("DEL the closed fd", epoll_ctl(ep3, EPOLL_CTL_DEL, r[0], NULL));
	CHECK("DEL by the dup", epoll_ctl(ep3, EPOLL_CTL_DEL, d, NULL));
	close(d);
	wait_(ep3, "last descriptor closed");
	int s[2];
	pipe(s);
	write(s[1], "x", 1);
	add(ep3, s[0], EPOLLIN, 8);
	close(s[0]);
	wait_(ep3, "closed the only descriptor");

	SAME("-- waits");
	struct epoll_event ev[4];
	CHECK("epoll_wait maxevents 0", epoll_wait(ep3, ev, 0, 0));
	CHECK("epoll_wait on a pipe", epoll_wait(p[0], ev, 4, 0));
	CHECK("epoll_wait, 5 ms timeout, nothing ready", epoll_wait(ep3, ev, 4, 5));
	struct timespec ts = { 0, 2000000 };
	sigset_t mask;
	sigemptyset(&mask);
	CHECK("epoll_pwait2, nothing ready", epoll_pwait2(ep3, ev, 4, &ts, &mask));
	CHECK("epoll_pwait", epoll_pwait(ep3, ev, 4, 0, &mask));
	int t[2];
	pipe(t);
	add(ep3, t[0], EPOLLIN, 11);
	write(t[1], "x", 1);
	CHECK("epoll_wait, blocking, one ready", epoll_wait(ep3, ev, 4, -1));
	SAME("data %llu events %#x", (unsigned long long)ev[0].data.u64, ev[0].events);
	close(t[1]);
	CHECK("epoll_wait after the writer closed", epoll_wait(ep3, ev, 4, -1));
	SAME("data %llu events %#x", (unsigned long long)ev[0].data.u64, ev[0].events);
	int tf = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	struct itimerspec it = { .it_value = { 0, 3000000 } };
	timerfd_settime(tf, 0, &it, NULL);
	int ep4 = epoll_create1(0);
	add(ep4, tf, EPOLLIN, 12);
	CHECK("epoll_wait, blocking, on a timerfd", epoll_wait(ep4, ev, 4, -1));
	SAME("data %llu events %#x", (unsigned long long)ev[0].data.u64, ev[0].events);
	int outer4 = epoll_create1(0);
	add(outer4, ep4, EPOLLIN, 13);
	uint64_t exp;
	read(tf, &exp, 8);
	timerfd_settime(tf, 0, &it, NULL);
	CHECK("epoll_wait, blocking, on an epoll watching a timerfd", epoll_wait(outer4, ev, 4, -1));
	SAME("data %llu events %#x", (unsigned long long)ev[0].data.u64, ev[0].events);
	unlink("epoll-file");
	snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", sv[0]);
	ln = readlink(fdp, lk, sizeof lk - 1);
	lk[ln > 0 ? ln : 0] = 0;
	VIRT("socket link %s", lk);
	return 0;
}
