/*
 * depth: a two-node target whose state space has one state S reachable at
 * depth 2 and at depth 3, with a violation two steps after it. It pins the
 * completeness of bounded search: an explorer that prunes S when it meets
 * it again with more depth left says "holds" at depth 4, where the
 * violation is reachable.
 *
 * Node 0 sends "A" to itself; node 1 sends "B" to node 0. Node 0 records
 * a and b; if A arrives before B it also sends "FWD" to node 1, which node
 * 1 ignores. Once both have arrived node 0 sends "C" to node 1, node 1
 * answers "D", and node 0 sets bad = 1 on D.
 *
 *   B, A           -> S (depth 2): a = b = 1, "C" in flight to node 1
 *   A, B, FWD      -> S (depth 3)   (or A, FWD, B)
 *   S, C, D        -> bad = 1       (minimal depth 4)
 *
 * Every buffer is cleared after use and every send goes through one
 * function, so S is the same state byte for byte whichever way it is
 * reached (the memory abstraction merges it too).
 *
 * usage: depth ID BASE_PORT
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int a, b, bad;
static int c_sent;

static int fd;
static int base;
static char buf[16];
static struct sockaddr_in to;

static void send_to(int node, const char *msg)
{
	to.sin_family = AF_INET;
	to.sin_port = htons((uint16_t)(base + node));
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&to, sizeof to);
	memset(&to, 0, sizeof to);
}

static char next(void)
{
	memset(buf, 0, sizeof buf);
	if (recv(fd, buf, sizeof buf, 0) <= 0)
		exit(2);
	char c = buf[0];
	memset(buf, 0, sizeof buf);
	return c;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int id = atoi(argv[1]);
	base = atoi(argv[2]);
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(base + id)),
	                          .sin_addr.s_addr = htonl(INADDR_ANY) };
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof me) < 0)
		return 2;
	memset(&me, 0, sizeof me);
	if (id == 0) {
		send_to(0, "A");
		for (;;) {
			switch (next()) {
			case 'A':
				a = 1;
				if (!b)
					send_to(1, "FWD");
				break;
			case 'B':
				b = 1;
				break;
			case 'D':
				bad = 1;
				break;
			}
			if (a && b && !c_sent) {
				c_sent = 1;
				send_to(1, "C");
			}
		}
	}
	send_to(0, "B");
	for (;;) {
		if (next() == 'C')
			send_to(0, "D");
	}
}
