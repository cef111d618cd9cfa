/*
 * cloneparent: clone(2) with CLONE_PARENT from a child process. "The
 * parent of the new child (as returned by getppid(2)) will be the same as
 * that of the calling process": the new process is its caller's sibling,
 * its grandparent's child, which waits for it and gets its exit signal;
 * the caller has no such child (ECHILD). Its exit signal is its caller's
 * (kernel/fork.c copy_process: current->group_leader->exit_signal; the
 * CSIGNAL bits asked are ignored), so a caller made with SIGUSR1 as its
 * exit signal makes a sibling that a wait without __WCLONE or __WALL does
 * not see. Its process group and session are its caller's.
 */
#include "probe.h"
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* sibling clones with CLONE_PARENT and exit signal sig asked; the new
 * process reports its pid, parent and group to pipe out, then exits with
 * code. The caller tries to wait for it, reports its pid to pipe mine
 * and exits 0 if the wait found no child. */
static void sibling(int out, int mineout, unsigned long sig, int code)
{
	long r = syscall(SYS_clone, CLONE_PARENT | sig, 0, NULL, NULL, 0);
	if (r == 0) {
		pid_t me[3] = { getpid(), getppid(), getpgrp() };
		if (write(out, me, sizeof me) != sizeof me)
			_exit(90);
		_exit(code);
	}
	if (r < 0)
		_exit(91);
	int st;
	errno = 0;
	pid_t w = waitpid((pid_t)r, &st, __WALL);
	pid_t mine = (pid_t)r;
	if (write(mineout, &mine, sizeof mine) != sizeof mine)
		_exit(92);
	_exit(w == -1 && errno == ECHILD ? 0 : 93);
}

/* scenario makes a child with exit signal csig that clones a sibling
 * with CLONE_PARENT (asking for exit signal asked), and reports what the
 * sibling saw and how this process waits for both. */
static void scenario(const char *what, int csig, int asked, int code)
{
	int p[2], q[2];
	if (pipe(p) || pipe(q))
		exit(2);
	long c = syscall(SYS_clone, (unsigned long)csig, 0, NULL, NULL, 0);
	if (c == 0) {
		sibling(p[1], q[1], (unsigned long)asked, code);
	}
	close(p[1]);
	close(q[1]);
	pid_t seen[3], sib;
	if (read(p[0], seen, sizeof seen) != sizeof seen || read(q[0], &sib, sizeof sib) != sizeof sib)
		exit(3);
	close(p[0]);
	close(q[0]);
	SAME("%s: the sibling's pid is what clone returned %d", what, seen[0] == sib);
	SAME("%s: its parent is this process %d (not its caller %d)", what, seen[1] == getpid(), seen[1] == (pid_t)c);
	SAME("%s: its group is this one's %d", what, seen[2] == getpgrp());
	int st = 0;
	errno = 0;
	pid_t w = waitpid(sib, &st, 0);
	SAME("%s: waitpid(sibling, 0) -> %s %s", what, w == sib ? "it" : w == -1 ? "-1" : "?",
	     w == -1 ? strerrorname_np(errno) : "ok");
	if (w != sib) {
		w = waitpid(sib, &st, __WCLONE);
		SAME("%s: waitpid(sibling, __WCLONE) -> %s", what, w == sib ? "it" : "?");
	}
	SAME("%s: the sibling exited %d with %d", what, WIFEXITED(st), WEXITSTATUS(st));
	w = waitpid((pid_t)c, &st, __WALL);
	SAME("%s: the caller is reaped %d exited %d with %d", what, w == (pid_t)c, WIFEXITED(st), WEXITSTATUS(st));
	errno = 0;
	w = waitpid(-1, &st, __WALL | WNOHANG);
	SAME("%s: then no child is left: %d %s", what, (int)w, w < 0 ? strerrorname_np(errno) : "ok");
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGUSR1, SIG_IGN); /* the exit signal of the third scenario's processes */
	scenario("fork-like caller, CLONE_PARENT|SIGCHLD", SIGCHLD, SIGCHLD, 5);
	scenario("fork-like caller, CLONE_PARENT|SIGUSR1 (ignored)", SIGCHLD, SIGUSR1, 6);
	scenario("caller with exit signal SIGUSR1, CLONE_PARENT|SIGCHLD", SIGUSR1, SIGCHLD, 7);
	return 0;
}
