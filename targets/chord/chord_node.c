/*
 * chord_node — one node of a Chord ring: ring maintenance only (join,
 * stabilize, notify, reconcile, update, flush), successor list of length 2.
 *
 * Protocol sources: Stoica et al., SIGCOMM 2001 (join, stabilize, notify);
 * Liben-Nowell, Balakrishnan, Karger, PODC 2002 (successor lists and the
 * reconcile/update/flush recovery); Zave, SIGCOMM CCR 2012 and IEEE TSE 2017
 * (which adoptions must consult liveness).  See README.md and
 * /work/shared/design/chord-spec.md.
 *
 * Usage:
 *   chord_node --ids 1,22,43,4,25,46 --index I --base-port P
 *              [--base 3] [--bootstrap 0] [--tick-us 15000] [--start-tick 0]
 *
 * Node I has chord id ids[I] and listens on 127.0.0.1:(P + I).  Nodes
 * 0 .. base-1 start as a correct ring of their ids; the others start outside
 * the ring and join through node `bootstrap`.  Every TICK_US microseconds a
 * node runs one maintenance round (a tick); rounds before --start-tick are
 * skipped, which gives a set of nodes started one by one time to open their
 * listeners before anyone talks to them.
 *
 * Wire protocol: one TCP connection per request.  The client connects, sends
 * one request line, reads one reply line, closes.  Lines are ASCII, fields
 * separated by one space, ids in decimal, -1 for "unset":
 *   PING <from>          ->  PONG <me>
 *   GETPRED <from>       ->  PRED <me> <pred>
 *   GETSUCC <from>       ->  SUCC <me> <s1> <s2>
 *   NOTIFY <from>        ->  OK <me>
 *   FIND <from> <key>    ->  FOUND <me> <s> | NEXT <me> <s> | NONE <me>
 *   DEAD <node index>    ->  OK <me>      (a failure detector's death notice)
 * A node learns that a peer is dead only from the network: a refused
 * connect, a connection reset/closed before the reply arrived, or a death
 * notice from the environment's failure detector, itself delayed.
 *
 * CHORD_CHECKS selects which pointer adoptions consult that knowledge, one
 * bit per check (any of the 16 masks):
 *   1  stabilize refuses a known-dead new successor
 *   2  reconcile refuses a known-dead succ2
 *   4  update does not promote a known-dead succ2
 *   8  the GETSUCC/FIND responder leaves known-dead nodes out of its list
 * CHORD_FIX names three of the masks, the levels of the experiment:
 *   0  none (the 2001 protocol)                    CHORD_CHECKS = 0
 *   1  the single stabilize fix                    CHORD_CHECKS = 1
 *   2  the full discipline (all four checks)       CHORD_CHECKS = 15
 * Defining both is an error; defining neither builds level 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHECK_STABILIZE 1 /* stabilize's adoption of the successor's predecessor */
#define CHECK_RECONCILE 2 /* reconcile's adoption of the successor's successor */
#define CHECK_UPDATE 4    /* update's promotion of succ2 */
#define CHECK_RESPONDER 8 /* the GETSUCC/FIND responder's reported list */

#if defined(CHORD_CHECKS) && defined(CHORD_FIX)
#error "define CHORD_CHECKS or CHORD_FIX, not both"
#endif
#ifndef CHORD_CHECKS
#ifndef CHORD_FIX
#define CHORD_FIX 2
#endif
#if CHORD_FIX == 0
#define CHORD_CHECKS 0
#elif CHORD_FIX == 1
#define CHORD_CHECKS CHECK_STABILIZE
#elif CHORD_FIX == 2
#define CHORD_CHECKS (CHECK_STABILIZE | CHECK_RECONCILE | CHECK_UPDATE | CHECK_RESPONDER)
#else
#error "CHORD_FIX must be 0, 1 or 2"
#endif
#endif
#if CHORD_CHECKS < 0 || CHORD_CHECKS > 15
#error "CHORD_CHECKS must be a mask of 4 bits, 0 to 15"
#endif
/* The level a mask names, as printed in the start line, or -1. */
#if CHORD_CHECKS == 0
#define CHORD_LEVEL 0
#elif CHORD_CHECKS == CHECK_STABILIZE
#define CHORD_LEVEL 1
#elif CHORD_CHECKS == 15
#define CHORD_LEVEL 2
#else
#define CHORD_LEVEL (-1)
#endif
#define CHECKING(bit) ((CHORD_CHECKS & (bit)) != 0)

#define RING_BITS 6
#define RING_SIZE (1 << RING_BITS)
#define MAX_NODES RING_SIZE
#define MAX_CONNS 32
#define LINE_MAX_LEN 96
#define REQUEST_TIMEOUT_TICKS 16 /* abandon (not: declare dead) after this */
#define MAX_FIND_HOPS RING_SIZE

/*
 * Node state.  A checker reads these by symbol while the node is blocked,
 * so they live in memory (volatile) and keep these names.
 * Pointers hold chord ids; -1 means unset.
 */
volatile int32_t chord_id = -1;
volatile int32_t succ = -1;
volatile int32_t succ2 = -1;
volatile int32_t pred = -1;
volatile uint64_t known_dead; /* bit i: chord id i is known to be dead */

static volatile sig_atomic_t stop_requested;

/* Static configuration from argv. */
static struct {
	int32_t ids[MAX_NODES];
	int nids;
	int index;
	int base_port;
	int nbase;
	int bootstrap;
	int64_t tick_us;
	int64_t start_tick;
} cfg = {.nbase = 3, .base_port = -1, .index = -1, .tick_us = 15000};

enum kind { REQ_PING, REQ_GETPRED, REQ_GETSUCC, REQ_NOTIFY, REQ_FIND };
static const char *const kind_name[] = {"PING", "GETPRED", "GETSUCC", "NOTIFY", "FIND"};

/* One open connection: a request we sent, or one we accepted. */
struct conn {
	int fd; /* -1: slot free */
	uint64_t serial; /* tells a reused slot (and fd number) from its predecessor */
	int outgoing;
	enum kind kind; /* outgoing only */
	int32_t peer;   /* outgoing only: chord id of the server */
	int32_t key;    /* FIND only */
	int hops;       /* FIND only */
	int64_t deadline_us; /* outgoing only */
	size_t len;
	char buf[LINE_MAX_LEN];
};

static struct conn conns[MAX_CONNS];
static uint64_t next_serial;
static int listen_fd = -1;
static int64_t tick_count;

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* between(a, b, c): b lies strictly inside the clockwise arc from a to c. */
static int between(int32_t a, int32_t b, int32_t c)
{
	if (a < c)
		return a < b && b < c;
	return b > a || b < c;
}

static int is_dead(int32_t id)
{
	return id >= 0 && ((known_dead >> id) & 1);
}

static void set_pointer(volatile int32_t *p, const char *name, int32_t v)
{
	if (*p == v)
		return;
	printf("node %d: %s %d -> %d\n", chord_id, name, *p, v);
	*p = v;
}

/* learn_dead records that the network says id is dead; how says why. */
static void learn_dead(int32_t id, const char *how)
{
	if (id < 0 || id == chord_id || is_dead(id))
		return;
	known_dead |= (uint64_t)1 << id;
	printf("node %d: learned %d dead (%s)\n", chord_id, id, how);
}

static int index_of(int32_t id)
{
	for (int i = 0; i < cfg.nids; i++)
		if (cfg.ids[i] == id)
			return i;
	return -1;
}

/*
 * The successor list this node reports to others.  With CHECK_RESPONDER the
 * responder leaves out nodes it knows to be dead.
 */
static void reported_list(int32_t out[2])
{
	int32_t list[2] = {succ, succ2};
	int n = 0;

	out[0] = out[1] = -1;
	for (int i = 0; i < 2; i++) {
		if (list[i] < 0 || (CHECKING(CHECK_RESPONDER) && is_dead(list[i])))
			continue;
		out[n++] = list[i];
	}
}

/* ---- protocol steps ------------------------------------------------- */

/* stabilize, second half: x is the predecessor our successor reported. */
static void stabilize_adopt(int32_t x)
{
	if (x < 0 || !between(chord_id, x, succ))
		return;
	if (CHECKING(CHECK_STABILIZE) && is_dead(x))
		return;
	set_pointer(&succ, "succ", x);
}

/* reconcile: y is the first entry of our successor's successor list. */
static void reconcile(int32_t y)
{
	if (y < 0 || (y == succ && succ != chord_id))
		return;
	if (CHECKING(CHECK_RECONCILE) && is_dead(y))
		return;
	set_pointer(&succ2, "succ2", y);
}

/* update: replace a successor known to be dead by the second entry. */
static void update(void)
{
	if (!is_dead(succ) || succ2 < 0)
		return;
	if (CHECKING(CHECK_UPDATE) && is_dead(succ2))
		return;
	set_pointer(&succ, "succ", succ2);
	set_pointer(&succ2, "succ2", -1);
}

/* flush: forget a predecessor known to be dead. */
static void flush(void)
{
	if (is_dead(pred))
		set_pointer(&pred, "pred", -1);
}

static void notified(int32_t p)
{
	if (succ < 0 || p < 0 || p == chord_id)
		return;
	if (pred < 0 || between(pred, p, chord_id))
		set_pointer(&pred, "pred", p);
}

/* ---- connections ---------------------------------------------------- */

static struct conn *free_conn(void)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd < 0)
			return &conns[i];
	return NULL;
}

static void close_conn(struct conn *c)
{
	close(c->fd);
	c->fd = -1;
}

static int busy(enum kind k)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0 && conns[i].outgoing && conns[i].kind == k)
			return 1;
	return 0;
}

static int peer_failure(int err)
{
	return err == ECONNREFUSED || err == ECONNRESET || err == EPIPE ||
	       err == ENETUNREACH || err == EHOSTUNREACH || err == ETIMEDOUT;
}

static struct sockaddr_in node_addr(int index)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)(cfg.base_port + index));
	return a;
}

/*
 * Sends request k to the node with chord id peer.  Returns 0 if the request
 * is on its way, -1 if it could not be sent (the peer may now be known dead).
 */
static int send_request(int32_t peer, enum kind k, int32_t key, int hops)
{
	int idx = index_of(peer);
	struct conn *c = free_conn();
	struct sockaddr_in a;
	char line[LINE_MAX_LEN];
	int fd, n;

	if (idx < 0 || c == NULL)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	a = node_addr(idx);
	if (k == REQ_FIND)
		n = snprintf(line, sizeof line, "FIND %d %d\n", chord_id, key);
	else
		n = snprintf(line, sizeof line, "%s %d\n", kind_name[k], chord_id);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		if (peer_failure(errno))
			learn_dead(peer, strerror(errno));
		close(fd);
		return -1;
	}
	if (send(fd, line, (size_t)n, MSG_NOSIGNAL) != n) {
		if (peer_failure(errno))
			learn_dead(peer, strerror(errno));
		close(fd);
		return -1;
	}
	*c = (struct conn){.fd = fd, .serial = ++next_serial, .outgoing = 1, .kind = k, .peer = peer,
			   .key = key, .hops = hops, .deadline_us = now_us() + REQUEST_TIMEOUT_TICKS * cfg.tick_us};
	return 0;
}

/* ---- serving requests ----------------------------------------------- */

static void answer_find(int32_t key, char *out, size_t size)
{
	int32_t list[2];

	reported_list(list);
	if (succ < 0 || list[0] < 0)
		snprintf(out, size, "NONE %d\n", chord_id);
	else if (key == list[0] || between(chord_id, key, list[0]))
		snprintf(out, size, "FOUND %d %d\n", chord_id, list[0]);
	else
		snprintf(out, size, "NEXT %d %d\n", chord_id, list[0]);
}

static void serve(const char *req, char *out, size_t size)
{
	char verb[16];
	int32_t from = -1, key = -1, list[2];

	if (sscanf(req, "%15s %d %d", verb, &from, &key) < 2) {
		snprintf(out, size, "ERR %d\n", chord_id);
	} else if (strcmp(verb, "PING") == 0) {
		snprintf(out, size, "PONG %d\n", chord_id);
	} else if (strcmp(verb, "GETPRED") == 0) {
		snprintf(out, size, "PRED %d %d\n", chord_id, pred);
	} else if (strcmp(verb, "GETSUCC") == 0) {
		reported_list(list);
		snprintf(out, size, "SUCC %d %d %d\n", chord_id, list[0], list[1]);
	} else if (strcmp(verb, "NOTIFY") == 0) {
		notified(from);
		snprintf(out, size, "OK %d\n", chord_id);
	} else if (strcmp(verb, "FIND") == 0) {
		answer_find(key, out, size);
	} else if (strcmp(verb, "DEAD") == 0) {
		/* A failure detector's death notice, "DEAD <node index>": the
		 * environment's word, arriving with network delay. */
		if (from >= 0 && from < cfg.nids)
			learn_dead(cfg.ids[from], "death notice");
		snprintf(out, size, "OK %d\n", chord_id);
	} else {
		snprintf(out, size, "ERR %d\n", chord_id);
	}
}

/* ---- handling replies ----------------------------------------------- */

static void join_reply(const struct conn *c, const char *verb, int32_t s)
{
	if (succ >= 0)
		return;
	if (strcmp(verb, "FOUND") == 0 && s >= 0) {
		set_pointer(&succ, "succ", s);
		printf("node %d: joined via %d\n", chord_id, c->peer);
	} else if (strcmp(verb, "NEXT") == 0 && s >= 0 && c->hops < MAX_FIND_HOPS) {
		send_request(s, REQ_FIND, c->key, c->hops + 1);
	}
}

static void handle_reply(const struct conn *c, const char *line)
{
	char verb[16];
	int32_t from = -1, a = -1, b = -1;

	if (sscanf(line, "%15s %d %d %d", verb, &from, &a, &b) < 2)
		return;
	if (c->kind == REQ_FIND) {
		join_reply(c, verb, a);
		return;
	}
	if (c->kind == REQ_PING || c->peer != succ)
		return; /* a ping needs no action; other replies are stale */
	switch (c->kind) {
	case REQ_GETPRED:
		stabilize_adopt(a);
		send_request(succ, REQ_NOTIFY, 0, 0);
		break;
	case REQ_NOTIFY:
		send_request(succ, REQ_GETSUCC, 0, 0);
		break;
	case REQ_GETSUCC:
		reconcile(a);
		break;
	default:
		break;
	}
}

/* ---- the event loop --------------------------------------------------- */

/* One maintenance round. */
static void tick(void)
{
	if (tick_count < cfg.start_tick)
		return;
	if (succ < 0) {
		if (!busy(REQ_FIND))
			send_request(cfg.ids[cfg.bootstrap], REQ_FIND, chord_id, 0);
		return;
	}
	update();
	flush();
	if (!busy(REQ_GETPRED) && !busy(REQ_NOTIFY) && !busy(REQ_GETSUCC))
		send_request(succ, REQ_GETPRED, 0, 0);
	if (pred >= 0 && pred != chord_id && !busy(REQ_PING))
		send_request(pred, REQ_PING, 0, 0);
}

/*
 * Abandons requests that got no reply in time.  This concludes nothing about
 * the peer.  Accepted connections never expire: a callee that hung up first
 * would look dead to its caller, so it waits until the caller closes (which
 * the caller's own timeout guarantees).
 */
static void expire(int64_t now)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0 && conns[i].outgoing && now >= conns[i].deadline_us)
			close_conn(&conns[i]);
}

static void accept_one(void)
{
	struct conn *c = free_conn();
	int fd;

	if (c == NULL)
		return; /* the caller waits in the backlog until a slot frees */
	fd = accept(listen_fd, NULL, NULL);
	if (fd < 0)
		return;
	*c = (struct conn){.fd = fd, .serial = ++next_serial};
}

/* Reads what has arrived on c; acts once a whole line is there. */
static void readable(struct conn *c)
{
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len, 0);
	char reply[LINE_MAX_LEN];

	if (n <= 0) {
		if (c->outgoing && n == 0)
			learn_dead(c->peer, "closed before replying");
		else if (c->outgoing && peer_failure(errno))
			learn_dead(c->peer, strerror(errno));
		close_conn(c);
		return;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	if (strchr(c->buf, '\n') == NULL) {
		if (c->len == sizeof c->buf - 1)
			close_conn(c); /* no line fits: protocol error */
		return;
	}
	if (c->outgoing) {
		struct conn done = *c;

		close_conn(c); /* free the slot before follow-up requests */
		handle_reply(&done, done.buf);
		return;
	}
	serve(c->buf, reply, sizeof reply);
	send(c->fd, reply, strlen(reply), MSG_NOSIGNAL);
	close_conn(c);
}

static int wait_events(int64_t next_tick)
{
	struct pollfd pfd[MAX_CONNS + 1];
	struct conn *owner[MAX_CONNS + 1];
	uint64_t serial[MAX_CONNS + 1];
	int n = 0, timeout_ms, ready;
	int64_t wait = next_tick - now_us();

	/* With every slot taken, leave callers in the backlog rather than
	 * accept and drop them: a dropped caller would think this node dead. */
	pfd[n] = (struct pollfd){.fd = free_conn() ? listen_fd : -1, .events = POLLIN};
	owner[n++] = NULL;
	for (int i = 0; i < MAX_CONNS; i++) {
		if (conns[i].fd < 0)
			continue;
		pfd[n] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
		serial[n] = conns[i].serial;
		owner[n++] = &conns[i];
	}
	timeout_ms = wait <= 0 ? 0 : (int)((wait + 999) / 1000);
	ready = poll(pfd, (nfds_t)n, timeout_ms);
	if (ready <= 0)
		return ready < 0 && errno != EINTR ? -1 : 0;
	/* Handling one connection may free slots and open new connections in
	 * them (often with the same fd number): only the polled ones count. */
	for (int i = 1; i < n; i++)
		if (pfd[i].revents && owner[i]->fd >= 0 && owner[i]->serial == serial[i])
			readable(owner[i]);
	if (pfd[0].revents & POLLIN)
		accept_one();
	return 0;
}

/*
 * The loop serves whatever has arrived before it runs a due round, so a
 * node that was descheduled for a while answers the requests waiting for it
 * instead of expiring them unread (which its callers would take for death).
 */
static int run(void)
{
	int64_t next_tick = now_us();

	while (!stop_requested) {
		int64_t now;

		if (wait_events(next_tick) < 0) {
			perror("chord_node: poll");
			return 1;
		}
		now = now_us();
		if (stop_requested || now < next_tick)
			continue;
		expire(now);
		tick();
		tick_count++;
		next_tick += cfg.tick_us;
		if (next_tick <= now)
			next_tick = now + cfg.tick_us;
	}
	return 0;
}

/* ---- start-up --------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
	return *(const int32_t *)a - *(const int32_t *)b;
}

/* Sets the pointers of a base node: the base starts as a correct ring. */
static void configure_base(void)
{
	int32_t ring[MAX_NODES];
	int nb = cfg.nbase, k = 0;

	memcpy(ring, cfg.ids, sizeof(int32_t) * (size_t)nb);
	qsort(ring, (size_t)nb, sizeof ring[0], cmp_id);
	while (ring[k] != chord_id)
		k++;
	succ = ring[(k + 1) % nb];
	succ2 = nb > 1 ? ring[(k + 2) % nb] : -1;
	pred = ring[(k + nb - 1) % nb];
}

static int parse_ids(const char *s)
{
	char *end;

	cfg.nids = 0;
	for (;;) {
		long v = strtol(s, &end, 10);

		if (end == s || v < 0 || v >= RING_SIZE || cfg.nids == MAX_NODES)
			return -1;
		for (int i = 0; i < cfg.nids; i++)
			if (cfg.ids[i] == v)
				return -1;
		cfg.ids[cfg.nids++] = (int32_t)v;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: chord_node --ids ID,ID,... --index I --base-port P\n"
			"                  [--base N] [--bootstrap I] [--tick-us US] [--start-tick T]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"ids", required_argument, NULL, 'i'},       {"index", required_argument, NULL, 'x'},
		{"base-port", required_argument, NULL, 'p'}, {"base", required_argument, NULL, 'b'},
		{"bootstrap", required_argument, NULL, 's'}, {"tick-us", required_argument, NULL, 't'},
		{"start-tick", required_argument, NULL, 'j'}, {NULL, 0, NULL, 0},
	};
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'i': if (parse_ids(optarg) < 0) usage(); break;
		case 'x': cfg.index = atoi(optarg); break;
		case 'p': cfg.base_port = atoi(optarg); break;
		case 'b': cfg.nbase = atoi(optarg); break;
		case 's': cfg.bootstrap = atoi(optarg); break;
		case 't': cfg.tick_us = atoll(optarg); break;
		case 'j': cfg.start_tick = atoll(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || cfg.nids == 0 || cfg.index < 0 || cfg.index >= cfg.nids ||
	    cfg.base_port <= 0 || cfg.base_port + cfg.nids > 65536 || cfg.nbase < 1 ||
	    cfg.nbase > cfg.nids || cfg.bootstrap < 0 || cfg.bootstrap >= cfg.nbase ||
	    cfg.tick_us < 1000 || cfg.start_tick < 0)
		usage();
}

static void on_sigterm(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int open_listener(void)
{
	struct sockaddr_in a = node_addr(cfg.index);
	int one = 1;

	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (listen_fd < 0)
		return -1;
	setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(listen_fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(listen_fd, 64) < 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int rc;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigterm; /* no SA_RESTART: poll returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < MAX_CONNS; i++)
		conns[i].fd = -1;

	chord_id = cfg.ids[cfg.index];
	if (cfg.index < cfg.nbase)
		configure_base();
	if (open_listener() < 0) {
		perror("chord_node: listen");
		return 1;
	}
	if (CHORD_LEVEL >= 0)
		printf("node %d: start index %d fix %d succ %d succ2 %d pred %d\n", chord_id, cfg.index,
		       CHORD_LEVEL, succ, succ2, pred);
	else
		printf("node %d: start index %d checks %d succ %d succ2 %d pred %d\n", chord_id,
		       cfg.index, CHORD_CHECKS, succ, succ2, pred);
	rc = run();
	printf("node %d: final succ %d succ2 %d pred %d dead %#llx\n", chord_id, succ, succ2, pred,
	       (unsigned long long)known_dead);
	for (int i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0)
			close_conn(&conns[i]);
	close(listen_fd);
	return rc;
}
