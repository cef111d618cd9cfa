/*
 * sockrestart: a blocking socket call a caught signal interrupts, under
 * SA_RESTART. Linux restarts it when the socket has no timeout in that
 * direction and ends it with EINTR when it has one (sock_intr_errno: a
 * wait bounded by SO_RCVTIMEO or SO_SNDTIMEO is never restarted), for
 * every family: inet and unix datagram sockets, a unix stream socket and
 * a unix listener's accept. A restarted call here ends when the other
 * thread, 20 ms after the signal, sends a byte or connects.
 */
#include "probe.h"
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static pthread_t mainth;
static pid_t maintid;
static volatile int caught;
static int peer = -1;         /* where the helper sends a byte, or -1 */
static struct sockaddr_un at; /* where the helper connects, if peer is -1 */

static void on(int sig) { caught++; }

static void pause20(void)
{
	struct timespec d = { .tv_nsec = 20000000 };
	nanosleep(&d, NULL);
}

/* after signals the main thread 20 ms in, once it sleeps in its call,
 * then 20 ms later ends its wait if it was restarted. */
static void *after(void *arg)
{
	pause20();
	await_sleeping(maintid);
	pthread_kill(mainth, SIGUSR1);
	pause20();
	if (peer >= 0) {
		send(peer, "x", 1, MSG_DONTWAIT);
	} else {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		connect(c, (struct sockaddr *)&at, sizeof at);
		pause20();
		close(c);
	}
	return NULL;
}

static void timeout(int s, int opt, long sec)
{
	struct timeval tv = { sec, 0 };
	setsockopt(s, SOL_SOCKET, opt, &tv, sizeof tv);
}

static void recvcase(const char *what, int s, int other, long sec)
{
	timeout(s, SO_RCVTIMEO, sec);
	peer = other;
	caught = 0;
	pthread_t th;
	pthread_create(&th, NULL, after, NULL);
	char b;
	errno = 0;
	long r = recv(s, &b, 1, 0);
	SAME("%s recv, SO_RCVTIMEO %ld s, SA_RESTART, a signal after 20 ms: -> %ld %s, caught %d", what, sec, r,
	     r < 0 ? strerrorname_np(errno) : "ok", caught);
	pthread_join(th, NULL);
	while (recv(s, &b, 1, MSG_DONTWAIT) > 0) {
	}
}

int main(void)
{
	mainth = pthread_self();
	maintid = gettid();
	struct sigaction sa = { .sa_handler = on, .sa_flags = SA_RESTART };
	sigaction(SIGUSR1, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (long sec = 0; sec <= 5; sec += 5) {
		int in = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof a;
		bind(in, (struct sockaddr *)&a, sizeof a);
		getsockname(in, (struct sockaddr *)&a, &len);
		int out = socket(AF_INET, SOCK_DGRAM, 0);
		connect(out, (struct sockaddr *)&a, sizeof a);
		recvcase("inet dgram", in, out, sec);
		close(in), close(out);

		int sv[2];
		socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
		recvcase("unix dgram", sv[0], sv[1], sec);
		close(sv[0]), close(sv[1]);
		socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		recvcase("unix stream", sv[0], sv[1], sec);
		close(sv[0]), close(sv[1]);

		int l = socket(AF_UNIX, SOCK_STREAM, 0);
		at = (struct sockaddr_un){ .sun_family = AF_UNIX };
		snprintf(at.sun_path, sizeof at.sun_path, "sockrestart-%ld", sec);
		unlink(at.sun_path);
		bind(l, (struct sockaddr *)&at, sizeof at);
		listen(l, 1);
		timeout(l, SO_RCVTIMEO, sec);
		peer = -1;
		caught = 0;
		pthread_t th;
		pthread_create(&th, NULL, after, NULL);
		errno = 0;
		long r = accept(l, NULL, NULL);
		SAME("unix accept, SO_RCVTIMEO %ld s, SA_RESTART, a signal after 20 ms: -> %ld %s, caught %d", sec,
		     r < 0 ? -1L : 1L, r < 0 ? strerrorname_np(errno) : "ok", caught);
		pthread_join(th, NULL);
		if (r >= 0)
			close(r);
		close(l);
		unlink(at.sun_path);
	}
	return 0;
}
