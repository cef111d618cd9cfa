/*
 * weft-launch: the small native launcher weft execs for every node.
 *
 * It reads its head and the seccomp program weft built (fd 4), sets its
 * RLIMIT_NOFILE to the node's descriptor bound while it is still root and
 * then, for a node that runs as another user, takes that user's groups,
 * gid and uid (launchHead, launcher_linux.go), turns off ASLR, sets
 * no_new_privs, tells weft it is about to load the filter (a byte on fd 3),
 * makes rdtsc fault (PR_SET_TSC; weft emulates it) unless weft patches
 * the TSC reads of the target's code instead,
 * loads the filter on its only thread with a notification listener, and
 * execs the target. The execve is the filter's first notification; weft
 * takes the listener with pidfd_getfd(2). Same protocol as the Go launcher
 * in launcher_linux.go, without starting a Go runtime per node.
 *
 * usage: weft-launch TARGET ARGV0 ARGS...   (argv[0] weft-launch-native-tsc:
 *        leave rdtsc native; weft patches the reads or, with
 *        Config.NativeTSC, leaves them be)
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <grp.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

extern char **environ;

/* head is what weft writes on fd 4 before the program (launchHead). */
struct head {
	uint32_t nofile; /* RLIMIT_NOFILE, soft and hard; 0 none */
	uint32_t become; /* 1: become uid, gid and groups */
	uint32_t uid, gid, ngroups;
};

/* readn reads exactly n bytes of fd into p; 0 on success. */
static int readn(int fd, void *p, size_t n)
{
	size_t have = 0;
	while (have < n) {
		ssize_t r = read(fd, (char *)p + have, n - have);
		if (r <= 0)
			return -1;
		have += (size_t)r;
	}
	return 0;
}

/* setup sets the descriptor limit, then the credentials, as the head
 * says; on failure it tells weft which (a byte on fd 3, launcherFailure)
 * and exits. */
static void setup(const struct head *h, const gid_t *groups)
{
	struct rlimit rl = { h->nofile, h->nofile };
	if (h->nofile != 0 && setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		(void)!write(3, "L", 1);
		_exit(125);
	}
	if (h->become && (setgroups(h->ngroups, groups) < 0 || setgid(h->gid) < 0 || setuid(h->uid) < 0)) {
		(void)!write(3, "U", 1);
		_exit(125);
	}
}

int main(int argc, char **argv)
{
	static struct sock_filter prog[4096];
	static gid_t groups[65536];
	struct head h;
	size_t have = 0;
	ssize_t r;

	if (argc < 3)
		return 125;
	if (readn(4, &h, sizeof h) < 0 || h.ngroups > sizeof groups / sizeof groups[0] ||
	    readn(4, groups, h.ngroups * sizeof groups[0]) < 0)
		return 125;
	while ((r = read(4, (char *)prog + have, sizeof prog - have)) > 0)
		have += (size_t)r;
	close(4);
	if (have == 0 || have % sizeof prog[0] != 0)
		return 125;
	struct sock_fprog fprog = { .len = (unsigned short)(have / sizeof prog[0]), .filter = prog };
	setup(&h, groups);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || personality(ADDR_NO_RANDOMIZE) < 0)
		return 125;
	if (write(3, "", 1) != 1)
		return 125;
	close(3);
	/* Nothing else of weft's, or of whatever started weft, reaches the
	 * node: it starts with fds 0, 1 and 2 only (issue 36, §3). They close
	 * at the exec, not before: TARGET may be /proc/self/fd/N, a binary
	 * weft opened for the launcher to execute (execByFD). */
	if (syscall(SYS_close_range, 3, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */) < 0)
		return 125;
	/* rdtsc faults from here on; weft emulates it from the virtual clock
	 * (unless weft started this launcher as weft-launch-native-tsc). */
	if (strcmp(argv[0], "weft-launch-native-tsc") != 0 && prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) < 0)
		return 125;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	            SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &fprog) < 0)
		return 125;
	execve(argv[1], argv + 2, environ);
	/* The execve failed after the filter was loaded: this exit_group is
	 * a notification, whose status weft reads as execve's errno
	 * (execWatch, launcher_linux.go). */
	syscall(SYS_exit_group, errno);
	return 126;
}
