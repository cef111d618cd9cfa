/*
 * paxos: Multi-Paxos, a replicated log of commands behind a key-value
 * client API, on NODES (3) nodes. Each node is a proposer, an acceptor and
 * a learner.
 *
 * Clients connect over TCP to port BASE_PORT+id and send lines
 *     PUT <key> <value> <client> <seq>     answered "OK"
 *     GET <key> <client> <seq>             answered "VAL <value>" ("VAL" if none)
 * A node that receives a command proposes it for a slot of the log; it
 * answers once the command is chosen and applied there, in slot order.
 *
 * Nodes talk over UDP (port BASE_PORT+10+id): a proposer with commands to
 * place picks a ballot above every one it has seen (round·NODES + id),
 * sends PREPARE to every acceptor, and with promises from a majority
 * leads: it re-proposes, slot by slot, the value accepted with the highest
 * ballot among the promises, and places its own commands in free slots
 * (ACCEPT). A value accepted by a majority at one ballot is chosen; the
 * leader tells every node (CHOSEN). A rejection (NACK) with a higher
 * ballot ends its leadership; a timer retries.
 *
 * An acceptor's promise and accepted values live in the file "acceptor"
 * of its data directory and are made durable (fsync) before it replies.
 * Built with -DBUG, it answers a PREPARE before its promise is durable:
 * after a crash that loses unsynced writes it has forgotten the promise,
 * accepts a lower ballot, and two values can be chosen for one slot.
 *
 * usage: paxos ID NODES BASE_PORT
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SLOTS 16
#define KEYS 8
#define MAXCL 16
#define MAXPEND 16

/* Declared state (the model reads these). */
int chosen[SLOTS]; /* the command this node learned for each slot, 0 = none */
int applied;       /* slots applied, in order */
int promised;      /* the acceptor's promise (what it replies from) */
int ballot;        /* the proposer's ballot */

struct disk {
	int promised;
	int acc_bal[SLOTS];
	int acc_val[SLOTS];
};

static struct disk d;
static int dfd, udp, lfd, id, nodes, base;
static int kv[KEYS], kvset[KEYS];
static int done_cmds[SLOTS], ndone; /* commands applied, to apply each once */

/* Proposer state. */
static int max_seen, preparing, leading, promises;
static int p_bal[SLOTS], p_val[SLOTS]; /* highest accepted among promises */
static int prop_val[SLOTS];            /* what this leader proposes per slot */
static int acks[SLOTS];                /* bitmask of acceptors that accepted */

struct pend {
	int cmd, fd;
};
static struct pend pend[MAXPEND];
static int npend;

struct client {
	int fd;
	char buf[256];
	size_t len;
};
static struct client cl[MAXCL];
static int ncl;

/* Messages to this node itself skip the network. */
static char inbox[32][512];
static int nin;

/* cmd encodes op (0 get, 1 put), key, value, client and seq uniquely. */
static int encode(int op, int key, int val, int c, int q)
{
	return 1 + val + 64 * (key + KEYS * (op + 2 * (q + 64 * c)));
}
static int cmd_val(int cmd) { return (cmd - 1) % 64; }
static int cmd_key(int cmd) { return ((cmd - 1) / 64) % KEYS; }
static int cmd_op(int cmd) { return ((cmd - 1) / 64 / KEYS) % 2; }

static void persist(int sync)
{
	if (pwrite(dfd, &d, sizeof d, 0) != (ssize_t)sizeof d) {
		perror("pwrite");
		exit(1);
	}
	if (sync && fsync(dfd) < 0) {
		perror("fsync");
		exit(1);
	}
	promised = d.promised;
}

static void load(void)
{
	dfd = open("acceptor", O_RDWR | O_CREAT, 0644);
	if (dfd < 0) {
		perror("acceptor");
		exit(1);
	}
	if (pread(dfd, &d, sizeof d, 0) != (ssize_t)sizeof d)
		memset(&d, 0, sizeof d);
	promised = d.promised;
	max_seen = d.promised;
}

static void send_to(int to, const char *msg)
{
	if (to == id) {
		if (nin < 32)
			snprintf(inbox[nin++], sizeof inbox[0], "%s", msg);
		return;
	}
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(base + 10 + to)),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	sendto(udp, msg, strlen(msg), 0, (struct sockaddr *)&a, sizeof a);
}

static void broadcast(const char *msg)
{
	for (int i = 0; i < nodes; i++)
		send_to(i, msg);
}

static void reply(int fd, const char *s)
{
	if (fd >= 0)
		send(fd, s, strlen(s), 0);
}

/* proposed reports whether cmd already has a slot in this leader's plan
 * or is chosen. */
static int placed(int cmd)
{
	for (int s = 0; s < SLOTS; s++)
		if (chosen[s] == cmd || (!chosen[s] && prop_val[s] == cmd))
			return 1;
	return 0;
}

static void propose(int s, int cmd)
{
	char msg[96];
	prop_val[s] = cmd;
	acks[s] = 0;
	snprintf(msg, sizeof msg, "ACCEPT %d %d %d %d", ballot, s, cmd, id);
	broadcast(msg);
}

/* place gives every pending command without a slot the next free one. */
static void place(void)
{
	for (int k = 0; k < npend; k++) {
		if (placed(pend[k].cmd))
			continue;
		for (int s = 0; s < SLOTS; s++)
			if (!chosen[s] && !prop_val[s]) {
				propose(s, pend[k].cmd);
				break;
			}
	}
}

static void start_prepare(void)
{
	char msg[96];
	/* A new ballot only when a higher one has been seen: a retry after a
	 * timeout (lost messages) prepares the same ballot again. */
	if (ballot == 0 || max_seen > ballot)
		ballot = (max_seen / nodes + 1) * nodes + id;
	if (ballot > max_seen)
		max_seen = ballot;
	preparing = 1;
	leading = 0;
	promises = 0;
	memset(p_bal, 0, sizeof p_bal);
	memset(p_val, 0, sizeof p_val);
	memset(prop_val, 0, sizeof prop_val);
	snprintf(msg, sizeof msg, "PREPARE %d %d", ballot, id);
	broadcast(msg);
}

static void apply(void)
{
	char out[64];
	while (applied < SLOTS && chosen[applied]) {
		int cmd = chosen[applied++], dup = 0;
		for (int k = 0; k < ndone; k++)
			dup |= done_cmds[k] == cmd;
		if (dup)
			continue;
		done_cmds[ndone++] = cmd;
		if (cmd_op(cmd) == 1)
			kv[cmd_key(cmd)] = cmd_val(cmd), kvset[cmd_key(cmd)] = 1;
		for (int k = 0; k < npend; k++) {
			if (pend[k].cmd != cmd)
				continue;
			if (cmd_op(cmd) == 1)
				snprintf(out, sizeof out, "OK\n");
			else if (kvset[cmd_key(cmd)])
				snprintf(out, sizeof out, "VAL %d\n", kv[cmd_key(cmd)]);
			else
				snprintf(out, sizeof out, "VAL\n"); /* no value yet */
			reply(pend[k].fd, out);
			pend[k] = pend[--npend];
			break;
		}
	}
}

static void on_prepare(int b, int from)
{
	char msg[96 * 4];
	if (b < d.promised) {
		snprintf(msg, sizeof msg, "NACK %d", d.promised);
		send_to(from, msg);
		return;
	}
	d.promised = b;
#ifdef BUG
	persist(0); /* replies before the promise is durable */
#else
	persist(1);
#endif
	int n = snprintf(msg, sizeof msg, "PROMISE %d %d", b, id);
	for (int s = 0; s < SLOTS; s++)
		if (d.acc_bal[s])
			n += snprintf(msg + n, sizeof msg - (size_t)n, " %d:%d:%d", s, d.acc_bal[s], d.acc_val[s]);
	send_to(from, msg);
}

static void on_promise(int b, int from, char *rest)
{
	if (!preparing || b != ballot || (promises & (1 << from)))
		return;
	promises |= 1 << from;
	int s, ab, av, n;
	while (sscanf(rest, " %d:%d:%d%n", &s, &ab, &av, &n) == 3) {
		if (s >= 0 && s < SLOTS && ab > p_bal[s])
			p_bal[s] = ab, p_val[s] = av;
		rest += n;
	}
	if (__builtin_popcount((unsigned)promises) * 2 <= nodes)
		return;
	preparing = 0;
	leading = 1;
	for (s = 0; s < SLOTS; s++)
		if (!chosen[s] && p_bal[s])
			propose(s, p_val[s]);
	place();
}

static void on_accept(int b, int s, int v, int from)
{
	char msg[96];
	if (s < 0 || s >= SLOTS)
		return;
	if (b < d.promised) {
		snprintf(msg, sizeof msg, "NACK %d", d.promised);
		send_to(from, msg);
		return;
	}
	d.promised = b;
	d.acc_bal[s] = b;
	d.acc_val[s] = v;
	persist(1);
	snprintf(msg, sizeof msg, "ACCEPTED %d %d %d %d", b, s, v, id);
	send_to(from, msg);
}

static void on_accepted(int b, int s, int v, int from)
{
	char msg[96];
	/* Counted as a learner: a majority at one ballot chose v, whether
	 * this proposer still leads or not. */
	if (b != ballot || s < 0 || s >= SLOTS || prop_val[s] != v)
		return;
	acks[s] |= 1 << from;
	if (__builtin_popcount((unsigned)acks[s]) * 2 <= nodes)
		return;
	snprintf(msg, sizeof msg, "CHOSEN %d %d", s, v);
	broadcast(msg);
}

static void on_chosen(int s, int v)
{
	if (s < 0 || s >= SLOTS || chosen[s])
		return;
	chosen[s] = v;
	if (prop_val[s] && prop_val[s] != v)
		prop_val[s] = 0;
	apply();
	if (leading)
		place();
}

static void on_message(char *m)
{
	int a, b, c, e, n;
	if (sscanf(m, "PREPARE %d %d", &a, &b) == 2) {
		if (a > max_seen)
			max_seen = a;
		on_prepare(a, b);
	} else if (sscanf(m, "PROMISE %d %d%n", &a, &b, &n) == 2)
		on_promise(a, b, m + n);
	else if (sscanf(m, "ACCEPT %d %d %d %d", &a, &b, &c, &e) == 4) {
		if (a > max_seen)
			max_seen = a;
		on_accept(a, b, c, e);
	} else if (sscanf(m, "ACCEPTED %d %d %d %d", &a, &b, &c, &e) == 4)
		on_accepted(a, b, c, e);
	else if (sscanf(m, "CHOSEN %d %d", &a, &b) == 2)
		on_chosen(a, b);
	else if (sscanf(m, "NACK %d", &a) == 1 && a > ballot) {
		if (a > max_seen)
			max_seen = a;
		leading = preparing = 0;
	}
}

/* on_client handles one request line from client connection fd. */
static void on_client(char *line, int fd)
{
	int key, val, c, q, cmd;
	if (sscanf(line, "PUT %d %d %d %d", &key, &val, &c, &q) == 4)
		cmd = encode(1, key, val, c, q);
	else if (sscanf(line, "GET %d %d %d", &key, &c, &q) == 3)
		cmd = encode(0, key, 0, c, q);
	else
		return;
	if (key < 0 || key >= KEYS || val < 0 || val >= 64 || npend >= MAXPEND)
		return;
	pend[npend++] = (struct pend){ .cmd = cmd, .fd = fd };
	if (leading)
		place();
	else if (!preparing)
		start_prepare();
}

static void client_input(struct client *k)
{
	ssize_t r = recv(k->fd, k->buf + k->len, sizeof k->buf - k->len - 1, 0);
	if (r <= 0) {
		close(k->fd);
		for (int j = 0; j < npend; j++)
			if (pend[j].fd == k->fd)
				pend[j].fd = -1;
		*k = cl[--ncl];
		return;
	}
	k->len += (size_t)r;
	char *nl;
	while ((nl = memchr(k->buf, '\n', k->len))) {
		*nl = '\0';
		on_client(k->buf, k->fd);
		k->len -= (size_t)(nl + 1 - k->buf);
		memmove(k->buf, nl + 1, k->len);
	}
}

static void timeout(void)
{
	if (!npend)
		return;
	if (!leading) {
		start_prepare();
		return;
	}
	for (int s = 0; s < SLOTS; s++) /* resend what is not yet chosen */
		if (prop_val[s] && !chosen[s])
			propose(s, prop_val[s]);
}

static int bind_to(int type, int port)
{
	int fd = socket(AF_INET, type, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || (type == SOCK_STREAM && listen(fd, 16) < 0)) {
		perror("bind");
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s ID NODES BASE_PORT\n", argv[0]);
		return 2;
	}
	id = atoi(argv[1]);
	nodes = atoi(argv[2]);
	base = atoi(argv[3]);
	load();
	udp = bind_to(SOCK_DGRAM, base + 10 + id);
	lfd = bind_to(SOCK_STREAM, base + id);
	for (;;) {
		while (nin > 0) {
			char m[512];
			memcpy(m, inbox[0], sizeof m);
			memmove(inbox[0], inbox[1], (size_t)(--nin) * sizeof inbox[0]);
			on_message(m);
		}
		struct pollfd p[2 + MAXCL];
		p[0] = (struct pollfd){ .fd = udp, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < ncl; i++)
			p[2 + i] = (struct pollfd){ .fd = cl[i].fd, .events = POLLIN };
		int r = poll(p, (nfds_t)(2 + ncl), npend ? 40 + 15 * id : -1);
		if (r < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		if (r == 0) {
			timeout();
			continue;
		}
		if (p[0].revents & POLLIN) {
			char m[512];
			ssize_t n = recv(udp, m, sizeof m - 1, 0);
			if (n > 0) {
				m[n] = '\0';
				on_message(m);
			}
		}
		if ((p[1].revents & POLLIN) && ncl < MAXCL) {
			int fd = accept(lfd, NULL, NULL);
			if (fd >= 0)
				cl[ncl++] = (struct client){ .fd = fd };
		}
		for (int i = ncl - 1; i >= 0; i--)
			if (p[2 + i].revents & (POLLIN | POLLHUP))
				client_input(&cl[i]);
	}
}
