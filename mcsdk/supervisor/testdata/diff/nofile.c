/*
 * nofile: a lowered soft RLIMIT_NOFILE bounds every new descriptor
 * number: F_DUPFD's minimum at or above it is EINVAL, and EMFILE when
 * no number from the minimum up to it is free; dup2 and dup3 to a
 * number at or above it are EBADF; socket, socketpair, eventfd, pipe,
 * open and dup are EMFILE when every number below it is taken. On
 * descriptors weft serves (an inet socket, an AF_UNIX socket, an
 * eventfd) and on a file it does not.
 */
#include "probe.h"
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define LIM 24

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	for (int fd = 3; fd < 64; fd++)
		close(fd);
	int fds[4], sv[2], p[2];
	fds[0] = socket(AF_INET, SOCK_DGRAM, 0);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	fds[1] = sv[0];
	fds[2] = eventfd(0, 0);
	fds[3] = open("/dev/null", O_RDONLY);
	SAME("descriptors %d %d %d %d", fds[0], fds[1], fds[2], fds[3]);
	/* Linux makes both ends, then copies their numbers out: an array
	 * it cannot write is EFAULT, with no descriptor left behind */
	int *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK("pipe to a read-only array", pipe(ro));
	CHECK("pipe2 to a read-only array", pipe2(ro, O_CLOEXEC));
	int next = dup(0);
	SAME("next descriptor after them %d", next);
	close(next);
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = LIM;
	CHECK("setrlimit NOFILE", setrlimit(RLIMIT_NOFILE, &rl));
	static const char *kind[] = { "inet", "unix", "eventfd", "file" };
	for (int i = 0; i < 4; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s: F_DUPFD at the limit", kind[i]);
		CHECK(name, fcntl(fds[i], F_DUPFD, LIM));
		snprintf(name, sizeof name, "%s: F_DUPFD_CLOEXEC past it", kind[i]);
		CHECK(name, fcntl(fds[i], F_DUPFD_CLOEXEC, LIM + 5));
		snprintf(name, sizeof name, "%s: dup2 to the limit", kind[i]);
		CHECK(name, dup2(fds[i], LIM));
		snprintf(name, sizeof name, "%s: dup3 past it", kind[i]);
		CHECK(name, dup3(fds[i], LIM + 3, O_CLOEXEC));
		snprintf(name, sizeof name, "%s: F_DUPFD below it", kind[i]);
		int d = fcntl(fds[i], F_DUPFD, LIM - 1);
		SAME("%s -> %d %s", name, d, d < 0 ? strerrorname_np(errno) : "ok");
		close(d);
	}
	/* fill every number below the limit */
	int last = -1;
	for (;;) {
		int d = dup(0);
		if (d < 0) {
			SAME("filled up to %d: %s", last, strerrorname_np(errno));
			break;
		}
		last = d;
	}
	for (int i = 0; i < 4; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s: F_DUPFD when full", kind[i]);
		CHECK(name, fcntl(fds[i], F_DUPFD, 10));
		snprintf(name, sizeof name, "%s: dup when full", kind[i]);
		CHECK(name, dup(fds[i]));
	}
	CHECK("socket when full", socket(AF_INET, SOCK_STREAM, 0));
	CHECK("socketpair when full", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	CHECK("eventfd when full", eventfd(0, 0));
	CHECK("pipe when full", pipe(p));
	CHECK("pipe to NULL when full", pipe(NULL));
	CHECK("socketpair to NULL when full", socketpair(AF_UNIX, SOCK_STREAM, 0, NULL));
	CHECK("open when full", open("/dev/null", O_RDONLY));
	close(LIM - 1);
	CHECK("pipe with one free", pipe(p));
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	SAME("socket with one free -> %d", s);
	CHECK("F_DUPFD with none free", fcntl(fds[0], F_DUPFD, 0));
	return 0;
}
