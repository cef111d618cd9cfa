/*
 * fileflags: the status flags of an open file description (fcntl(2)
 * F_GETFL/F_SETFL, ioctl(2) FIONBIO/FIOASYNC) on every kind weft serves:
 * pipe ends, eventfd, timerfd, signalfd, epoll, unix and netlink sockets,
 * inet sockets and /dev/urandom. Each kind is made with and without its
 * nonblocking flag; F_SETFL sets each settable flag alone and tries the
 * ones it may not change; the flags are shared with a dup and a forked
 * child (one description) and not with a second open.
 *
 * O_ASYNC on a kind whose Linux file sends SIGIO on I/O (pipes, sockets)
 * is refused by weft, which does not deliver SIGIO, and so is O_DIRECT
 * on a pipe (packet mode): those lines are "~" lines, and the test names
 * weft's answers.
 */
#include "probe.h"
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* GETFL prints F_GETFL of fd, in octal. */
static void getfl(const char *kind, const char *when, int fd, int virt)
{
	errno = 0;
	int fl = fcntl(fd, F_GETFL);
	if (virt)
		VIRT("%s %s: F_GETFL %#o %s", kind, when, fl, fl < 0 ? strerrorname_np(errno) : "ok");
	else
		SAME("%s %s: F_GETFL %#o %s", kind, when, fl, fl < 0 ? strerrorname_np(errno) : "ok");
}

static void setfl(const char *kind, const char *what, int fd, int arg, int virt)
{
	errno = 0;
	int r = fcntl(fd, F_SETFL, arg);
	if (virt)
		VIRT("%s F_SETFL(%s) -> %d %s", kind, what, r, r < 0 ? strerrorname_np(errno) : "ok");
	else
		SAME("%s F_SETFL(%s) -> %d %s", kind, what, r, r < 0 ? strerrorname_np(errno) : "ok");
	char when[64];
	snprintf(when, sizeof when, "after F_SETFL(%s)", what);
	getfl(kind, when, fd, virt);
}

static void ioc(const char *kind, const char *what, int fd, unsigned long req, int on, int virt)
{
	errno = 0;
	int r = ioctl(fd, req, &on);
	if (virt)
		VIRT("%s ioctl(%s) -> %d %s", kind, what, r, r < 0 ? strerrorname_np(errno) : "ok");
	else
		SAME("%s ioctl(%s) -> %d %s", kind, what, r, r < 0 ? strerrorname_np(errno) : "ok");
	char when[64];
	snprintf(when, sizeof when, "after ioctl(%s)", what);
	getfl(kind, when, fd, virt);
}

/*
 * probe runs the checks on fd, a new description of kind made without
 * its nonblocking flag; sigio says whether the kind sends SIGIO on Linux
 * (its O_ASYNC lines are weft's own), packet whether O_DIRECT is a
 * pipe's packet mode (refused by weft, which does not model it).
 */
static void probe(const char *kind, int fd, int sigio, int packet)
{
	getfl(kind, "new", fd, 0);
	setfl(kind, "O_NONBLOCK", fd, O_NONBLOCK, 0);
	setfl(kind, "0", fd, 0, 0);
	setfl(kind, "O_APPEND", fd, O_APPEND, 0);
	setfl(kind, "O_NOATIME", fd, O_NOATIME, 0);
	setfl(kind, "O_DIRECT", fd, O_DIRECT, packet);
	setfl(kind, "0", fd, 0, 0);
	setfl(kind, "O_ASYNC", fd, O_ASYNC, sigio);
	setfl(kind, "0", fd, 0, 0);
	setfl(kind, "O_RDONLY|O_WRONLY|O_RDWR", fd, O_WRONLY | O_RDWR, 0);
	setfl(kind, "O_CREAT|O_EXCL|O_TRUNC|O_NOCTTY", fd, O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY, 0);
	setfl(kind, "O_CLOEXEC|O_SYNC|O_DSYNC|O_PATH|O_LARGEFILE", fd, O_CLOEXEC | O_SYNC | O_DSYNC | O_PATH | O_LARGEFILE, 0);
	setfl(kind, "O_NONBLOCK|O_APPEND|O_NOATIME", fd, O_NONBLOCK | O_APPEND | O_NOATIME, 0);
	setfl(kind, "0", fd, 0, 0);
	SAME("%s F_GETFD %d", kind, fcntl(fd, F_GETFD));
	ioc(kind, "FIONBIO 1", fd, FIONBIO, 1, 0);
	ioc(kind, "FIONBIO 7", fd, FIONBIO, 7, 0);
	ioc(kind, "FIONBIO 0", fd, FIONBIO, 0, 0);
	ioc(kind, "FIOASYNC 1", fd, FIOASYNC, 1, sigio);
	ioc(kind, "FIOASYNC 0", fd, FIOASYNC, 0, sigio);
	setfl(kind, "0", fd, 0, 0);

	/* A duplicate shares the description: its flags. */
	int d = dup(fd);
	setfl(kind, "O_NONBLOCK|O_APPEND, on a dup", d, O_NONBLOCK | O_APPEND, 0);
	getfl(kind, "the original, after its dup's F_SETFL", fd, 0);
	ioc(kind, "FIONBIO 0, on the original", fd, FIONBIO, 0, 0);
	getfl(kind, "the dup, after the original's FIONBIO", d, 0);
	close(d);

	/* So does a forked child's copy. */
	pid_t pid = fork();
	if (pid == 0) {
		fcntl(fd, F_SETFL, O_NONBLOCK);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	getfl(kind, "after a child's F_SETFL(O_NONBLOCK)", fd, 0);
	fcntl(fd, F_SETFL, 0);
	close(fd);
}

int main(void)
{
	int p[2];
	pipe(p);
	probe("pipe read end", p[0], 1, 1);
	probe("pipe write end", p[1], 1, 1);
	pipe2(p, O_NONBLOCK);
	getfl("pipe2(O_NONBLOCK) read end", "new", p[0], 0);
	getfl("pipe2(O_NONBLOCK) write end", "new", p[1], 0);
	close(p[0]);
	close(p[1]);

	probe("eventfd", eventfd(0, 0), 0, 0);
	int fd = eventfd(0, EFD_NONBLOCK);
	getfl("eventfd(EFD_NONBLOCK)", "new", fd, 0);
	close(fd);

	probe("timerfd", timerfd_create(CLOCK_MONOTONIC, 0), 0, 0);
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	getfl("timerfd(TFD_NONBLOCK)", "new", fd, 0);
	close(fd);

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	probe("signalfd", signalfd(-1, &mask, 0), 0, 0);
	fd = signalfd(-1, &mask, SFD_NONBLOCK);
	getfl("signalfd(SFD_NONBLOCK)", "new", fd, 0);
	close(fd);

	probe("epoll", epoll_create1(0), 0, 0);
	fd = epoll_create(1);
	getfl("epoll_create", "new", fd, 0);
	close(fd);

	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	probe("socketpair", sv[0], 1, 0);
	close(sv[1]);
	socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv);
	getfl("socketpair(SOCK_NONBLOCK)", "new", sv[0], 0);
	close(sv[0]);
	close(sv[1]);
	probe("unix socket", socket(AF_UNIX, SOCK_SEQPACKET, 0), 1, 0);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	getfl("unix socket(SOCK_NONBLOCK)", "new", fd, 0);
	close(fd);

	probe("netlink socket", socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), 1, 0);
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK, NETLINK_ROUTE);
	getfl("netlink socket(SOCK_NONBLOCK)", "new", fd, 0);
	close(fd);

	probe("udp socket", socket(AF_INET, SOCK_DGRAM, 0), 1, 0);
	probe("tcp socket", socket(AF_INET, SOCK_STREAM, 0), 1, 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	getfl("tcp socket(SOCK_NONBLOCK)", "new", fd, 0);
	close(fd);

	probe("/dev/urandom", open("/dev/urandom", O_RDONLY), 0, 0);
	fd = open("/dev/urandom", O_RDWR | O_NONBLOCK | O_APPEND);
	getfl("/dev/urandom O_RDWR|O_NONBLOCK|O_APPEND", "new", fd, 0);
	close(fd);
	fd = open("/dev/urandom", O_WRONLY);
	int fd2 = open("/dev/urandom", O_WRONLY);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	getfl("/dev/urandom", "a second open, after the first's F_SETFL", fd2, 0);
	close(fd);
	close(fd2);
	return 0;
}
