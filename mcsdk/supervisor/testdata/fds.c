/* fds: in-node descriptor workloads for fds_linux_test.go.
 *   pipepc     a producer thread writes 200000 bytes through a pipe to the
 *              main thread, which reads first (it blocks on the empty pipe)
 *   eventpc    the same over an eventfd: the main thread reads first
 *   seal NAME PATH
 *              connect to the abstract name NAME and to the unix socket at
 *              PATH (both a host process's), bind PATH's directory
 *   listen NAME
 *              bind the abstract name NAME, listen, report, and wait in accept
 *   connect NAME
 *              connect to the abstract name NAME
 *   sigpipe    write to a pipe whose reader is gone (SIGPIPE kills)
 *   sendpipe   sendfile from its own binary into a pipe (not modelled) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int pfd[2], efd;

static void *pipe_producer(void *arg)
{
	(void)arg;
	static char buf[50000];
	usleep(1000); /* the consumer reads the empty pipe first */
	for (int i = 0; i < 4; i++) {
		memset(buf, 'a' + i, sizeof buf);
		if (write(pfd[1], buf, sizeof buf) != sizeof buf)
			perror("write");
	}
	close(pfd[1]);
	return NULL;
}

static void *event_producer(void *arg)
{
	(void)arg;
	usleep(1000);
	for (uint64_t v = 1; v <= 5; v++)
		if (write(efd, &v, 8) != 8)
			perror("write");
	return NULL;
}

static socklen_t abstract(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, name, strlen(name));
	return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
}

int main(int argc, char **argv)
{
	pthread_t t;
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "pipepc")) {
		pipe(pfd);
		pthread_create(&t, NULL, pipe_producer, NULL);
		static char buf[70000];
		long total = 0, sum = 0, reads = 0;
		ssize_t n;
		while ((n = read(pfd[0], buf, sizeof buf)) > 0) {
			for (ssize_t i = 0; i < n; i++)
				sum += buf[i];
			total += n;
			reads++;
		}
		pthread_join(t, NULL);
		printf("consumer got %ld bytes, sum %ld, in %ld reads\n", total, sum, reads);
		return 0;
	}
	if (!strcmp(mode, "eventpc")) {
		efd = eventfd(0, 0);
		pthread_create(&t, NULL, event_producer, NULL);
		uint64_t got = 0, v;
		while (got < 15 && read(efd, &v, 8) == 8)
			got += v;
		pthread_join(t, NULL);
		printf("consumer counted %llu\n", (unsigned long long)got);
		return 0;
	}
	if (!strcmp(mode, "seal") && argc > 3) {
		struct sockaddr_un a;
		socklen_t al = abstract(&a, argv[2]);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		int r = connect(s, (struct sockaddr *)&a, al);
		printf("connect abstract: %d %s\n", r, r < 0 ? strerrorname_np(errno) : "ok");
		memset(&a, 0, sizeof a);
		a.sun_family = AF_UNIX;
		strcpy(a.sun_path, argv[3]);
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		r = connect(s, (struct sockaddr *)&a, sizeof a);
		printf("connect path: %d %s\n", r, r < 0 ? strerrorname_np(errno) : "ok");
		strcat(a.sun_path, ".mine");
		r = bind(s, (struct sockaddr *)&a, sizeof a);
		printf("bind outside: %d %s\n", r, r < 0 ? strerrorname_np(errno) : "ok");
		return 0;
	}
	if (!strcmp(mode, "listen") && argc > 2) {
		struct sockaddr_un a;
		socklen_t al = abstract(&a, argv[2]);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		int r = bind(s, (struct sockaddr *)&a, al);
		printf("bind: %d, listen: %d\n", r, listen(s, 1));
		fflush(stdout);
		int c = accept(s, NULL, NULL);
		printf("accepted %d\n", c >= 0);
		return 0;
	}
	if (!strcmp(mode, "connect") && argc > 2) {
		struct sockaddr_un a;
		socklen_t al = abstract(&a, argv[2]);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		int r = connect(s, (struct sockaddr *)&a, al);
		printf("connect: %d %s\n", r, r < 0 ? strerrorname_np(errno) : "ok");
		return 0;
	}
	if (!strcmp(mode, "sigpipe")) {
		pipe(pfd);
		close(pfd[0]);
		write(pfd[1], "x", 1);
		printf("survived SIGPIPE\n");
		return 0;
	}
	if (!strcmp(mode, "sendpipe")) {
		pipe(pfd);
		int f = open(argv[0], O_RDONLY);
		long r = sendfile(pfd[1], f, NULL, 16);
		printf("sendfile into a pipe: %ld\n", r);
		return 0;
	}
	fprintf(stderr, "usage: fds pipepc|eventpc|seal NAME PATH|listen NAME|connect NAME|sigpipe|sendpipe\n");
	return 2;
}
