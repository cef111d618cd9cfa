/*
 * pairfail: what socketpair(2) leaves in its array when it fails. Linux
 * takes the two descriptor numbers and writes them to the array before
 * it makes the sockets (__sys_socketpair: get_unused_fd_flags twice,
 * put_user each, then sock_create): a family, type or protocol it then
 * refuses leaves both numbers written; an array whose second int is
 * unwritable gets the first and EFAULT; EMFILE (no room for the first or
 * the second number) and an unknown type flag (EINVAL, checked first)
 * write nothing. The numbers are freed again: they are the lowest free
 * ones, which the next descriptor takes.
 */
#include "probe.h"
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* lowest is the number the next descriptor takes. */
static int lowest(void)
{
	int fd = dup(0);
	close(fd);
	return fd;
}

static void show(const char *what, int r, const int *sv)
{
	int e = errno, low = lowest();
	SAME("%s -> %d %s; sv[0] %s, sv[1] %s", what, r, r < 0 ? strerrorname_np(e) : "ok",
	     sv[0] == -7 ? "untouched" : sv[0] == low ? "the lowest free number" : "another number",
	     sv[1] == -7 ? "untouched" : sv[1] == low + 1 ? "the next free number" : "another number");
	VIRT("%s: sv {%d, %d}", what, sv[0], sv[1]);
}

int main(void)
{
	struct {
		const char *name;
		int domain, type, protocol;
	} cases[] = {
		{ "AF_INET stream", AF_INET, SOCK_STREAM, 0 },
		{ "AF_INET6 datagram", AF_INET6, SOCK_DGRAM, 0 },
		{ "AF_NETLINK raw", AF_NETLINK, SOCK_RAW, 0 },
		{ "family 99", 99, SOCK_STREAM, 0 },
		{ "AF_UNIX protocol 5", AF_UNIX, SOCK_STREAM, 5 },
		{ "AF_UNIX type 9", AF_UNIX, 9, 0 },
		{ "AF_UNIX unknown flag", AF_UNIX, SOCK_STREAM | 0x40000000, 0 },
		{ "AF_UNIX stream", AF_UNIX, SOCK_STREAM, 0 },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int sv[2] = { -7, -7 };
		errno = 0;
		int r = socketpair(cases[i].domain, cases[i].type, cases[i].protocol, sv);
		if (r == 0) { /* the numbers it took, freed again */
			close(sv[0]);
			close(sv[1]);
		}
		show(cases[i].name, r, sv);
	}
	/* An array whose second int lies on an unmapped page. */
	char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(pg + 4096, 4096);
	int *half = (int *)(pg + 4092);
	const char *halfs[] = { "AF_UNIX stream, second int unwritable", "AF_INET stream, second int unwritable" };
	for (int i = 0; i < 2; i++) {
		half[0] = -7;
		errno = 0;
		int r = socketpair(i ? AF_INET : AF_UNIX, SOCK_STREAM, 0, half);
		int e = errno, low = lowest();
		SAME("%s -> %d %s; sv[0] %s", halfs[i], r, r < 0 ? strerrorname_np(e) : "ok",
		     half[0] == -7 ? "untouched" : half[0] == low ? "the lowest free number" : "another number");
	}
	mprotect(pg, 4096, PROT_READ);
	errno = 0;
	int r = socketpair(AF_INET, SOCK_STREAM, 0, (int *)pg);
	SAME("AF_INET stream, read-only array -> %d %s", r, r < 0 ? strerrorname_np(errno) : "ok");
	/* Room for one descriptor only, then for none. */
	int top = lowest();
	for (int room = 1; room >= 0; room--) {
		struct rlimit rl = { top + room, top + 1 };
		setrlimit(RLIMIT_NOFILE, &rl);
		const char *fams[] = { "AF_UNIX", "AF_INET" };
		for (int f = 0; f < 2; f++) {
			int sv[2] = { -7, -7 };
			char name[80];
			snprintf(name, sizeof name, "%s stream, room for %d descriptor%s", fams[f], room, room == 1 ? "" : "s");
			errno = 0;
			r = socketpair(f ? AF_INET : AF_UNIX, SOCK_STREAM, 0, sv);
			show(name, r, sv);
		}
	}
	return 0;
}
