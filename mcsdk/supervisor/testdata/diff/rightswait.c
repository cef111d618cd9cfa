/*
 * rightswait: a sendmsg carrying SCM_RIGHTS that waits for room before it
 * moves any byte takes its descriptors once, at its start (Linux's
 * unix_stream_sendmsg calls scm_send before it waits): another thread that
 * closes the number meanwhile, or makes it name another file, changes
 * nothing the receiver gets.
 */
#include "probe.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int sv[2], passed;
static long sent;
static int senterr;

/* sender sends one byte with passed over sv[0], waiting for room. */
static void *sender(void *a)
{
	(void)a;
	char byte = 'r';
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &passed, sizeof passed);
	errno = 0;
	sent = (long)sendmsg(sv[0], &m, 0);
	senterr = errno;
	return NULL;
}

/* wait: the sender is parked in its sendmsg by the time this returns
 * (natively it has had a long time; under weft it is the only thread
 * that can run while this one sleeps). */
static void wait(void)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

static void run(int reuse)
{
	static char buf[4096];
	int p[2];
	SAME("-- the passed number %s while the send waits", reuse ? "made to name an eventfd" : "closed");
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pipe(p);
	passed = p[1];
	long filled = 0, k;
	while ((k = send(sv[0], buf, sizeof buf, MSG_DONTWAIT)) > 0)
		filled += k;
	VIRT("filled %ld bytes", filled);
	pthread_t th;
	pthread_create(&th, NULL, sender, NULL);
	wait();
	if (reuse) {
		int e = eventfd(0, 0);
		SAME("dup2 an eventfd onto the passed number: %d", dup2(e, passed) == passed);
		close(e);
	} else {
		CHECK("close the passed number", close(passed));
	}
	/* the pipe's write end lives on in flight: no end of file yet */
	char z = 0;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	CHECK("read the pipe while its write end is in flight", read(p[0], &z, 1));
	fcntl(p[0], F_SETFL, 0);
	for (long left = filled; left > 0;) {
		long r = recv(sv[1], buf, left < (long)sizeof buf ? left : (long)sizeof buf, 0);
		if (r <= 0) {
			SAME("draining: %s", strerrorname_np(errno));
			return;
		}
		left -= r;
	}
	char byte;
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
	CHECK("recvmsg the byte", recvmsg(sv[1], &m, 0));
	pthread_join(th, NULL);
	SAME("sender: sendmsg -> %ld %s", sent, sent < 0 ? strerrorname_np(senterr) : "ok");
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (c == NULL || c->cmsg_type != SCM_RIGHTS) {
		SAME("no descriptor received");
		return;
	}
	int got;
	memcpy(&got, CMSG_DATA(c), sizeof got);
	struct stat st;
	fstat(got, &st);
	SAME("received a pipe: %d", S_ISFIFO(st.st_mode));
	CHECK("write through it", write(got, "z", 1));
	CHECK("read the pipe", read(p[0], &z, 1));
	SAME("the pipe got %c", z);
	close(got);
	close(p[0]);
	close(passed);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	run(0);
	run(1);
	return 0;
}
