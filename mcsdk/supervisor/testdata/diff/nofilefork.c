/*
 * nofilefork: RLIMIT_NOFILE is each process's own (signal_struct), copied
 * at fork. A child forked before its parent lowers its soft limit keeps
 * the limit it was forked with, and its descriptor numbers may still go
 * above the parent's new limit; a child forked after inherits the lowered
 * one (dup2 at or above it EBADF, F_DUPFD EINVAL); prlimit64 on a child's
 * pid sets that child's limit, not the caller's, and reads it back; a
 * child's own setrlimit changes nothing of its parent's.
 */
#include "probe.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIM 16

/* child waits for a byte on go, then reports its own view. */
static void child(const char *name, int go)
{
	char b;
	if (read(go, &b, 1) != 1)
		_exit(2);
	struct rlimit r;
	getrlimit(RLIMIT_NOFILE, &r);
	SAME("%s: soft limit is %s", name,
	     r.rlim_cur == LIM ? "the lowered one" : r.rlim_cur == LIM / 2 ? "the one prlimit64 set" : "another");
	CHECK("dup2 to 40", dup2(0, 40));
	CHECK("F_DUPFD from 20", fcntl(0, F_DUPFD, 20));
	CHECK("dup2 to 12", dup2(0, 12));
	close(40);
	close(12);
	if (b == 's') {
		struct rlimit low = { 4, r.rlim_max };
		CHECK("child setrlimit to 4", setrlimit(RLIMIT_NOFILE, &low));
	}
	fflush(stdout);
	_exit(0);
}

static pid_t spawn(const char *name, int *go)
{
	int p[2];
	pipe(p);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		child(name, p[0]);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void reap(pid_t pid, int go, char how)
{
	write(go, &how, 1);
	close(go);
	int st;
	waitpid(pid, &st, 0);
	SAME("child ended: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	for (int fd = 3; fd < 64; fd++)
		close(fd);
	struct rlimit orig;
	getrlimit(RLIMIT_NOFILE, &orig);

	int goA;
	pid_t a = spawn("forked before the lowering", &goA);
	struct rlimit low = { LIM, orig.rlim_max };
	CHECK("parent setrlimit to 16", setrlimit(RLIMIT_NOFILE, &low));
	CHECK("parent dup2 to 40", dup2(0, 40));
	reap(a, goA, 'x');

	int goB;
	pid_t b = spawn("forked after the lowering", &goB);
	reap(b, goB, 'x');

	int goC;
	pid_t c = spawn("set by prlimit64", &goC);
	struct rlimit half = { LIM / 2, orig.rlim_max }, got;
	CHECK("prlimit64 on the child", prlimit(c, RLIMIT_NOFILE, &half, NULL));
	CHECK("prlimit64 reads the child's", prlimit(c, RLIMIT_NOFILE, NULL, &got));
	SAME("the child's soft limit read back %d", got.rlim_cur == LIM / 2);
	getrlimit(RLIMIT_NOFILE, &got);
	SAME("the parent's soft limit is still %d", (int)got.rlim_cur);
	reap(c, goC, 's');
	getrlimit(RLIMIT_NOFILE, &got);
	SAME("after the child's own setrlimit, the parent's soft limit is %d", (int)got.rlim_cur);
	CHECK("parent F_DUPFD from 10", fcntl(0, F_DUPFD, 10));
	return 0;
}
