/*
 * unixedge: AF_UNIX edges where a call waits or a connection dies
 * under it: a blocking stream send whose peer goes away after it moved
 * some bytes, the clients left in a closed listener's backlog, and the
 * descriptors of a sendmsg longer than the socket's buffer.
 */
#include "probe.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t pipes;
static void onpipe(int s) { (void)s; pipes++; }

static char big[1 << 20];

/* partial: a child sends more than the buffer holds over a stream pair;
 * the parent reads one byte (the child has moved some) and then closes
 * its end (how 0) or shuts it for reading (how 1). */
static void partial(int how, const char *what)
{
	int sv[2];
	SAME("-- a blocking send whose peer %s after it moved bytes", what);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t p = fork();
	if (p == 0) {
		close(sv[0]);
		pipes = 0;
		errno = 0;
		long r = send(sv[1], big, sizeof big, 0);
		int e = errno;
		/* send: 1 it returned a count, 2 EPIPE, 3 ECONNRESET, 4 else;
		 * then SIGPIPEs, then what a read finds after it. */
		char c;
		errno = 0;
		long rr = recv(sv[1], &c, 1, MSG_DONTWAIT);
		int re = rr == 0 ? 1 : errno == EAGAIN ? 2 : errno == ECONNRESET ? 3 : 4;
		int se = r > 0 && r < (long)sizeof big ? 1 : e == EPIPE ? 2 : e == ECONNRESET ? 3 : 4;
		_exit(se | pipes << 3 | re << 5);
	}
	char c;
	CHECK("read one byte", read(sv[0], &c, 1));
	if (how == 0)
		CHECK("close", close(sv[0]));
	else
		CHECK("shutdown(SHUT_RD)", shutdown(sv[0], SHUT_RD));
	int st = 0;
	waitpid(p, &st, 0);
	int x = WEXITSTATUS(st);
	static const char *sends[] = { "?", "a partial count", "EPIPE", "ECONNRESET", "another answer" };
	static const char *reads[] = { "?", "0 (end of file)", "EAGAIN", "ECONNRESET", "another answer" };
	SAME("sender: send returned %s, SIGPIPEs %d", sends[x & 7], (x >> 3) & 3);
	/* After a close, a native sender may still be between two buffers
	 * rather than waiting for room: then it answers the count without
	 * taking the reset, which a read then finds. Weft's sender always
	 * waits (it moves what fits at once), so its read finds the end of
	 * file, as a native sender that waited does. */
	if (how == 0)
		VIRT("sender: then a read returned %s", reads[(x >> 5) & 7]);
	else
		SAME("sender: then a read returned %s", reads[(x >> 5) & 7]);
	if (how == 1)
		close(sv[0]);
	close(sv[1]);
}

static socklen_t abstract(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	strcpy(a->sun_path + 1, name);
	return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
}

/* backlog: clients connected to a listener that closes before it
 * accepts them; each then looks at its connection another way. */
static void backlog(int type, const char *what)
{
	struct sockaddr_un a;
	socklen_t al = abstract(&a, "weft-probe-backlog");
	SAME("-- %s clients in the backlog of a listener that closes", what);
	int l = socket(AF_UNIX, type, 0);
	CHECK("bind", bind(l, (struct sockaddr *)&a, al));
	CHECK("listen", listen(l, 8));
	int c[5];
	for (int i = 0; i < 5; i++) {
		c[i] = socket(AF_UNIX, type, 0);
		CHECK("connect", connect(c[i], (struct sockaddr *)&a, al));
	}
	CHECK("client 4 sends before the close", send(c[4], "early", 5, MSG_NOSIGNAL));
	CHECK("close the listener", close(l));
	char b[8];
	struct pollfd pf = { c[0], POLLIN | POLLOUT | POLLRDHUP, 0 };
	CHECK("client 0: poll", poll(&pf, 1, 0));
	SAME("client 0: revents %#x", pf.revents);
	CHECK("client 0: read", read(c[0], b, sizeof b));
	CHECK("client 0: read again", read(c[0], b, sizeof b));
	pf.revents = 0;
	CHECK("client 0: poll again", poll(&pf, 1, 0));
	SAME("client 0: revents %#x", pf.revents);
	pipes = 0;
	CHECK("client 1: write", write(c[1], "x", 1));
	SAME("client 1: SIGPIPEs %d", (int)pipes);
	CHECK("client 1: read", read(c[1], b, sizeof b));
	int e = -1;
	socklen_t el = sizeof e;
	CHECK("client 2: getsockopt(SO_ERROR)", getsockopt(c[2], SOL_SOCKET, SO_ERROR, &e, &el));
	SAME("client 2: SO_ERROR %s", e ? strerrorname_np(e) : "0");
	CHECK("client 2: read", read(c[2], b, sizeof b));
	CHECK("client 3: recv(MSG_DONTWAIT)", recv(c[3], b, sizeof b, MSG_DONTWAIT));
	CHECK("client 3: recv again", recv(c[3], b, sizeof b, MSG_DONTWAIT));
	CHECK("client 4: read", read(c[4], b, sizeof b));
	CHECK("client 4: read again", read(c[4], b, sizeof b));
	for (int i = 0; i < 5; i++)
		close(c[i]);
}

/* longrights: a child sends a message longer than the buffer with one
 * descriptor; the reader counts the descriptors that arrive with it. */
static void longrights(void)
{
	int sv[2], p[2];
	SAME("-- SCM_RIGHTS on a stream send longer than the buffer");
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pipe(p);
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		char ctl[CMSG_SPACE(sizeof(int))];
		memset(ctl, 0, sizeof ctl);
		struct iovec iov = { big, 400000 };
		struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
		struct cmsghdr *c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &p[1], sizeof(int));
		_exit(sendmsg(sv[1], &h, 0) == 400000 ? 0 : 1);
	}
	close(sv[1]);
	close(p[1]);
	long total = 0;
	int fds = 0, msgs = 0, first = -1;
	static char in[65536];
	for (;;) {
		char ctl[CMSG_SPACE(8 * sizeof(int))];
		struct iovec iov = { in, sizeof in };
		struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
		long r = recvmsg(sv[0], &h, 0);
		if (r <= 0)
			break;
		if (fds == 0 && total > 0)
			first = 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				int n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				if (fds == 0 && first < 0)
					first = 1;
				fds += n;
				msgs++;
				for (int i = 0; i < n; i++)
					close(((int *)CMSG_DATA(c))[i]);
			}
		total += r;
	}
	int st = 0;
	waitpid(pid, &st, 0);
	SAME("sender exit %d; read %ld bytes, %d descriptor(s) in %d control message(s), with the first bytes %d",
	     WEXITSTATUS(st), total, fds, msgs, first);
	close(sv[0]);
	close(p[0]);
}

int main(void)
{
	signal(SIGPIPE, onpipe);
	partial(0, "closes");
	partial(1, "shuts for reading");
	backlog(SOCK_STREAM, "stream");
	backlog(SOCK_SEQPACKET, "seqpacket");
	longrights();
	return 0;
}
