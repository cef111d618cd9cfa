/* socket: AF_INET calls a single process can make on loopback.
 * usage: socket PORT */
#include "probe.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in at(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	return a;
}

int main(int argc, char **argv)
{
	int port = argc > 1 ? atoi(argv[1]) : 47100;
	struct sockaddr_in a = at(port), b = at(port), c = at(port + 1);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	SAME("socket(UDP) ok: %d", u >= 0);
	CHECK("bind(UDP, port)", bind(u, (struct sockaddr *)&a, sizeof a));
	int u2 = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK("bind(UDP, same port)", bind(u2, (struct sockaddr *)&b, sizeof b));
	socklen_t len = sizeof b;
	CHECK("getsockname", getsockname(u, (struct sockaddr *)&b, &len));
	SAME("bound to the port asked: %d", ntohs(b.sin_port) == port);
	CHECK("sendto(self, 5)", sendto(u, "hello", 5, 0, (struct sockaddr *)&a, sizeof a));
	char buf[16] = "";
	CHECK("recv", recv(u, buf, sizeof buf, 0));
	SAME("received %s", buf);
	CHECK("send(unconnected UDP)", send(u2, "x", 1, 0));
	int t = socket(AF_INET, SOCK_STREAM, 0);
	CHECK("connect(TCP, no listener)", connect(t, (struct sockaddr *)&c, sizeof c));
	CHECK("recv(-1)", recv(-1, buf, 1, 0));
	return 0;
}
