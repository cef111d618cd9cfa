/*
 * prefork: a pre-forking server, the process tree checkpoints copy
 * (checkpoint_tree_linux_test.go).
 *
 * The master opens a log file and forks two workers, which share its
 * description (one offset). It hands each worker two jobs over a pipe;
 * a worker connects to the next node, sends each job there, waits for
 * the answer, appends a line to the log and reports the answer to the
 * master over a socketpair. The master serves the other node's workers
 * (answering each line), collects the reports, counts SIGCHLDs, waits
 * for both workers, and prints what happened and the log.
 *
 * usage: prefork ID NODES BASE_PORT [DIR]   (node i listens on BASE_PORT+i;
 *        the log lies in DIR, else in the working directory)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 2
#define JOBS 2

static volatile sig_atomic_t chlds;

static void on_chld(int sig) { (void)sig; chlds++; }

/* say writes a line to fd, whole. */
static void say(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			exit(3);
		s += w;
		n -= (size_t)w;
	}
}

/* line reads one '\n'-terminated line from fd a byte at a time (no
 * buffering across calls); 0 on end of file. */
static int line(int fd, char *out, size_t cap)
{
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		if (c == '\n' || n + 1 == cap) {
			out[n] = '\0';
			return 1;
		}
		out[n++] = c;
	}
}

static int dial(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			return fd;
		close(fd);
		usleep(1000);
	}
}

static void worker(int id, int k, int peer, int jobs, int report, int log)
{
	int c = dial(peer);
	char job[64], ans[128], buf[256];
	while (line(jobs, job, sizeof job)) {
		snprintf(buf, sizeof buf, "%d.%d %s\n", id, k, job);
		say(c, buf);
		if (!line(c, ans, sizeof ans))
			exit(4);
		snprintf(buf, sizeof buf, "w%d.%d ppid %d %s\n", id, k, (int)getppid(), ans);
		say(log, buf);
		say(report, buf);
	}
	close(c);
	exit(10 + k);
}

int main(int argc, char **argv)
{
	if (argc != 4 && !(argc == 5 && chdir(argv[4]) == 0))
		return 2;
	int id = atoi(argv[1]), nodes = atoi(argv[2]), base = atoi(argv[3]);
	signal(SIGCHLD, on_chld);
	int log = open("log", O_RDWR | O_CREAT | O_TRUNC, 0644);
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(base + id)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (log < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 8) < 0)
		return 2;
	struct pollfd fds[2 + 2 * WORKERS];
	int nfds = 0;
	fds[nfds++] = (struct pollfd){.fd = ls, .events = POLLIN};
	pid_t pids[WORKERS];
	for (int k = 0; k < WORKERS; k++) {
		int jp[2], sp[2];
		if (pipe(jp) < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0)
			return 2;
		pids[k] = fork();
		if (pids[k] == 0) {
			close(jp[1]);
			close(sp[0]);
			close(ls);
			worker(id, k, base + (id + 1) % nodes, jp[0], sp[1], log);
		}
		close(jp[0]);
		close(sp[1]);
		char buf[32];
		for (int j = 0; j < JOBS; j++) {
			snprintf(buf, sizeof buf, "job%d\n", j);
			say(jp[1], buf);
		}
		close(jp[1]);
		fds[nfds++] = (struct pollfd){.fd = sp[0], .events = POLLIN};
	}
	say(log, "master forked\n");
	int reports = 0, peers = 0, served = 0;
	while (reports < WORKERS * JOBS || peers < WORKERS) {
		if (poll(fds, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 5;
		}
		for (int i = 0; i < nfds; i++) {
			if (!(fds[i].revents & (POLLIN | POLLHUP)))
				continue;
			char buf[256];
			if (fds[i].fd == ls) {
				fds[nfds++] = (struct pollfd){.fd = accept(ls, NULL, NULL), .events = POLLIN};
			} else if (i <= WORKERS) {
				if (!line(fds[i].fd, buf, sizeof buf)) {
					fds[i].fd = -1;
					continue;
				}
				printf("report %s\n", buf);
				reports++;
			} else {
				if (!line(fds[i].fd, buf, sizeof buf)) {
					close(fds[i].fd);
					fds[i].fd = -1;
					peers++;
					continue;
				}
				char ans[300];
				snprintf(ans, sizeof ans, "ack%d(%s)\n", served++, buf);
				say(fds[i].fd, ans);
			}
		}
	}
	for (int k = 0; k < WORKERS; k++) {
		int st;
		while (waitpid(pids[k], &st, 0) < 0 && errno == EINTR)
			;
		printf("worker %d (pid %d) exited %d\n", k, (int)pids[k], WEXITSTATUS(st));
	}
	printf("sigchld %d\n", (int)chlds);
	lseek(log, 0, SEEK_SET);
	char buf[1024];
	ssize_t r = read(log, buf, sizeof buf - 1);
	buf[r > 0 ? r : 0] = '\0';
	printf("log:\n%s", buf);
	fflush(stdout);
	return 0;
}
