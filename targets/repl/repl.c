/*
 * repl: a two-node primary/backup replicated register.
 *
 * Node 0 is the primary: it accepts client connections and serves
 * "WRITE <v>" requests by forwarding "FWD <v>" to node 1, the backup,
 * which stores the value and answers "OK". The primary then stores the
 * value and acks the client with "ACK <v>".
 *
 * Built with -DBUG the primary stores and acks the client *before* the
 * backup has confirmed: a client can be told its write is committed while
 * the backup still holds the old value.
 *
 * usage: repl ID NODES BASE_PORT     (node i listens on BASE_PORT+i)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int stored;          /* the register */

struct conn {
	int fd;
	char buf[256];
	size_t len;
};

/* read_line reads one '\n'-terminated line into out; 0 on EOF. */
static int read_line(struct conn *c, char *out, size_t cap)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		if (nl) {
			size_t n = (size_t)(nl - c->buf);
			if (n >= cap)
				n = cap - 1;
			memcpy(out, c->buf, n);
			out[n] = '\0';
			c->len -= (size_t)(nl - c->buf) + 1;
			memmove(c->buf, nl + 1, c->len);
			return 1;
		}
		if (c->len == sizeof c->buf)
			return -1;
		ssize_t r = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		c->len += (size_t)r;
	}
}

static int send_all(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = send(fd, s, n, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int listen_on(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	                         .sin_addr.s_addr = htonl(INADDR_ANY) };
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 16) < 0) {
		perror("listen");
		exit(1);
	}
	return fd;
}

static int dial(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		perror("connect");
		exit(1);
	}
	return fd;
}

static void backup(int lfd)
{
	char line[128];
	for (;;) {
		struct conn c = { .fd = accept(lfd, NULL, NULL) };
		if (c.fd < 0)
			continue;
		while (read_line(&c, line, sizeof line) > 0) {
			int v;
			if (sscanf(line, "FWD %d", &v) == 1) {
				stored = v;
				send_all(c.fd, "OK\n");
			}
		}
		close(c.fd);
	}
}

static void primary(int lfd, int backup_port)
{
	struct conn b = { .fd = -1 };
	char line[128], reply[64];
	for (;;) {
		struct conn c = { .fd = accept(lfd, NULL, NULL) };
		if (c.fd < 0)
			continue;
		while (read_line(&c, line, sizeof line) > 0) {
			int v;
			if (sscanf(line, "WRITE %d", &v) != 1)
				continue;
			if (b.fd < 0)
				b.fd = dial(backup_port);
			snprintf(reply, sizeof reply, "FWD %d\n", v);
#ifdef BUG
			stored = v;                       /* ack before the backup has it */
			snprintf(line, sizeof line, "ACK %d\n", v);
			send_all(c.fd, line);
			send_all(b.fd, reply);
			read_line(&b, reply, sizeof reply);
#else
			send_all(b.fd, reply);
			if (read_line(&b, reply, sizeof reply) <= 0 || strcmp(reply, "OK") != 0)
				continue;                 /* not replicated: no ack */
			stored = v;
			snprintf(line, sizeof line, "ACK %d\n", v);
			send_all(c.fd, line);
#endif
		}
		close(c.fd);
	}
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s ID NODES BASE_PORT\n", argv[0]);
		return 2;
	}
	int id = atoi(argv[1]), base = atoi(argv[3]);
	int lfd = listen_on(base + id);
	if (id == 0)
		primary(lfd, base + 1);
	else
		backup(lfd);
	return 0;
}
