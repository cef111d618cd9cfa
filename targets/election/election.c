/*
 * election: one round of Raft-style leader election over UDP.
 *
 * Nodes 0 and 1 are candidates for term 1: each votes for itself and asks
 * node 2 for its vote. A node grants at most one vote per term and, as the
 * Raft dissertation requires (§3.8, "Persisted state"), records the vote on
 * stable storage before answering. A candidate with votes from a majority
 * (2 of 3) becomes leader.
 *
 * Built with -DBUG, the voter answers before persisting its vote (it
 * persists only the term): after a crash and restart it has forgotten whom
 * it voted for, grants a second vote in the same term, and two nodes lead
 * term 1.
 *
 * Durable state lives in the file "state" in the working directory, which
 * survives a crash and restart.
 *
 * usage: election ID NODES BASE_PORT
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int term;          /* current term */
int voted_for = -1; /* candidate voted for in term, -1 none */
int votes;         /* votes received as a candidate */
int leader;        /* 1 once this node leads term */

static int base;

static void load(void)
{
	FILE *f = fopen("state", "r");
	if (!f)
		return;
	if (fscanf(f, "%d %d", &term, &voted_for) != 2)
		term = 0, voted_for = -1;
	fclose(f);
}

static void persist(void)
{
	FILE *f = fopen("state.tmp", "w");
	if (!f) {
		perror("state.tmp");
		exit(1);
	}
	fprintf(f, "%d %d\n", term, voted_for);
	fflush(f);
	fsync(fileno(f));
	fclose(f);
	rename("state.tmp", "state");
}

static void send_to(int fd, int node, const char *msg)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(base + node)),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&a, sizeof a);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s ID NODES BASE_PORT\n", argv[0]);
		return 2;
	}
	int id = atoi(argv[1]);
	base = atoi(argv[3]);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(base + id)) };
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof me) < 0) {
		perror("bind");
		return 1;
	}
	load();
	char msg[64];
	if (id < 2 && term == 0) { /* candidates start the election for term 1 */
		term = 1;
		voted_for = id;
		votes = 1;
		persist();
		snprintf(msg, sizeof msg, "VOTE? %d %d", term, id);
		send_to(fd, 2, msg);
	}
	for (;;) {
		char buf[64];
		ssize_t r = recv(fd, buf, sizeof buf - 1, 0);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		int t, who;
		if (sscanf(buf, "VOTE? %d %d", &t, &who) == 2) {
			if (t > term) {
				term = t;
				voted_for = -1;
			}
			int grant = t == term && (voted_for == -1 || voted_for == who);
			if (grant) {
				voted_for = who;
#ifdef BUG
				int keep = voted_for;
				voted_for = -1;   /* the vote is not made durable... */
				persist();
				voted_for = keep; /* ...only remembered in memory */
#else
				persist();        /* durable before it is promised */
#endif
			}
			snprintf(msg, sizeof msg, "%s %d %d", grant ? "YES" : "NO", term, id);
			send_to(fd, who, msg);
		} else if (sscanf(buf, "YES %d %d", &t, &who) == 2 && t == term && voted_for == id) {
			if (++votes >= 2 && !leader) {
				leader = 1;
				printf("node %d leads term %d\n", id, term);
				fflush(stdout);
			}
		}
	}
}
