/* cloexec: which descriptors execve(2) closes, for every kind weft serves
 * and every way the close-on-exec flag is set or cleared (open's, socket's,
 * pipe2's, accept4's, eventfd's, epoll_create1's, timerfd's, signalfd's
 * and memfd's flags, recvmsg's MSG_CMSG_CLOEXEC, dup, dup2, dup3,
 * F_DUPFD_CLOEXEC, F_SETFD, FIOCLEX/FIONCLEX, CLOSE_RANGE_CLOEXEC), in the
 * main process and in a forked child; then that the descriptors left work
 * and that a number exec freed names a new file (a memfd, the host
 * kernel's), not an old description.
 * The image execs itself again by /proc/self/exe's name (weft's view of the
 * program under weft). */
#include "probe.h"
#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <netinet/in.h>

static void show(const char *name, int fd)
{
	SAME("%s: fd %d FD_CLOEXEC %d", name, fd, fd < 0 ? -1 : fcntl(fd, F_GETFD));
}

/* sendfd passes fd over the socket s (SCM_RIGHTS). */
static int sendfd(int s, int fd)
{
	char byte = 'r';
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return (int)sendmsg(s, &m, 0);
}

/* recvfd receives a descriptor from s with recvmsg's flags. */
static int recvfd(int s, int flags)
{
	char byte;
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
	if (recvmsg(s, &m, flags) != 1)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (c == NULL || c->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}

/* after runs in the exec'd image: the open descriptors and their flags,
 * then the kept ones at work (a pipe's byte, an eventfd's count, a socket
 * pair, the received eventfd) and a new file at the lowest free number. */
static int after(char **argv)
{
	const char *who = argv[2];
	int rd = atoi(argv[3]), efd = atoi(argv[4]), sa = atoi(argv[5]), sb = atoi(argv[6]), got = atoi(argv[7]);
	for (int fd = 3; fd < 100; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			SAME("%s after exec: fd %d open, FD_CLOEXEC %d", who, fd, fcntl(fd, F_GETFD));
	char c = 0;
	CHECK("read the pipe's byte", read(rd, &c, 1));
	SAME("%s: got %c", who, c);
	uint64_t n = 0;
	CHECK("read the eventfd", read(efd, &n, sizeof n));
	SAME("%s: count %llu", who, (unsigned long long)n);
	CHECK("write one end of the pair", write(sa, "p", 1));
	CHECK("read the other", read(sb, &c, 1));
	SAME("%s: got %c", who, c);
	CHECK("read the received eventfd", read(got, &n, sizeof n));
	SAME("%s: received count %llu", who, (unsigned long long)n);
	int f = memfd_create("after", 0);
	SAME("%s: a new file takes fd %d", who, f);
	CHECK("write the new file", write(f, "abc", 3));
	char buf[4] = {0};
	CHECK("pread it back", pread(f, buf, 3, 0));
	SAME("%s: read back %s", who, buf);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* nothing left in the buffer at fork or exec */
	if (argc > 1 && !strcmp(argv[1], "after"))
		return after(argv);
	/* leading slashes give weft room for its own name of the program
	 * (sys_execview.go) whatever the descriptor numbers reach */
	char self[4096] = "////////////////////////////////";
	size_t pad = strlen(self);
	ssize_t k = readlink("/proc/self/exe", self + pad, sizeof self - pad - 1);
	if (k <= 0) {
		perror("readlink /proc/self/exe");
		return 2;
	}
	self[pad + k] = 0;
	/* natively, start from 0, 1 and 2 as a node does */
	CHECK("close_range from 3 up", syscall(SYS_close_range, 3, ~0U, 0));
	int p[2], q[2], pr[2];
	CHECK("pipe2 O_CLOEXEC", pipe2(p, O_CLOEXEC));
	CHECK("pipe", pipe(q));
	show("pipe2 O_CLOEXEC", p[0]);
	show("pipe", q[0]);
	int ev = eventfd(5, EFD_CLOEXEC), ev2 = eventfd(5, 0);
	show("eventfd EFD_CLOEXEC", ev);
	show("eventfd", ev2);
	int ep = epoll_create1(EPOLL_CLOEXEC), ep2 = epoll_create1(0);
	show("epoll_create1 EPOLL_CLOEXEC", ep);
	show("epoll_create1 0", ep2);
	int tf = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), tf2 = timerfd_create(CLOCK_MONOTONIC, 0);
	show("timerfd TFD_CLOEXEC", tf);
	show("timerfd", tf2);
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR1);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	int sf = signalfd(-1, &ss, SFD_CLOEXEC), sf2 = signalfd(-1, &ss, 0);
	show("signalfd SFD_CLOEXEC", sf);
	show("signalfd", sf2);
	CHECK("socketpair SOCK_CLOEXEC", socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pr));
	show("socketpair SOCK_CLOEXEC", pr[0]);
	int sp[2];
	CHECK("socketpair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sp));
	show("socketpair", sp[0]);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	strcpy(a.sun_path, "listener");
	unlink("listener");
	CHECK("bind", bind(l, (struct sockaddr *)&a, sizeof a));
	CHECK("listen", listen(l, 4));
	int c1 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c2 = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK("connect", connect(c1, (struct sockaddr *)&a, sizeof a));
	CHECK("connect", connect(c2, (struct sockaddr *)&a, sizeof a));
	int a1 = accept4(l, NULL, NULL, SOCK_CLOEXEC), a2 = accept4(l, NULL, NULL, 0);
	show("accept4 SOCK_CLOEXEC", a1);
	show("accept4 0", a2);
	int in = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), in2 = socket(AF_INET, SOCK_DGRAM, 0);
	show("inet socket SOCK_CLOEXEC", in);
	show("inet socket", in2);
	int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	show("netlink socket SOCK_CLOEXEC", nl);
	int ur = open("/dev/urandom", O_RDONLY | O_CLOEXEC), ur2 = open("/dev/urandom", O_RDONLY);
	show("urandom O_CLOEXEC", ur);
	show("urandom", ur2);
	int mf = memfd_create("m", MFD_CLOEXEC);
	show("memfd MFD_CLOEXEC", mf);
	/* descriptors passed over a socket: MSG_CMSG_CLOEXEC is the receiver's */
	int pass = eventfd(7, 0);
	CHECK("send an eventfd", sendfd(sp[0], pass));
	CHECK("send it again", sendfd(sp[0], pass));
	int got = recvfd(sp[1], MSG_CMSG_CLOEXEC), got2 = recvfd(sp[1], 0);
	show("received with MSG_CMSG_CLOEXEC", got);
	show("received", got2);
	CHECK("close the sent one", close(pass));
	/* the flag changed after the fact */
	CHECK("F_SETFD FD_CLOEXEC on the pipe", fcntl(q[1], F_SETFD, FD_CLOEXEC));
	CHECK("F_SETFD 0 on the pipe2 end", fcntl(p[1], F_SETFD, 0));
	CHECK("FIOCLEX on the eventfd", ioctl(ev2, FIOCLEX));
	CHECK("FIONCLEX on the timerfd", ioctl(tf, FIONCLEX));
	int d1 = dup(ev);
	show("dup of a close-on-exec eventfd", d1);
	int d2 = dup2(pr[0], 60);
	show("dup2 of a close-on-exec socket", d2);
	int d3 = dup3(q[0], 61, O_CLOEXEC);
	show("dup3 O_CLOEXEC of a pipe", d3);
	int d4 = fcntl(sp[1], F_DUPFD_CLOEXEC, 62);
	show("F_DUPFD_CLOEXEC of a socket", d4);
	int d5 = fcntl(ev2, F_DUPFD, 63);
	show("F_DUPFD of a close-on-exec eventfd", d5);
	int r1 = dup2(ep2, 70), r2 = dup2(tf2, 71), r3 = dup2(in2, 72);
	CHECK("close_range CLOSE_RANGE_CLOEXEC 70-71", syscall(SYS_close_range, r1, r2, CLOSE_RANGE_CLOEXEC));
	show("close_range's epoll", r1);
	show("close_range's timerfd", r2);
	show("past close_range's range", r3);
	/* kept across exec: the byte and the count the exec'd image reads */
	CHECK("write the pipe", write(q[1], "q", 1));
	CHECK("write the eventfd", eventfd_write(d5, 2));
	CHECK("write the received eventfd", eventfd_write(got2, 1));
	char rd[16], efd[16], sa[16], sb[16], gs[16];
	snprintf(rd, sizeof rd, "%d", q[0]);
	snprintf(efd, sizeof efd, "%d", d5);
	snprintf(sa, sizeof sa, "%d", d2);
	snprintf(sb, sizeof sb, "%d", pr[1]);
	snprintf(gs, sizeof gs, "%d", got2);
	CHECK("F_SETFD 0 on the pair's other end", fcntl(pr[1], F_SETFD, 0));
	/* a forked child execs first: its table is its own */
	pid_t c = fork();
	if (c == 0) {
		CHECK("child: F_SETFD FD_CLOEXEC on the received eventfd", fcntl(got2, F_SETFD, FD_CLOEXEC));
		CHECK("child: F_SETFD 0 on the pipe2 end", fcntl(p[0], F_SETFD, 0));
		CHECK("child: F_SETFD FD_CLOEXEC on its copy of the pair's end", fcntl(pr[1], F_SETFD, FD_CLOEXEC));
		CHECK("child: F_SETFD FD_CLOEXEC on the pipe's write end", fcntl(q[1], F_SETFD, FD_CLOEXEC));
		/* the child keeps every descriptor the parent execs with, so the
		 * exec'd child reads the same numbers */
		CHECK("child: F_SETFD 0 on the pair's other end", fcntl(pr[1], F_SETFD, 0));
		CHECK("child: F_SETFD 0 on the received eventfd", fcntl(got2, F_SETFD, 0));
		execl(self, "cloexec", "after", "child", rd, efd, sa, sb, gs, (char *)NULL);
		_exit(99);
	}
	int st;
	CHECK("waitpid", waitpid(c, &st, 0));
	SAME("child exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	show("parent after the child's exec: pipe2's end", p[0]);
	show("parent after the child's exec: the pair's end", pr[1]);
	CHECK("write the pipe again", write(q[1], "q", 1));
	CHECK("write the eventfd again", eventfd_write(d5, 2));
	CHECK("write the received eventfd again", eventfd_write(got2, 1));
	execl(self, "cloexec", "after", "main", rd, efd, sa, sb, gs, (char *)NULL);
	SAME("exec failed: %s", strerrorname_np(errno));
	return 1;
}
