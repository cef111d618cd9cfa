/*
 * quorum: a replicated log with a primary and NODES-1 backups (three nodes
 * in quorum.model, four in quorum4.model).
 *
 * Node 0, the primary, runs a poll(2) event loop over its listening
 * socket, its client connections and its connections to the backups. A
 * client request "WRITE <v>" gets a sequence number; the primary appends v
 * to its own log and forwards "FWD <seq> <v>" to every backup, which append
 * and answer "OK <seq>". When a majority (NODES/2+1 nodes, the primary
 * included) has the value, the primary answers the client "ACK <v>". A client request
 * "READ" gets "VAL <v>": the value of the latest write that some backup
 * has confirmed (0 before any), which in the correct protocol is the
 * latest acknowledged write (register.model checks that reads and writes
 * are linearizable).
 *
 * Built with -DBUG the primary credits every backup OK to the most recent
 * write instead of the write it acknowledges: an OK for an earlier write,
 * arriving after a later one was forwarded, acks the later write although
 * no backup has it yet. Only some delivery orders show it.
 *
 * usage: quorum ID NODES BASE_PORT     (node i listens on BASE_PORT+i)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAXLOG 4
#define MAXCONN 16
#define MAXPEERS 7

int log_vals[MAXLOG]; /* the replicated log */
int nlog;

struct conn {
	int fd;
	char buf[256];
	size_t len;
};

static void append(int v)
{
	if (nlog < MAXLOG)
		log_vals[nlog++] = v;
}

/* next_line extracts one buffered line; 1 if found. */
static int next_line(struct conn *c, char *out, size_t cap)
{
	char *nl = memchr(c->buf, '\n', c->len);
	if (!nl)
		return 0;
	size_t n = (size_t)(nl - c->buf);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, c->buf, n);
	out[n] = '\0';
	c->len -= (size_t)(nl - c->buf) + 1;
	memmove(c->buf, nl + 1, c->len);
	return 1;
}

/* fill reads what is available; 0 on EOF or error. */
static int fill(struct conn *c)
{
	ssize_t r;
	do
		r = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return 0;
	c->len += (size_t)r;
	return 1;
}

static void send_str(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = send(fd, s, n, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static int listen_on(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
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
	char line[128], reply[64];
	for (;;) {
		struct conn c = { .fd = accept(lfd, NULL, NULL) };
		if (c.fd < 0)
			continue;
		while (fill(&c)) {
			int seq, v;
			while (next_line(&c, line, sizeof line))
				if (sscanf(line, "FWD %d %d", &seq, &v) == 2) {
					append(v);
					snprintf(reply, sizeof reply, "OK %d\n", seq);
					send_str(c.fd, reply);
				}
		}
		close(c.fd);
	}
}

struct write {
	int val, client, acks, done;
};

static void primary(int lfd, int base, int npeers)
{
	struct conn peers[MAXPEERS], clients[MAXCONN];
	int majority = (npeers + 1) / 2 + 1;
	struct write w[MAXLOG + 1];
	int nclients = 0, seq = 0, confirmed = 0;
	char line[128], msg[64];

	for (int i = 0; i < npeers; i++) {
		peers[i].fd = dial(base + 1 + i);
		peers[i].len = 0;
	}
	for (;;) {
		struct pollfd p[1 + MAXPEERS + MAXCONN];
		int n = 0;
		p[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < npeers; i++)
			p[n++] = (struct pollfd){ .fd = peers[i].fd, .events = POLLIN };
		for (int i = 0; i < nclients; i++)
			p[n++] = (struct pollfd){ .fd = clients[i].fd, .events = POLLIN };
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			exit(1);
		}
		if ((p[0].revents & POLLIN) && nclients < MAXCONN) {
			int fd = accept(lfd, NULL, NULL);
			if (fd >= 0)
				clients[nclients++] = (struct conn){ .fd = fd };
		}
		for (int i = 0; i < npeers; i++) {
			if (!(p[1 + i].revents & (POLLIN | POLLHUP)) || !fill(&peers[i]))
				continue;
			int s;
			while (next_line(&peers[i], line, sizeof line))
				if (sscanf(line, "OK %d", &s) == 1 && s >= 1 && s <= seq) {
					if (s > confirmed)
						confirmed = s;
#ifdef BUG
					struct write *x = &w[seq]; /* credits the latest write */
#else
					struct write *x = &w[s];
#endif
					if (++x->acks >= majority && !x->done) {
						x->done = 1;
						snprintf(msg, sizeof msg, "ACK %d\n", x->val);
						send_str(x->client, msg);
					}
				}
		}
		for (int i = 0; i < nclients; i++) {
			if (!(p[1 + npeers + i].revents & (POLLIN | POLLHUP)) || !fill(&clients[i]))
				continue;
			int v;
			while (next_line(&clients[i], line, sizeof line))
				if (sscanf(line, "WRITE %d", &v) == 1 && seq < MAXLOG) {
					seq++;
					w[seq] = (struct write){ .val = v, .client = clients[i].fd, .acks = 1 };
					append(v);
					snprintf(msg, sizeof msg, "FWD %d %d\n", seq, v);
					for (int k = 0; k < npeers; k++)
						send_str(peers[k].fd, msg);
				} else if (strcmp(line, "READ") == 0) {
					snprintf(msg, sizeof msg, "VAL %d\n", confirmed ? w[confirmed].val : 0);
					send_str(clients[i].fd, msg);
				}
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s ID NODES BASE_PORT\n", argv[0]);
		return 2;
	}
	int id = atoi(argv[1]), nodes = atoi(argv[2]), base = atoi(argv[3]);
	if (nodes < 2 || nodes > MAXPEERS + 1) {
		fprintf(stderr, "quorum: NODES must be 2..%d, not %d\n", MAXPEERS + 1, nodes);
		return 2;
	}
	int lfd = listen_on(base + id);
	if (id == 0)
		primary(lfd, base, nodes - 1);
	else
		backup(lfd);
	return 0;
}
