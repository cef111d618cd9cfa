/* netlink: glibc's getifaddrs and a raw NETLINK_ROUTE socket under weft
 * (TestNetlinkC). With the argument "audit", asks for NETLINK_AUDIT. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void show_ifaddrs(void) {
	struct ifaddrs *ifa, *p;
	if (getifaddrs(&ifa) != 0) {
		printf("getifaddrs: %s\n", strerror(errno));
		return;
	}
	for (p = ifa; p; p = p->ifa_next) {
		char buf[INET6_ADDRSTRLEN] = "-";
		int fam = p->ifa_addr ? p->ifa_addr->sa_family : -1;
		if (fam == AF_INET)
			inet_ntop(fam, &((struct sockaddr_in *)p->ifa_addr)->sin_addr, buf, sizeof buf);
		else if (fam == AF_INET6)
			inet_ntop(fam, &((struct sockaddr_in6 *)p->ifa_addr)->sin6_addr, buf, sizeof buf);
		else if (fam == AF_PACKET) {
			struct sockaddr_ll *ll = (struct sockaddr_ll *)p->ifa_addr;
			int n = 0;
			for (int i = 0; i < ll->sll_halen; i++)
				n += snprintf(buf + n, sizeof buf - n, "%s%02x", i ? ":" : "", ll->sll_addr[i]);
		}
		printf("ifaddr %s family %d flags %#x addr %s\n", p->ifa_name, fam, p->ifa_flags, buf);
	}
	freeifaddrs(ifa);
}

struct req {
	struct nlmsghdr h;
	struct ifaddrmsg a;
};

static void raw(void) {
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	socklen_t len = sizeof sa;
	int v = 0;
	socklen_t vl = sizeof v;
	char buf[8192];
	printf("bind %d\n", bind(s, (struct sockaddr *)&sa, sizeof sa));
	getsockname(s, (struct sockaddr *)&sa, &len);
	printf("getsockname len %u family %d pid>0 %d\n", len, sa.nl_family, sa.nl_pid > 0);
	getsockopt(s, SOL_SOCKET, SO_DOMAIN, &v, &vl);
	printf("SO_DOMAIN %d\n", v);
	v = 1 << 20;
	printf("SO_RCVBUF set %d\n", setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof v));
	v = 1;
	printf("NETLINK_EXT_ACK set %d\n", setsockopt(s, SOL_NETLINK, NETLINK_EXT_ACK, &v, sizeof v));
	ssize_t n = recv(s, buf, sizeof buf, 0);
	printf("empty recv %zd %s\n", n, strerror(errno));

	struct req r = {.h = {.nlmsg_len = sizeof r, .nlmsg_type = RTM_GETADDR, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 5},
			.a = {.ifa_family = AF_INET}};
	printf("send %zd\n", send(s, &r, sizeof r, 0));
	ssize_t peek = recv(s, NULL, 0, MSG_PEEK | MSG_TRUNC);
	printf("peek>0 %d\n", peek > 0);
	struct iovec iov = {buf, 20};
	struct msghdr m = {.msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &iov, .msg_iovlen = 1};
	n = recvmsg(s, &m, MSG_PEEK | MSG_TRUNC);
	printf("short peek %d trunc %d name pid %u\n", n == peek, !!(m.msg_flags & MSG_TRUNC), sa.nl_pid);
	int msgs = 0, done = 0;
	while (!done && (n = recv(s, buf, sizeof buf, 0)) > 0) {
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			msgs++;
			if (h->nlmsg_type == NLMSG_DONE)
				done = 1;
			if (h->nlmsg_type == RTM_NEWADDR) {
				struct ifaddrmsg *a = NLMSG_DATA(h);
				printf("  addr index %d prefix %d seq %u\n", a->ifa_index, a->ifa_prefixlen, h->nlmsg_seq);
			}
		}
	}
	printf("dump: %d messages, done %d\n", msgs, done);

	r.h.nlmsg_type = RTM_NEWADDR;
	r.a.ifa_index = 99; /* no such interface: natively, ENODEV */
	r.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE;
	r.h.nlmsg_seq = 6;
	printf("send newaddr %zd\n", send(s, &r, sizeof r, 0));
	n = recv(s, buf, sizeof buf, 0);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	if (n > 0 && h->nlmsg_type == NLMSG_ERROR)
		printf("newaddr answered: error %d seq %u\n", ((struct nlmsgerr *)NLMSG_DATA(h))->error, h->nlmsg_seq);
	close(s);
}

static long long now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// timed: a blocking recv nothing answers under SO_RCVTIMEO {0, 1234}, then
// {-1, 0} (a timeout of zero): the first reads back and waits one tick of
// the virtual HZ, 4 ms of node time; the second fails at once.
static void timed(void) {
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct timeval tvs[] = {{0, 1234}, {-1, 0}};
	char buf[64];
	for (int i = 0; i < 2; i++) {
		struct timeval got;
		socklen_t gl = sizeof got;
		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tvs[i], sizeof tvs[i]);
		getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &got, &gl);
		long long t0 = now();
		ssize_t n = recv(s, buf, sizeof buf, 0);
		int e = errno;
		printf("SO_RCVTIMEO {%ld,%ld} reads {%ld,%ld}: recv %zd %s after %lld ns\n", (long)tvs[i].tv_sec, (long)tvs[i].tv_usec,
		       (long)got.tv_sec, (long)got.tv_usec, n, strerror(e), now() - t0);
	}
	close(s);
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && strcmp(argv[1], "audit") == 0) {
		int s = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
		printf("audit socket %d\n", s);
		return 0;
	}
	show_ifaddrs();
	raw();
	timed();
	return 0;
}
