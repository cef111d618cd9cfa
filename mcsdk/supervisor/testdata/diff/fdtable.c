/* fdtable: the descriptor table's rules on descriptors weft serves (in-node
 * pipes): dup(2), dup2, dup3, fcntl(2) F_DUPFD, F_SETFD, F_SETFL,
 * close_range(2), close(2) and fork(2), each compared with the native run. */
#include "probe.h"
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int isopen(int fd) { return fcntl(fd, F_GETFD) >= 0; }

int main(void)
{
	int p[2];
	char c;
	/* natively, start from 0, 1 and 2 as a node does (a shell may leave more open) */
	CHECK("close_range from 3 up", syscall(SYS_close_range, 3, ~0U, 0));
	CHECK("pipe2 O_CLOEXEC", pipe2(p, O_CLOEXEC));
	SAME("ends %d %d, FD_CLOEXEC %d %d", p[0], p[1], fcntl(p[0], F_GETFD), fcntl(p[1], F_GETFD));
	int d = dup(p[0]);
	SAME("dup -> %d, FD_CLOEXEC %d", d, fcntl(d, F_GETFD));
	/* O_NONBLOCK is the description's: set through the duplicate, seen by the original */
	CHECK("F_SETFL O_NONBLOCK on the dup", fcntl(d, F_SETFL, O_NONBLOCK));
	SAME("original's O_NONBLOCK %d", !!(fcntl(p[0], F_GETFL) & O_NONBLOCK));
	CHECK("read of the empty pipe through the original", read(p[0], &c, 1));
	CHECK("dup3 onto itself", dup3(p[0], p[0], 0));
	CHECK("dup3 with O_NONBLOCK", dup3(p[0], 20, O_NONBLOCK));
	SAME("20 open after the refused dup3: %d", isopen(20));
	SAME("dup2 onto itself returns it: %d", dup2(p[0], p[0]) == p[0]);
	CHECK("dup2 of a closed number onto the dup", dup2(50, d));
	CHECK("write", write(p[1], "x", 1));
	CHECK("read through the dup after the refused dup2", read(d, &c, 1));
	int e = dup3(p[1], 30, O_CLOEXEC);
	SAME("dup3 -> %d, FD_CLOEXEC %d", e, fcntl(e, F_GETFD));
	CHECK("write through dup3's copy", write(e, "y", 1));
	CHECK("read it", read(p[0], &c, 1));
	SAME("got %c", c);
	CHECK("F_DUPFD past the limit", fcntl(p[0], F_DUPFD, 1 << 21));
	CHECK("F_DUPFD negative", fcntl(p[0], F_DUPFD, -1));
	int f = fcntl(p[0], F_DUPFD_CLOEXEC, 0);
	SAME("F_DUPFD_CLOEXEC -> %d, FD_CLOEXEC %d", f, fcntl(f, F_GETFD));
	int g = fcntl(p[0], F_DUPFD, 10), h = fcntl(p[0], F_DUPFD, 10);
	SAME("F_DUPFD 10 -> %d, again -> %d", g, h);
	CHECK("F_SETFD 0", fcntl(f, F_SETFD, 0));
	SAME("after F_SETFD 0: %d, the original's %d", fcntl(f, F_GETFD), fcntl(p[0], F_GETFD));
	CHECK("close_range with an unknown flag", syscall(SYS_close_range, d, d, 1));
	CHECK("write", write(p[1], "z", 1));
	CHECK("read through the dup after the refused close_range", read(d, &c, 1));
	CHECK("close_range first > last", syscall(SYS_close_range, 10, 9, 0));
	CHECK("close_range CLOSE_RANGE_CLOEXEC", syscall(SYS_close_range, d, d, CLOSE_RANGE_CLOEXEC));
	SAME("dup's FD_CLOEXEC %d", fcntl(d, F_GETFD));
	CHECK("close_range from the dup up", syscall(SYS_close_range, d, ~0U, 0));
	SAME("open: %d %d, dup %d, dup3's %d, F_DUPFD's %d", isopen(p[0]), isopen(p[1]), isopen(d), isopen(e), isopen(f));
	CHECK("close of a closed number", close(e));
	CHECK("write after close_range", write(p[1], "w", 1));
	CHECK("read after close_range", read(p[0], &c, 1));
	/* fork: the child's copies name the same descriptions */
	int q[2];
	CHECK("pipe", pipe(q));
	pid_t k = fork();
	if (k == 0) {
		close(q[0]);
		write(q[1], "k", 1);
		_exit(0);
	}
	CHECK("close the write end", close(q[1]));
	int st = 0;
	CHECK("waitpid", waitpid(k, &st, 0));
	CHECK("read what the child wrote", read(q[0], &c, 1));
	SAME("got %c", c);
	CHECK("read EOF: every write end is closed", read(q[0], &c, 1));
	return 0;
}
