/* pipe: in-node pipes (pipe, pipe2): data, EOF, EAGAIN, EPIPE, sizes. */
#include "probe.h"
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int main(void)
{
	int p[2], q[2];
	char buf[256] = "";
	signal(SIGPIPE, SIG_IGN);
	CHECK("pipe", pipe(p));
	SAME("F_GETFL read end %#x, write end %#x", fcntl(p[0], F_GETFL), fcntl(p[1], F_GETFL));
	struct stat st;
	CHECK("fstat", fstat(p[0], &st));
	SAME("is a FIFO: %d", S_ISFIFO(st.st_mode));
	SAME("read end O_RDONLY: %d, write end O_WRONLY: %d", (fcntl(p[0], F_GETFL) & O_ACCMODE) == O_RDONLY,
	     (fcntl(p[1], F_GETFL) & O_ACCMODE) == O_WRONLY);
	CHECK("write 5", write(p[1], "hello", 5));
	CHECK("write 6", write(p[1], " world", 6));
	int n = 0;
	CHECK("FIONREAD", ioctl(p[0], FIONREAD, &n));
	SAME("FIONREAD says %d", n);
	CHECK("read 3", read(p[0], buf, 3));
	SAME("got %.3s", buf);
	CHECK("read rest", read(p[0], buf, sizeof buf));
	SAME("got %.8s", buf);
	CHECK("read(write end)", read(p[1], buf, 1));
	CHECK("write(read end)", write(p[0], "x", 1));
	CHECK("lseek", lseek(p[0], 0, SEEK_SET));
	CHECK("pread", pread(p[0], buf, 1, 0));
	struct iovec iov[2] = { { "ab", 2 }, { "cd", 2 } };
	CHECK("writev", writev(p[1], iov, 2));
	char x[2], y[2];
	struct iovec rv[2] = { { x, 2 }, { y, 2 } };
	CHECK("readv", readv(p[0], rv, 2));
	SAME("readv got %.2s|%.2s", x, y);
	CHECK("pipe2(O_NONBLOCK|O_CLOEXEC)", pipe2(q, O_NONBLOCK | O_CLOEXEC));
	SAME("F_GETFL read end %#x, write end %#x", fcntl(q[0], F_GETFL), fcntl(q[1], F_GETFL));
	SAME("cloexec %d nonblock %d", (fcntl(q[0], F_GETFD) & FD_CLOEXEC) != 0, (fcntl(q[0], F_GETFL) & O_NONBLOCK) != 0);
	CHECK("read(empty, nonblocking)", read(q[0], buf, 1));
	CHECK("F_GETPIPE_SZ", fcntl(q[1], F_GETPIPE_SZ));
	SAME("pipe size %d", fcntl(q[1], F_GETPIPE_SZ));
	char page[8192];
	memset(page, 'z', sizeof page);
	int pages = 0;
	while (write(q[1], page, 4096) == 4096)
		pages++;
	SAME("filled with %d pages, then %s", pages, strerrorname_np(errno));
	CHECK("write 1 to a full pipe", write(q[1], "x", 1));
	CHECK("read a page", read(q[0], page, 4096));
	CHECK("write 4097 (partial, non-blocking)", write(q[1], page, 4097) == 4096);
	CHECK("F_SETPIPE_SZ 100000", fcntl(p[1], F_SETPIPE_SZ, 100000));
	SAME("new size %d", fcntl(p[0], F_GETPIPE_SZ));
	int d = dup(p[1]);
	CHECK("dup(write end)", d);
	CHECK("close(write end)", close(p[1]));
	CHECK("write(dup)", write(d, "z", 1));
	CHECK("close(dup)", close(d));
	CHECK("read last byte", read(p[0], buf, sizeof buf));
	CHECK("read at EOF", read(p[0], buf, sizeof buf));
	CHECK("close(read end of q)", close(q[0]));
	CHECK("write, no reader", write(q[1], "x", 1));
	CHECK("close(bad)", close(p[1]));
	return 0;
}
