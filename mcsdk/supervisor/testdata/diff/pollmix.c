/* pollmix: poll and select over every descriptor kind at once: pipes,
 * eventfds, unix sockets, a UDP socket (the virtual network), timerfds,
 * signalfds, stdin, a regular file, an epoll instance, a closed
 * descriptor. usage: pollmix PORT */
#include "probe.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

enum { PIPE_R, PIPE_W, EFD, SOCK, UDP, TFD, SFD, STDIN, FILE_, EPOLL, CLOSED, NEG, N };
static const char *names[N] = { "pipe-r", "pipe-w", "eventfd", "unix", "udp", "timerfd", "signalfd", "stdin", "file", "epoll", "closed", "negative" };

static void show(struct pollfd *p, const char *what, int n)
{
	char line[512] = "";
	for (int i = 0; i < N; i++)
		snprintf(line + strlen(line), sizeof line - strlen(line), " %s:%#x", names[i], p[i].revents);
	SAME("%s: poll -> %d;%s", what, n, line);
}

int main(int argc, char **argv)
{
	int p[2], sv[2];
	struct sockaddr_in at = { .sin_family = AF_INET, .sin_port = htons(argc > 1 ? atoi(argv[1]) : 47932),
	                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK("bind(UDP)", bind(u, (struct sockaddr *)&at, sizeof at));
	pipe(p);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	int e = eventfd(0, 0);
	int t = timerfd_create(CLOCK_MONOTONIC, 0);
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int s = signalfd(-1, &mask, SFD_NONBLOCK);
	int f = open("pollmix-file", O_CREAT | O_RDWR, 0644);
	int ep = epoll_create1(0);
	struct epoll_event ee = { .events = EPOLLIN };
	epoll_ctl(ep, EPOLL_CTL_ADD, e, &ee);
	int ep2 = epoll_create1(0);
	int closed = dup(0);
	close(closed);
	struct pollfd fds[N] = {
		[PIPE_R] = { p[0], POLLIN }, [PIPE_W] = { p[1], POLLOUT }, [EFD] = { e, POLLIN | POLLOUT },
		[SOCK] = { sv[0], POLLIN | POLLOUT | POLLRDHUP }, [UDP] = { u, POLLIN | POLLOUT }, [TFD] = { t, POLLIN }, [SFD] = { s, POLLIN },
		[STDIN] = { 0, POLLIN }, [FILE_] = { f, POLLIN | POLLOUT }, [EPOLL] = { ep, POLLIN },
		[CLOSED] = { closed, POLLIN }, [NEG] = { -1, POLLIN },
	};
	show(fds, "start", poll(fds, N, 0));
	write(p[1], "x", 1);
	uint64_t one = 1;
	write(e, &one, 8);
	write(sv[1], "y", 1);
	struct itimerspec it = { .it_value = { 0, 1000000 } };
	timerfd_settime(t, 0, &it, NULL);
	raise(SIGUSR1);
	sendto(u, "dgram", 5, 0, (struct sockaddr *)&at, sizeof at);
	struct pollfd uonly = { u, POLLIN };
	CHECK("poll on the UDP socket, blocking", poll(&uonly, 1, -1));
	struct epoll_event ue = { .events = EPOLLIN | EPOLLET, .data.u32 = 77 }, got[2];
	epoll_ctl(ep2, EPOLL_CTL_ADD, u, &ue);
	CHECK("epoll_wait(UDP, edge-triggered)", epoll_wait(ep2, got, 2, 0));
	CHECK("epoll_wait again (no new datagram)", epoll_wait(ep2, got, 2, 0));
	fds[TFD].fd = -1;
	show(fds, "after writes and a signal", poll(fds, N, 0));
	fds[TFD].fd = t;
	struct pollfd only = { t, POLLIN };
	CHECK("poll on the timerfd, blocking", poll(&only, 1, -1));
	SAME("timerfd revents %#x", only.revents);
	struct signalfd_siginfo si;
	CHECK("read the signalfd", read(s, &si, sizeof si));
	SAME("signal %d", si.ssi_signo);
	CHECK("read the signalfd again", read(s, &si, sizeof si));
	close(sv[1]);
	char buf[8];
	read(p[0], buf, 1);
	read(e, &one, 8);
	recv(u, buf, sizeof buf, 0);
	show(fds, "after reads and the peer's close", poll(fds, N, 0));
	CHECK("poll, nothing, 3 ms", poll(fds + PIPE_R, 1, 3));

	SAME("-- select");
	fd_set rd, wr;
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(p[0], &rd);
	FD_SET(e, &rd);
	FD_SET(sv[0], &rd);
	FD_SET(0, &rd);
	FD_SET(f, &rd);
	FD_SET(p[1], &wr);
	FD_SET(e, &wr);
	struct timeval tv = { 0, 0 };
	int n = select(f + 8, &rd, &wr, NULL, &tv);
	SAME("select -> %d: pipe-r %d eventfd-r %d unix-r %d stdin %d file %d pipe-w %d eventfd-w %d", n, FD_ISSET(p[0], &rd),
	     FD_ISSET(e, &rd), FD_ISSET(sv[0], &rd), FD_ISSET(0, &rd), FD_ISSET(f, &rd), FD_ISSET(p[1], &wr), FD_ISSET(e, &wr));
	FD_ZERO(&rd);
	FD_SET(closed, &rd);
	CHECK("select on a closed fd", select(closed + 1, &rd, NULL, NULL, &tv));
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	tv.tv_usec = 2000;
	CHECK("select, nothing, 2 ms", select(p[0] + 1, &rd, NULL, NULL, &tv));
	unlink("pollmix-file");
	return 0;
}
