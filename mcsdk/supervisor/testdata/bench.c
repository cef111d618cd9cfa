/*
 * bench: workloads for the supervisor benchmarks, run natively and under
 * weft with the same arguments.
 *
 *   bench ID BASE_PORT syscalls N   N getppid(2) calls, then park/exit
 *   bench ID BASE_PORT rdtsc N      N rdtsc instructions, then exit
 *   bench ID BASE_PORT pingpong N   node 0 sends N 64-byte messages to
 *                                   node 1, which echoes each one back
 *   bench ID BASE_PORT buffer 0     prints the address of a 64-byte buffer,
 *                                   then waits for its standard input to
 *                                   close (a target for the copy benchmark)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <x86intrin.h>

static struct sockaddr_in addr(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	return a;
}

static int full(int fd, char *buf, int n)
{
	int got = 0;
	while (got < n) {
		ssize_t r = recv(fd, buf + got, (size_t)(n - got), 0);
		if (r <= 0)
			return -1;
		got += (int)r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	int id = atoi(argv[1]), base = atoi(argv[2]);
	long n = atol(argv[4]);
	if (!strcmp(argv[3], "syscalls")) {
		long s = 0;
		for (long i = 0; i < n; i++)
			s += getppid();
		return s == -1;
	}
	if (!strcmp(argv[3], "rdtsc")) {
		unsigned long long s = 0;
		for (long i = 0; i < n; i++)
			s += __rdtsc();
		return s == 1;
	}
	static char buf[64];
	memset(buf, 'x', sizeof buf);
	if (!strcmp(argv[3], "buffer")) {
		printf("%p\n", (void *)buf);
		fflush(stdout);
		char c;
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	int one = 1;
	if (id == 1) {
		int l = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = addr(base + 1);
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0)
			return 1;
		int c = accept(l, NULL, NULL);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		while (full(c, buf, sizeof buf) == 0)
			send(c, buf, sizeof buf, 0);
		return 0;
	}
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = addr(base + 1);
	while (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		usleep(1000); /* natively, node 1 may not listen yet */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	for (long i = 0; i < n; i++) {
		send(fd, buf, sizeof buf, 0);
		if (full(fd, buf, sizeof buf) < 0)
			return 1;
	}
	close(fd);
	return 0;
}
