/*
 * probe: small two-node programs that exercise one supervisor behaviour
 * each, selected by the third argument. Ordinary sockets, no weft header.
 *
 * usage: probe ID BASE_PORT MODE
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int chunks[8];  /* sizes returned by successive receives */
int nchunks;
int total;
int eof;        /* 1 once a receive returned 0 */
int src_port;   /* UDP source port seen */
int ticks;      /* busy loop counter */

static struct sockaddr_in addr(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	return a;
}

static void stream(int id, int base)
{
	if (id == 0) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = addr(base + 1);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
			perror("connect");
			exit(1);
		}
		send(fd, "hello world!", 12, 0);   /* one message of 12 bytes */
		close(fd);                         /* FIN */
		for (;;)
			pause();
	}
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = addr(base + 1);
	bind(l, (struct sockaddr *)&a, sizeof a);
	listen(l, 4);
	int c = accept(l, NULL, NULL);
	char buf[5];
	for (;;) {
		ssize_t r = recv(c, buf, sizeof buf, 0);  /* partial reads of 5 */
		if (r <= 0)
			break;
		chunks[nchunks++] = (int)r;
		total += (int)r;
	}
	eof = 1;
	accept(l, NULL, NULL); /* park */
}

static void udp(int id, int base)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in me = addr(base + id);
	bind(fd, (struct sockaddr *)&me, sizeof me);
	if (id == 0) {
		struct sockaddr_in to = addr(base + 1);
		sendto(fd, "abc", 3, 0, (struct sockaddr *)&to, sizeof to);
		sendto(fd, "defgh", 5, 0, (struct sockaddr *)&to, sizeof to);
		char b[1];
		recv(fd, b, 1, 0); /* park */
		return;
	}
	for (int i = 0; i < 2; i++) {
		char buf[4];
		struct sockaddr_in from;
		socklen_t fl = sizeof from;
		ssize_t r = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
		chunks[nchunks++] = (int)r;                /* datagrams truncate to 4 */
		src_port = ntohs(from.sin_port);
	}
	eof = 1;
	char b[1];
	recv(fd, b, 1, 0); /* park */
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	int id = atoi(argv[1]), base = atoi(argv[2]);
	const char *mode = argv[3];
	if (!strcmp(mode, "stream"))
		stream(id, base);
	else if (!strcmp(mode, "udp"))
		udp(id, base);
	else if (!strcmp(mode, "iouring") && id == 1) {
		char params[120] = {0};
		return syscall(SYS_io_uring_setup, 1, params) >= 0 ? 4 : 0;
	}
	else if (!strcmp(mode, "spin") && id == 1)
		for (;;)
			ticks++;
	else if (!strcmp(mode, "segv") && id == 1)
		return *(volatile int *)(long)argc - 4; /* reads address 4: SIGSEGV */
	else if (!strcmp(mode, "exit3") && id == 1)
		return 3;
	else if (!strcmp(mode, "persist") && id == 0) {
		/* Durable state in the working directory: on start, total = size
		 * of "data" + 1; a fresh node writes "A", fsyncs, then writes "B". */
		int fd = open("data", O_RDWR | O_CREAT | O_APPEND, 0644);
		off_t size = lseek(fd, 0, SEEK_END);
		total = (int)size + 1;
		if (size == 0) {
			if (write(fd, "A", 1) != 1 || fsync(fd) < 0 || write(fd, "B", 1) != 1)
				return 1;
		}
	} else if (!strcmp(mode, "notice")) {
		/* Serve connections on BASE_PORT+id; "DEAD <n>" records n+1. */
		int l = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in me = addr(base + id);
		bind(l, (struct sockaddr *)&me, sizeof me);
		listen(l, 4);
		for (;;) {
			int c = accept(l, NULL, NULL);
			char line[32] = { 0 };
			int n;
			if (recv(c, line, sizeof line - 1, 0) > 0 && sscanf(line, "DEAD %d", &n) == 1) {
				eof = n + 1;
				total = (int)(time(NULL) - 1767225600);
			}
			close(c);
		}
	} else if (!strcmp(mode, "escape") && id == 0) {
		/* Try to reach a real listener on the host's loopback. */
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = addr(base + 50);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
			eof = errno;
		else
			eof = -(int)send(fd, "escaped", 7, 0);
	} else if (!strcmp(mode, "sleep")) {
		struct timespec ts = { .tv_sec = 600 };
		nanosleep(&ts, NULL);
		total = (int)time(NULL);
	}
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in me = addr(base + 10 + id);
	bind(fd, (struct sockaddr *)&me, sizeof me);
	listen(fd, 1);
	accept(fd, NULL, NULL); /* park forever */
	return 0;
}
