/*
 * zab: ZooKeeper Atomic Broadcast (Junqueira, Reed, Serafini, "Zab:
 * High-performance broadcast for primary-backup systems", DSN 2011) behind
 * a key-value client API, on NODES (3) nodes, in C with ordinary sockets.
 *
 * Clients connect over TCP to port BASE_PORT+id and send lines
 *     PUT <key> <value> <client> <seq>     answered "OK"
 *     GET <key> <client> <seq>             answered "VAL <value>" ("VAL" if none)
 * Every request is a transaction of the broadcast; a node answers once it
 * has delivered it. A follower forwards its clients' requests to its
 * leader.
 *
 * Nodes talk over UDP (port BASE_PORT+10+id). The protocol's phases:
 *  0 election (fast leader election, simplified): a LOOKING node votes for
 *    the best (currentEpoch, last zxid, id) it has heard in its round and
 *    decides when a quorum of its round's votes name its candidate, or
 *    joins a leader another node reports;
 *  1 discovery: followers send FINFO(acceptedEpoch); with a quorum the
 *    prospective leader proposes e' = max + 1 (NEWEPOCH); a follower
 *    accepts e' (durably) and answers ACKEPOCH;
 *  2 synchronisation: the leader sends NEWLEADER(e', its history); the
 *    follower replaces its history with it (durably) and answers ACKNL; with
 *    a quorum of ACKNL the leader delivers its history, tells the synced
 *    followers UPTODATE, and is established;
 *  3 broadcast: the leader gives each request the next zxid, PROPOSEs it to
 *    the synced followers, which log it durably and ACK; a transaction
 *    acknowledged by a quorum is committed (COMMIT), in zxid order.
 * Leader and followers watch each other with PING/PONG; silence sends a
 * node back to election. A node's acceptedEpoch, currentEpoch and history
 * live in the file "zab" of its data directory, fsync'd before it answers.
 *
 * Built with -DBUG, a new leader is established as soon as a quorum has
 * acknowledged its epoch (ACKEPOCH) and starts broadcasting without
 * synchronising the followers' histories (its NEWLEADER carries none): a
 * follower that missed a transaction the old leader committed logs and
 * delivers the new leader's transactions without it, so a committed
 * transaction is lost from its history after a leader crash.
 *
 * usage: zab ID NODES BASE_PORT
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

#define HIST 24
#define KEYS 8
#define MAXCL 16
#define MAXPEND 16
#define MAXN 5

enum { LOOKING, FOLLOWING, LEADING };

/* Declared state (the model reads these). */
int role;             /* LOOKING, FOLLOWING or LEADING */
int epoch;            /* currentEpoch: the epoch of the last NEWLEADER accepted */
int leader = -1;      /* the node followed or led, -1 while looking */
int established;      /* the epoch this node leads, once established (0 otherwise) */
int delivered[HIST];  /* the transactions this node delivered, in order (commands) */
int ndelivered;

struct txn {
	int zxid, cmd;
};

struct disk {
	int accepted_epoch, current_epoch, n;
	struct txn h[HIST];
};

static struct disk d;
static int dfd, udp, lfd, id, nodes, base;
static int kv[KEYS], kvset[KEYS];

/* Election. */
static int round_, vote_id, vote_epoch, vote_zxid;
static int votes[MAXN][4]; /* per node: round, id, epoch, zxid (round 0: none) */
static long long finalize; /* when a quorum's agreement becomes a decision (0: none) */
#define FINALIZE_MS 25

/* Leader. */
static int finfo, ackepoch, acknl; /* bitmasks of followers */
static int new_epoch, max_aepoch;
static int synced;          /* followers that acknowledged NEWLEADER and got UPTODATE */
static int sent_len[MAXN];  /* history length of the NEWLEADER sent to each follower */
static int acks[HIST];      /* per history index: nodes that logged it */
static int ncommit;         /* history entries committed (leader) */
static int counter;
static long long heard[MAXN]; /* when each peer was last heard (ms) */

/* Follower. */
static int fepoch;         /* the epoch accepted from NEWEPOCH (0: none yet) */
static int ae_leader = -1; /* the leader whose NEWEPOCH set accepted_epoch */

static long long deadline; /* next timer (ms, monotonic) */
static long long since;    /* when the current phase began */

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

static int encode(int op, int key, int val, int c, int q)
{
	return 1 + val + 64 * (key + KEYS * (op + 2 * (q + 64 * c)));
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

static void persist(void)
{
	if (pwrite(dfd, &d, sizeof d, 0) != (ssize_t)sizeof d || fsync(dfd) < 0) {
		perror("persist");
		exit(1);
	}
	epoch = d.current_epoch;
}

static void load(void)
{
	dfd = open("zab", O_RDWR | O_CREAT, 0644);
	if (dfd < 0) {
		perror("zab");
		exit(1);
	}
	if (pread(dfd, &d, sizeof d, 0) != (ssize_t)sizeof d)
		memset(&d, 0, sizeof d);
	epoch = d.current_epoch;
}

static int last_zxid(void) { return d.n ? d.h[d.n - 1].zxid : 0; }
static int quorum(int mask) { return __builtin_popcount((unsigned)mask) * 2 > nodes; }

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

/* deliver applies history entries up to n (exclusive) not yet delivered
 * and answers the clients waiting for them. */
static void deliver(int n)
{
	char out[64];
	for (; ndelivered < n && ndelivered < d.n && ndelivered < HIST; ndelivered++) {
		int cmd = d.h[ndelivered].cmd;
		delivered[ndelivered] = cmd;
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
				snprintf(out, sizeof out, "VAL\n");
			reply(pend[k].fd, out);
			pend[k] = pend[--npend];
			break;
		}
	}
}

static void note(int to)
{
	char msg[96];
	snprintf(msg, sizeof msg, "NOTE %d %d %d %d %d %d %d %d", id, round_, vote_id, vote_epoch, vote_zxid, role,
	         leader, role == LOOKING ? 0 : epoch);
	send_to(to, msg);
}

static void note_all(void)
{
	for (int i = 0; i < nodes; i++)
		if (i != id)
			note(i);
}

/* look starts a new round of election. */
static void look(void)
{
	role = LOOKING;
	leader = -1;
	established = 0;
	fepoch = 0;
	synced = finfo = ackepoch = acknl = 0;
	/* Delivered state is rebuilt by the next synchronisation. */
	ndelivered = 0;
	memset(delivered, 0, sizeof delivered);
	memset(kv, 0, sizeof kv);
	memset(kvset, 0, sizeof kvset);
	round_++;
	finalize = 0;
	vote_id = id, vote_epoch = d.current_epoch, vote_zxid = last_zxid();
	memset(votes, 0, sizeof votes);
	votes[id][0] = round_, votes[id][1] = vote_id, votes[id][2] = vote_epoch, votes[id][3] = vote_zxid;
	since = now_ms();
	deadline = since + 30 + 7 * id;
	note_all();
}

static int better(int i, int e, int z, int j, int f, int y)
{
	if (e != f)
		return e > f;
	if (z != y)
		return z > y;
	return i > j;
}

static void follow(int l)
{
	char msg[64];
	role = FOLLOWING;
	leader = l;
	fepoch = 0;
	since = now_ms();
	heard[l] = since;
	deadline = since + 20;
	snprintf(msg, sizeof msg, "FINFO %d %d", id, d.accepted_epoch);
	send_to(l, msg);
}

static void lead(void)
{
	role = LEADING;
	leader = id;
	established = 0;
	finfo = 1 << id;
	ackepoch = acknl = synced = 0;
	new_epoch = 0;
	max_aepoch = d.accepted_epoch;
	since = now_ms();
	for (int i = 0; i < nodes; i++)
		heard[i] = since;
	deadline = since + 20;
}

/* agreed reports whether a quorum of this round's votes name our
 * candidate. */
static int agreed(void)
{
	int n = 0;
	for (int i = 0; i < nodes; i++)
		if (votes[i][0] == round_ && votes[i][1] == vote_id)
			n |= 1 << i;
	return quorum(n);
}

/* decide waits, once a quorum agrees, for a better vote still on its way
 * (fast leader election's finalize wait), then follows or leads. */
static void decide(void)
{
	if (!agreed()) {
		finalize = 0;
		return;
	}
	if (!finalize) {
		finalize = now_ms() + FINALIZE_MS;
		deadline = finalize;
		return;
	}
	if (now_ms() < finalize)
		return;
	finalize = 0;
	if (vote_id == id)
		lead();
	else
		follow(vote_id);
}

static void on_note(int from, int r, int vid, int ve, int vz, int st, int ldr, int le)
{
	if (role != LOOKING) {
		if (role == FOLLOWING && from == leader && st != LEADING)
			look(); /* our leader no longer leads */
		else if (st == LOOKING)
			note(from); /* tell it who leads */
		return;
	}
	if (st != LOOKING) {
		/* A leader reports itself: join it (its epoch is at least ours). */
		if (st == LEADING && ldr == from && le >= d.current_epoch)
			follow(from);
		return;
	}
	if (r > round_) {
		round_ = r;
		memset(votes, 0, sizeof votes);
		vote_id = id, vote_epoch = d.current_epoch, vote_zxid = last_zxid();
		if (better(vid, ve, vz, vote_id, vote_epoch, vote_zxid))
			vote_id = vid, vote_epoch = ve, vote_zxid = vz;
		votes[id][0] = round_, votes[id][1] = vote_id, votes[id][2] = vote_epoch, votes[id][3] = vote_zxid;
		note_all();
	} else if (r < round_) {
		note(from);
		return;
	} else if (better(vid, ve, vz, vote_id, vote_epoch, vote_zxid)) {
		vote_id = vid, vote_epoch = ve, vote_zxid = vz;
		votes[id][1] = vote_id, votes[id][2] = vote_epoch, votes[id][3] = vote_zxid;
		note_all();
	}
	votes[from][0] = r, votes[from][1] = vid, votes[from][2] = ve, votes[from][3] = vz;
	decide();
}

/* newleader sends follower f the leader's epoch and (unless BUG) its
 * whole history, to replace the follower's. */
static void newleader(int f)
{
	char msg[1024];
#ifdef BUG
	snprintf(msg, sizeof msg, "NEWLEADER %d %d -1", id, new_epoch);
#else
	int n = snprintf(msg, sizeof msg, "NEWLEADER %d %d %d", id, new_epoch, d.n);
	for (int k = 0; k < d.n; k++)
		n += snprintf(msg + n, sizeof msg - (size_t)n, " %d:%d", d.h[k].zxid, d.h[k].cmd);
#endif
	sent_len[f] = d.n;
	send_to(f, msg);
}

static void uptodate(int f)
{
	char msg[64];
	snprintf(msg, sizeof msg, "UPTODATE %d %d %d", id, new_epoch, ncommit);
	synced |= 1 << f;
	send_to(f, msg);
}

/* establish: a quorum follows epoch new_epoch with the leader's history;
 * everything in it is committed. */
static void establish(void)
{
	d.current_epoch = new_epoch;
	persist();
	established = new_epoch;
	counter = 0;
	ncommit = d.n;
	memset(acks, 0, sizeof acks);
	deliver(ncommit);
	for (int f = 0; f < nodes; f++)
		if (f != id && (acknl & (1 << f)))
			uptodate(f);
#ifdef BUG
	for (int f = 0; f < nodes; f++)
		if (f != id && (ackepoch & (1 << f)))
			uptodate(f);
#endif
}

static void on_finfo(int from, int ae)
{
	char msg[64];
	if (role != LEADING)
		return;
	finfo |= 1 << from;
	if (ae > max_aepoch)
		max_aepoch = ae;
	if (!new_epoch && quorum(finfo)) {
		new_epoch = max_aepoch + 1;
		d.accepted_epoch = new_epoch;
		ae_leader = id;
		persist();
		ackepoch = 1 << id;
		for (int f = 0; f < nodes; f++)
			if (f != id && (finfo & (1 << f))) {
				snprintf(msg, sizeof msg, "NEWEPOCH %d %d", id, new_epoch);
				send_to(f, msg);
			}
	} else if (new_epoch) {
		snprintf(msg, sizeof msg, "NEWEPOCH %d %d", id, new_epoch);
		send_to(from, msg);
	}
}

static void on_newepoch(int from, int e)
{
	char msg[64];
	if (role != FOLLOWING || from != leader)
		return;
	/* One leader per epoch: an epoch is accepted from one leader only
	 * (after a restart, from none again). */
	if (e < d.accepted_epoch || (e == d.accepted_epoch && ae_leader != from)) {
		look();
		return;
	}
	ae_leader = from;
	d.accepted_epoch = e;
	fepoch = e;
	persist();
	snprintf(msg, sizeof msg, "ACKEPOCH %d %d %d %d", id, e, d.current_epoch, last_zxid());
	send_to(from, msg);
}

static void on_ackepoch(int from, int e, int ce, int lz)
{
	if (role != LEADING || e != new_epoch)
		return;
	/* The leader must be at least as up to date as every follower
	 * (election picked it so); if not, elect again. */
	if (ce > d.current_epoch || (ce == d.current_epoch && lz > last_zxid())) {
		look();
		return;
	}
	ackepoch |= 1 << from;
#ifdef BUG
	/* Established at once: it broadcasts before any follower is synced. */
	if (!established && quorum(ackepoch))
		establish();
	else if (established)
		uptodate(from);
	newleader(from);
#else
	newleader(from);
#endif
}

static void on_newleader(int from, int e, int n, char *rest)
{
	char msg[64];
	if (role != FOLLOWING || from != leader || e != fepoch)
		return;
	if (n >= 0) { /* the leader's history replaces ours */
		int z, c, k = 0, used;
		while (k < n && k < HIST && sscanf(rest, " %d:%d%n", &z, &c, &used) == 2) {
			d.h[k].zxid = z, d.h[k].cmd = c;
			k++;
			rest += used;
		}
		d.n = k;
	}
	d.current_epoch = e;
	persist();
	snprintf(msg, sizeof msg, "ACKNL %d %d %d", id, e, n);
	send_to(from, msg);
}

static void on_acknl(int from, int e, int n)
{
	if (role != LEADING || e != new_epoch)
		return;
#ifndef BUG
	if (n != d.n) { /* proposals since: synchronise it again */
		newleader(from);
		return;
	}
#endif
	(void)n;
	acknl |= 1 << from;
	if (established) {
		if (!(synced & (1 << from)))
			uptodate(from);
		return;
	}
	if (quorum(acknl | (1 << id)))
		establish();
}

static void on_uptodate(int from, int e, int n)
{
	if (role != FOLLOWING || from != leader || e != d.current_epoch)
		return;
	deliver(n);
}

static void propose(int cmd)
{
	char msg[96];
	if (d.n >= HIST)
		return;
	int z = established * 1000 + ++counter, prev = last_zxid();
	d.h[d.n].zxid = z, d.h[d.n].cmd = cmd;
	acks[d.n] = 1 << id;
	d.n++;
	persist();
	snprintf(msg, sizeof msg, "PROPOSE %d %d %d %d %d", id, established, prev, z, cmd);
	for (int f = 0; f < nodes; f++)
		if (f != id && (synced & (1 << f)))
			send_to(f, msg);
}

static void on_propose(int from, int e, int prev, int z, int cmd)
{
	char msg[64];
	if (role != FOLLOWING || from != leader || e != d.current_epoch || d.n >= HIST)
		return;
	if (last_zxid() >= z)
		return; /* a duplicate */
	/* Within an epoch the leader's proposals must arrive in order (the
	 * FIFO channel ZooKeeper gets from TCP); one lost over UDP is
	 * detected here and repaired by synchronising again. The first
	 * proposal of an epoch follows the history synchronisation gave. */
	if (prev / 1000 == e && last_zxid() != prev) {
		snprintf(msg, sizeof msg, "RESYNC %d %d", id, e);
		send_to(from, msg);
		return;
	}
	d.h[d.n].zxid = z, d.h[d.n].cmd = cmd;
	d.n++;
	persist();
	snprintf(msg, sizeof msg, "ACK %d %d %d", id, e, z);
	send_to(from, msg);
}

static void on_ack(int from, int e, int z)
{
	char msg[64];
	if (role != LEADING || e != established)
		return;
	for (int k = ncommit; k < d.n; k++)
		if (d.h[k].zxid == z)
			acks[k] |= 1 << from;
	while (ncommit < d.n && quorum(acks[ncommit])) {
		snprintf(msg, sizeof msg, "COMMIT %d %d %d", id, e, d.h[ncommit].zxid);
		for (int f = 0; f < nodes; f++)
			if (f != id && (synced & (1 << f)))
				send_to(f, msg);
		ncommit++;
	}
	deliver(ncommit);
}

static void on_commit(int from, int e, int z)
{
	if (role != FOLLOWING || from != leader || e != d.current_epoch)
		return;
	for (int k = 0; k < d.n; k++)
		if (d.h[k].zxid == z)
			deliver(k + 1);
}

static void on_request(int cmd)
{
	for (int k = 0; k < d.n; k++)
		if (d.h[k].cmd == cmd)
			return; /* already proposed (a forwarded retry) */
	propose(cmd);
}

static void on_message(char *m)
{
	int a[8], n;
	char type[16];
	if (sscanf(m, "%15s %d%n", type, &a[0], &n) != 2 || a[0] < 0 || a[0] >= nodes || a[0] == id)
		return;
	int from = a[0];
	char *rest = m + n;
	if (strcmp(type, "NOTE"))
		heard[from] = now_ms(); /* a leader's or a follower's message */
	if (!strcmp(type, "NOTE") && sscanf(rest, "%d %d %d %d %d %d %d", &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7]) == 7)
		on_note(from, a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
	else if (!strcmp(type, "FINFO") && sscanf(rest, "%d", &a[1]) == 1)
		on_finfo(from, a[1]);
	else if (!strcmp(type, "NEWEPOCH") && sscanf(rest, "%d", &a[1]) == 1)
		on_newepoch(from, a[1]);
	else if (!strcmp(type, "ACKEPOCH") && sscanf(rest, "%d %d %d", &a[1], &a[2], &a[3]) == 3)
		on_ackepoch(from, a[1], a[2], a[3]);
	else if (!strcmp(type, "NEWLEADER") && sscanf(rest, "%d %d%n", &a[1], &a[2], &n) == 2)
		on_newleader(from, a[1], a[2], rest + n);
	else if (!strcmp(type, "ACKNL") && sscanf(rest, "%d %d", &a[1], &a[2]) == 2)
		on_acknl(from, a[1], a[2]);
	else if (!strcmp(type, "UPTODATE") && sscanf(rest, "%d %d", &a[1], &a[2]) == 2)
		on_uptodate(from, a[1], a[2]);
	else if (!strcmp(type, "PROPOSE") && sscanf(rest, "%d %d %d %d", &a[1], &a[2], &a[3], &a[4]) == 4)
		on_propose(from, a[1], a[2], a[3], a[4]);
	else if (!strcmp(type, "RESYNC") && sscanf(rest, "%d", &a[1]) == 1 && role == LEADING && a[1] == established) {
		synced &= ~(1 << from); /* synchronised again by the next tick */
		acknl &= ~(1 << from);
	}
	else if (!strcmp(type, "ACK") && sscanf(rest, "%d %d", &a[1], &a[2]) == 2)
		on_ack(from, a[1], a[2]);
	else if (!strcmp(type, "COMMIT") && sscanf(rest, "%d %d", &a[1], &a[2]) == 2)
		on_commit(from, a[1], a[2]);
	else if (!strcmp(type, "REQ") && sscanf(rest, "%d", &a[1]) == 1 && role == LEADING && established)
		on_request(a[1]);
	else if (!strcmp(type, "PING") && sscanf(rest, "%d", &a[1]) == 1) {
		char msg[32];
		if (role == FOLLOWING && from == leader) {
			snprintf(msg, sizeof msg, "PONG %d", id);
			send_to(from, msg);
		} else if (role == LOOKING)
			note(from);
	}
}

/* forward sends the pending commands to the leader (followers) or
 * proposes them (an established leader). */
static void forward(void)
{
	char msg[64];
	for (int k = 0; k < npend; k++) {
		if (role == LEADING && established)
			on_request(pend[k].cmd);
		else if (role == FOLLOWING && leader >= 0) {
			snprintf(msg, sizeof msg, "REQ %d %d", id, pend[k].cmd);
			send_to(leader, msg);
		}
	}
}

static void on_client(char *line, int fd)
{
	int key, val = 0, c, q, cmd;
	if (sscanf(line, "PUT %d %d %d %d", &key, &val, &c, &q) == 4)
		cmd = encode(1, key, val, c, q);
	else if (sscanf(line, "GET %d %d %d", &key, &c, &q) == 3)
		cmd = encode(0, key, 0, c, q);
	else
		return;
	if (key < 0 || key >= KEYS || val < 0 || val >= 64 || npend >= MAXPEND)
		return;
	pend[npend++] = (struct pend){ .cmd = cmd, .fd = fd };
	forward();
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

/* tick runs when the node's timer expires: retries and failure detection. */
static void tick(void)
{
	long long t = now_ms();
	char msg[64];
	deadline = t + 20;
	switch (role) {
	case LOOKING:
		if (finalize) {
			decide();
			if (role != LOOKING)
				break;
			if (finalize) {
				deadline = finalize;
				break;
			}
		}
		if (t - since > 200)
			look(); /* a new round */
		else
			note_all();
		deadline = t + 30 + 7 * id;
		break;
	case FOLLOWING:
		if (t - heard[leader] > 100) {
			look();
			return;
		}
		if (!fepoch) {
			snprintf(msg, sizeof msg, "FINFO %d %d", id, d.accepted_epoch);
			send_to(leader, msg);
		}
		forward();
		break;
	case LEADING: {
		int live = 1 << id;
		for (int f = 0; f < nodes; f++)
			if (f != id && t - heard[f] <= 100)
				live |= 1 << f;
		if (!quorum(live) || (!established && t - since > 200)) {
			look();
			return;
		}
		for (int f = 0; f < nodes; f++) {
			if (f == id)
				continue;
			snprintf(msg, sizeof msg, "PING %d", id);
			send_to(f, msg);
			if (new_epoch && (ackepoch & (1 << f)) && !(synced & (1 << f)))
				newleader(f); /* a lost NEWLEADER or ACKNL */
		}
		forward();
		break;
	}
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
		fprintf(stderr, "zab: at most %d nodes\n", MAXN);
		return 2;
	}
	load();
	udp = bind_to(SOCK_DGRAM, base + 10 + id);
	lfd = bind_to(SOCK_STREAM, base + id);
	look();
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
		if (r == 0) {
			tick();
			continue;
		}
		if (p[0].revents & POLLIN) {
			char m[1024];
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
		if (now_ms() >= deadline)
			tick();
	}
}
