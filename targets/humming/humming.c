/*
 * humming: Humming Consensus, after Machi's chain manager (Fritchie,
 * "Humming Consensus", Machi design docs, Basho 2015), managing a chain-
 * replicated key-value store on NODES (3) nodes, in C with ordinary
 * sockets.
 *
 * Clients connect over TCP to port BASE_PORT+id and send lines
 *     PUT <key> <value> <client> <seq>     answered "OK"
 *     GET <key> <client> <seq>             answered "VAL <value>" ("VAL" if none)
 *
 * Projections. A projection is an epoch and a chain (the UPI: the nodes
 * that serve, head first, in id order). Every node has a public projection
 * store, write-once and monotone (a write of an epoch not above the latest
 * is refused), kept in the file "public" of its data directory and
 * fsync'd, and a private (adopted) projection, the one it serves under.
 *
 * The chain manager hums: every 25 ms of the node's own clock it reads the
 * latest projection of every store it can reach (READ/STORE over UDP). If
 * the latest one is the same in every reachable store (unanimous) and its
 * chain is exactly the reachable nodes, the node adopts it; otherwise the
 * lowest reachable node proposes the next epoch with the reachable nodes
 * as its chain, writing it to every reachable store. Only a majority may
 * form a chain. Every round a node also tells the others the projection it
 * adopted (PROJ), and a node adopts a reported projection that is newer
 * than its own. A restarted node adopts nothing at or below the epoch its store had
 * when it came back (it may have served there).
 *
 * Data path (chain replication with epoch checks): a node forwards its
 * client's request to the head of its chain; the head gives a write the
 * next version (epoch · 10000 + seq) and sends the operation down the
 * chain with its whole key-value state; every member serves only
 * operations of its own private epoch, merges the state it receives (the
 * higher version of each key wins) and passes it on; the tail answers the
 * node the client asked (DONE). Reads travel the whole chain too.
 *
 * Built with -DBUG, a node adopts a reported projection without checking
 * that its epoch is newer than the one it serves: a report from a node
 * still in an old epoch takes the others back to it, the old chain serves
 * writes again beside the new one, and its head reuses versions the new
 * epoch's writes already hold.
 *
 * usage: humming ID NODES BASE_PORT
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
#include <time.h>
#include <unistd.h>

#define KEYS 4
#define MAXCL 16
#define MAXPEND 16
#define MAXN 5
#define HUM_MS 25

/* Declared state (the model reads these). */
int epoch;      /* the private projection's epoch (0: none adopted) */
int upi;        /* its chain, as a bit mask of nodes */
int val[KEYS];  /* the key-value state */
int ver[KEYS];  /* each key's version: epoch · 10000 + seq (0: never written) */
int adoptions;  /* projections adopted so far */

struct proj {
	int epoch, upi;
};

static struct proj pub;      /* the public store's latest projection (durable) */
static int floor_epoch;      /* after a restart: adopt only above this */
static int dfd, udp, lfd, id, nodes, base;
static int seq;              /* the head's last version sequence in this epoch */
static int hum_round;
static struct proj seen[MAXN]; /* each node's latest public projection, this round */
static int seen_round[MAXN];
static long long deadline;

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

static int encode(int op, int key, int v, int c, int q)
{
	return 1 + v + 64 * (key + KEYS * (op + 2 * (q + 64 * c)));
}
static int cmd_val(int cmd) { return (cmd - 1) % 64; }
static int cmd_key(int cmd) { return ((cmd - 1) / 64) % KEYS; }
static int cmd_op(int cmd) { return ((cmd - 1) / 64 / KEYS) % 2; }

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static int majority(int mask) { return __builtin_popcount((unsigned)mask) * 2 > nodes; }
static int head_of(int mask) { return mask ? __builtin_ctz((unsigned)mask) : -1; }

/* next_of is the member after n in the chain, -1 for the tail. */
static int next_of(int mask, int n)
{
	for (int k = n + 1; k < nodes; k++)
		if (mask & (1 << k))
			return k;
	return -1;
}

static void store_write(struct proj p)
{
	pub = p;
	if (pwrite(dfd, &pub, sizeof pub, 0) != (ssize_t)sizeof pub || fsync(dfd) < 0) {
		perror("public");
		exit(1);
	}
}

static void load(void)
{
	dfd = open("public", O_RDWR | O_CREAT, 0644);
	if (dfd < 0) {
		perror("public");
		exit(1);
	}
	if (pread(dfd, &pub, sizeof pub, 0) != (ssize_t)sizeof pub)
		memset(&pub, 0, sizeof pub);
	floor_epoch = pub.epoch;
}

static void send_to(int to, const char *msg)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(base + 10 + to)),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	sendto(udp, msg, strlen(msg), 0, (struct sockaddr *)&a, sizeof a);
}

static void reply(int fd, const char *s)
{
	if (fd >= 0)
		send(fd, s, strlen(s), 0);
}

static void report(void)
{
	char msg[64];
	snprintf(msg, sizeof msg, "PROJ %d %d %d", id, epoch, upi);
	for (int k = 0; k < nodes; k++)
		if (k != id)
			send_to(k, msg);
}

static void adopt(struct proj p)
{
	epoch = p.epoch;
	upi = p.upi;
	seq = 0; /* a new epoch's versions start over */
	adoptions++;
}

/* acceptable reports whether p may replace the private projection. */
static int acceptable(struct proj p)
{
	if (p.epoch <= floor_epoch)
		return 0;
#ifdef BUG
	return p.epoch != epoch || p.upi != upi; /* any other projection */
#else
	return p.epoch > epoch;
#endif
}

/* on_write writes a proposed projection to the public store: write-once,
 * so only an epoch above the latest (the proposer reads the outcome in
 * its next round). */
static void on_write(int e, int mask)
{
	if (e > pub.epoch)
		store_write((struct proj){ e, mask });
}

/* hum is one round of the chain manager: decide on the last round's
 * reads, then read again. */
static void hum(void)
{
	int up = 1 << id, unanimous = 1;
	struct proj latest = pub;
	for (int k = 0; k < nodes; k++) {
		if (k == id || seen_round[k] != hum_round)
			continue;
		up |= 1 << k;
		if (seen[k].epoch > latest.epoch)
			latest = seen[k];
	}
	if (pub.epoch != latest.epoch || pub.upi != latest.upi)
		unanimous = 0;
	for (int k = 0; k < nodes; k++)
		if ((up & (1 << k)) && k != id && (seen[k].epoch != latest.epoch || seen[k].upi != latest.upi))
			unanimous = 0;
	if (majority(up)) {
		if (unanimous && latest.upi == up && latest.epoch > floor_epoch) {
			if (latest.epoch != epoch && acceptable(latest))
				adopt(latest);
		} else if (head_of(up) == id || (unanimous && latest.epoch <= floor_epoch)) {
			char msg[64];
			struct proj q = { latest.epoch + 1, up };
			store_write(q);
			snprintf(msg, sizeof msg, "WRITE %d %d %d", id, q.epoch, q.upi);
			for (int k = 0; k < nodes; k++)
				if (k != id && (up & (1 << k)))
					send_to(k, msg);
		}
	}
	hum_round++;
	char msg[64];
	snprintf(msg, sizeof msg, "READ %d %d", id, hum_round);
	for (int k = 0; k < nodes; k++)
		if (k != id)
			send_to(k, msg);
	if (epoch)
		report();
}

/* finish answers the client waiting for cmd. */
static void finish(int cmd, int has, int v)
{
	char out[64];
	for (int k = 0; k < npend; k++) {
		if (pend[k].cmd != cmd)
			continue;
		if (cmd_op(cmd) == 1)
			snprintf(out, sizeof out, "OK\n");
		else if (has)
			snprintf(out, sizeof out, "VAL %d\n", v);
		else
			snprintf(out, sizeof out, "VAL\n");
		reply(pend[k].fd, out);
		pend[k] = pend[--npend];
		return;
	}
}

/* op_msg formats an operation with this node's whole state. */
static void op_msg(char *msg, size_t size, int origin, int cmd, int v)
{
	int n = snprintf(msg, size, "OP %d %d %d %d %d", id, epoch, origin, cmd, v);
	for (int k = 0; k < KEYS; k++)
		n += snprintf(msg + n, size - (size_t)n, " %d:%d", val[k], ver[k]);
}

static void pass_on(int origin, int cmd)
{
	char msg[256];
	int next = next_of(upi, id);
	if (next >= 0) {
		op_msg(msg, sizeof msg, origin, cmd, 0);
		send_to(next, msg);
		return;
	}
	/* The tail: the operation is done. */
	int key = cmd_key(cmd);
	if (origin == id) {
		finish(cmd, ver[key] != 0, val[key]);
		return;
	}
	snprintf(msg, sizeof msg, "DONE %d %d %d %d", id, cmd, ver[key] ? 1 : 0, val[key]);
	send_to(origin, msg);
}

/* start runs at the head: a write gets its version, then down the chain. */
static void start(int origin, int cmd)
{
	if (!epoch || head_of(upi) != id)
		return;
	if (cmd_op(cmd) == 1) {
		int key = cmd_key(cmd);
		val[key] = cmd_val(cmd);
		ver[key] = epoch * 10000 + ++seq;
	}
	if (next_of(upi, id) < 0 && origin == id) { /* a chain of one */
		int key = cmd_key(cmd);
		finish(cmd, ver[key] != 0, val[key]);
		return;
	}
	pass_on(origin, cmd);
}

static void on_op(int from, int e, int origin, int cmd, char *rest)
{
	if (!epoch || e != epoch || !(upi & (1 << id)) || !(upi & (1 << from)))
		return; /* not our epoch: refused */
	int v, r, n;
	for (int k = 0; k < KEYS && sscanf(rest, " %d:%d%n", &v, &r, &n) == 2; k++) {
		if (r > ver[k])
			val[k] = v, ver[k] = r;
		rest += n;
	}
	pass_on(origin, cmd);
}

static void on_message(char *m)
{
	int a[6], n;
	char type[16];
	if (sscanf(m, "%15s %d%n", type, &a[0], &n) != 2 || a[0] < 0 || a[0] >= nodes)
		return;
	int from = a[0];
	char *rest = m + n;
	char msg[64];
	if (!strcmp(type, "READ") && sscanf(rest, "%d", &a[1]) == 1) {
		snprintf(msg, sizeof msg, "STORE %d %d %d %d", id, a[1], pub.epoch, pub.upi);
		send_to(from, msg);
	} else if (!strcmp(type, "STORE") && sscanf(rest, "%d %d %d", &a[1], &a[2], &a[3]) == 3) {
		if (a[1] == hum_round) {
			seen_round[from] = a[1];
			seen[from] = (struct proj){ a[2], a[3] };
		}
	} else if (!strcmp(type, "WRITE") && sscanf(rest, "%d %d", &a[1], &a[2]) == 2)
		on_write(a[1], a[2]);
	else if (!strcmp(type, "PROJ") && sscanf(rest, "%d %d", &a[1], &a[2]) == 2) {
		struct proj p = { a[1], a[2] };
		if (p.epoch && majority(p.upi) && acceptable(p))
			adopt(p);
	} else if (!strcmp(type, "REQ") && sscanf(rest, "%d", &a[1]) == 1)
		start(from, a[1]);
	else if (!strcmp(type, "OP") && sscanf(rest, "%d %d %d %d%n", &a[1], &a[2], &a[3], &a[4], &n) == 4)
		on_op(from, a[1], a[2], a[3], rest + n);
	else if (!strcmp(type, "DONE") && sscanf(rest, "%d %d %d", &a[1], &a[2], &a[3]) == 3)
		finish(a[1], a[2], a[3]);
}

/* forward sends a client's command to the head of this node's chain. */
static void forward(int cmd)
{
	char msg[64];
	int h = head_of(upi);
	if (!epoch || h < 0)
		return; /* no chain: the client times out */
	if (h == id) {
		start(id, cmd);
		return;
	}
	snprintf(msg, sizeof msg, "REQ %d %d", id, cmd);
	send_to(h, msg);
}

static void on_client(char *line, int fd)
{
	int key, v = 0, c, q, cmd;
	if (sscanf(line, "PUT %d %d %d %d", &key, &v, &c, &q) == 4)
		cmd = encode(1, key, v, c, q);
	else if (sscanf(line, "GET %d %d %d", &key, &c, &q) == 3)
		cmd = encode(0, key, 0, c, q);
	else
		return;
	if (key < 0 || key >= KEYS || v < 0 || v >= 64 || npend >= MAXPEND)
		return;
	pend[npend++] = (struct pend){ .cmd = cmd, .fd = fd };
	forward(cmd); /* once: a lost operation is the client's to time out */
}

static void client_input(struct client *k)
{
	ssize_t r = recv(k->fd, k->buf + k->len, sizeof k->buf - k->len - 1, 0);
	if (r <= 0) {
		close(k->fd);
		for (int j = 0; j < npend; j++)
			if (pend[j].fd == k->fd)
				pend[j] = pend[--npend], j--;
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
	if (nodes > MAXN || id < 0 || id >= nodes) {
		fprintf(stderr, "humming: at most %d nodes\n", MAXN);
		return 2;
	}
	load();
	udp = bind_to(SOCK_DGRAM, base + 10 + id);
	lfd = bind_to(SOCK_STREAM, base + id);
	deadline = now_ms() + HUM_MS;
	hum();
	for (;;) {
		struct pollfd p[2 + MAXCL];
		p[0] = (struct pollfd){ .fd = udp, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < ncl; i++)
			p[2 + i] = (struct pollfd){ .fd = cl[i].fd, .events = POLLIN };
		long long wait = deadline - now_ms();
		int r = poll(p, (nfds_t)(2 + ncl), wait < 0 ? 0 : (int)wait);
		if (r < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		if (r > 0 && (p[0].revents & POLLIN)) {
			char m[512];
			ssize_t n = recv(udp, m, sizeof m - 1, 0);
			if (n > 0) {
				m[n] = '\0';
				on_message(m);
			}
		}
		if (r > 0 && (p[1].revents & POLLIN) && ncl < MAXCL) {
			int fd = accept(lfd, NULL, NULL);
			if (fd >= 0)
				cl[ncl++] = (struct client){ .fd = fd };
		}
		for (int i = ncl - 1; r > 0 && i >= 0; i--)
			if (p[2 + i].revents & (POLLIN | POLLHUP))
				client_input(&cl[i]);
		if (now_ms() >= deadline) {
			deadline = now_ms() + HUM_MS;
			hum();
		}
	}
}
