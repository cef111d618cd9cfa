/*
 * sessions: process groups and sessions among a process and its
 * children (setsid, setpgid, getsid, getpgid, kill of a group, wait4 and
 * waitid by group). Virtual ids differ from the host's, so every "= "
 * line states a relation, never a number. The probe first makes itself
 * a group leader (natively it starts in the test's group; under weft it
 * already leads its own, so this is a no-op there) and signals only
 * groups it made: it never signals the test's own group.
 */
#include "probe.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* child runs body in a new child that then waits until the write end of
 * the pipe ctl is closed by everyone else, and returns its pid. */
static pid_t child(void (*body)(int), int arg, int ctl[2])
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		close(ctl[1]);
		if (body)
			body(arg);
		fflush(stdout);
		char b;
		while (read(ctl[0], &b, 1) > 0)
			;
		_exit(0);
	}
	return c;
}

static int ready[2]; /* a child writes one byte here when it is ready */

static void own_session(int parent)
{
	SAME("child: in its parent's group %d and session %d", getpgrp() == getpgid(parent), getsid(0) == getsid(parent));
	pid_t s = setsid();
	SAME("child: setsid returned its pid %d", s == getpid());
	SAME("child: getsid %d getpgid %d getpgrp %d are its pid", getsid(0) == getpid(), getpgid(0) == getpid(), getpgrp() == getpid());
	CHECK("child: setsid again", setsid());
	CHECK("child: setpgid into its parent's group", setpgid(0, getpgid(parent)));
	SAME("child: its parent is still its parent %d", getppid() == parent);
	fflush(stdout);
	write(ready[1], "s", 1);
}

static void exec_probe(int arg)
{
	char w[16], self[256];
	snprintf(w, sizeof w, "%d", ready[1]);
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n < 0)
		_exit(91);
	self[n] = 0;
	execl(self, self, "execd", w, (char *)NULL);
	_exit(92);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "execd")) {
		write(atoi(argv[2]), "e", 1);
		pause(); /* until its parent kills it */
		return 0;
	}
	if (getpgrp() != getpid())
		setpgid(0, 0);
	pid_t me = getpid();
	SAME("main: leads its group %d, its session is not its own %d", getpgrp() == me, getsid(0) != me);
	CHECK("main: setsid", setsid());
	CHECK("main: setpgid(0, 0)", setpgid(0, 0));
	CHECK("main: setpgid(0, -1)", setpgid(0, -1));
	CHECK("main: setpgid of a pid that is not a child", setpgid(999999, 0));
	CHECK("main: getpgid of a pid that does not exist", getpgid(999999));

	/* A child makes its own session. */
	pipe(ready);
	int hold[2];
	pipe(hold);
	char b;
	pid_t a = child(own_session, me, hold);
	read(ready[0], &b, 1);
	SAME("main: the child's session %d and group %d are its pid", getsid(a) == a, getpgid(a) == a);
	CHECK("main: setpgid of a child in another session", setpgid(a, me));
	CHECK("main: setpgid into a group of another session", setpgid(0, a));
	close(hold[1]);
	int st;
	SAME("main: reaped it %d", waitpid(a, &st, 0) == a && WIFEXITED(st));
	close(hold[0]);

	/* A group of two children, one outside it. */
	pipe(hold);
	pid_t g1 = child(NULL, 0, hold), g2 = child(NULL, 0, hold), out = child(NULL, 0, hold);
	close(hold[0]);
	CHECK("main: setpgid(g1, 0)", setpgid(g1, 0));
	CHECK("main: setpgid(g2, g1)", setpgid(g2, g1));
	CHECK("main: setpgid(out, 424242)", setpgid(out, 424242));
	SAME("main: groups g1 %d g2 %d out %d", getpgid(g1) == g1, getpgid(g2) == g1, getpgid(out) == me);
	CHECK("main: kill(-g1, SIGTERM)", kill(-g1, SIGTERM));
	pid_t x = waitpid(-g1, &st, 0);
	int sx = WIFSIGNALED(st) ? WTERMSIG(st) : -1;
	pid_t y = waitpid(-g1, &st, 0);
	int sy = WIFSIGNALED(st) ? WTERMSIG(st) : -1;
	SAME("main: wait4(-g1) reaped g1 and g2 %d, by SIGTERM %d %d", (x == g1 && y == g2) || (x == g2 && y == g1), sx, sy);
	CHECK("main: wait4(-g1) with the group gone", waitpid(-g1, &st, WNOHANG));
	CHECK("main: kill(-g1, 0) with the group gone", kill(-g1, 0));
	CHECK("main: the child outside the group lives (wait4 WNOHANG)", waitpid(out, &st, WNOHANG));
	CHECK("main: kill(out, SIGKILL)", kill(out, SIGKILL));
	siginfo_t si = {0};
	CHECK("main: waitid(P_PGID, own group)", waitid(P_PGID, me, &si, WEXITED));
	SAME("main: waitid reaped out %d by SIGKILL %d", si.si_pid == out, si.si_status == SIGKILL && si.si_code == CLD_KILLED);
	CHECK("main: waitid(P_PGID, -1)", waitid(P_PGID, -1, &si, WEXITED | WNOHANG));
	close(hold[1]);

	/* kill(0): the caller's group, the caller too (it ignores the signal). */
	pipe(hold);
	pid_t e = child(NULL, 0, hold);
	close(hold[0]);
	signal(SIGUSR1, SIG_IGN);
	CHECK("main: kill(0, SIGUSR1)", kill(0, SIGUSR1));
	pid_t r = waitpid(0, &st, 0);
	SAME("main: wait4(0) reaped the child %d by SIGUSR1 %d", r == e, WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1);
	close(hold[1]);

	/* After its execve, a child's group is its own business. */
	pipe(hold);
	pid_t f = child(exec_probe, 0, hold);
	close(hold[0]);
	read(ready[0], &b, 1);
	CHECK("main: setpgid of a child that exec'd", setpgid(f, 0));
	CHECK("main: kill(f, SIGKILL)", kill(f, SIGKILL));
	SAME("main: reaped it %d", waitpid(f, &st, 0) == f);
	VIRT("main: getsid(1) %d", getsid(1));
	return 0;
}
