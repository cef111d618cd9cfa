// kv.c is a one-value server for the state query tests: on port argv[1]
// it answers "SET n\n" with "OK\n" and "GET\n" with "VAL n\n", serving
// every connection from one poll loop until the peer closes it. With a
// second argument, a directory, it first creates a file there and says
// so; it prints $KV_NAME if set. With $KV_THREAD set it first starts a
// thread that waits forever on a condition variable.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAXC 16

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *idle(void *arg) {
	pthread_mutex_lock(&mu);
	for (;;)
		pthread_cond_wait(&never, &mu);
	return arg;
}

int main(int argc, char **argv) {
	long val = 0;
	pthread_t th;
	if (getenv("KV_THREAD"))
		pthread_create(&th, NULL, idle, NULL);
	if (getenv("KV_NAME"))
		printf("name %s\n", getenv("KV_NAME"));
	if (argc > 2) {
		char path[256];
		snprintf(path, sizeof path, "%s/mark", argv[2]);
		int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
		printf("mark in %s: %s\n", argv[2], fd >= 0 ? "created" : "failed");
		close(fd);
	}
	fflush(stdout);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 8) < 0) {
		perror("listen");
		return 1;
	}
	struct pollfd p[MAXC + 1] = {{.fd = l, .events = POLLIN}};
	int n = 1;
	for (;;) {
		if (poll(p, n, -1) < 0)
			return 1;
		if (p[0].revents & POLLIN && n <= MAXC) {
			p[n].fd = accept(l, NULL, NULL);
			p[n].events = POLLIN;
			n++;
		}
		for (int i = 1; i < n; i++) {
			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			char buf[64], out[64];
			ssize_t k = read(p[i].fd, buf, sizeof buf - 1);
			if (k <= 0) {
				close(p[i].fd);
				p[i--] = p[--n];
				continue;
			}
			buf[k] = 0;
			if (strncmp(buf, "SET ", 4) == 0) {
				val = atol(buf + 4);
				write(p[i].fd, "OK\n", 3);
			} else if (strncmp(buf, "GET", 3) == 0) {
				write(p[i].fd, out, snprintf(out, sizeof out, "VAL %ld\n", val));
			}
		}
	}
}
