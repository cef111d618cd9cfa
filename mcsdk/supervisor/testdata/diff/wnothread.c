/* wnothread: wait4 and waitid with __WNOTHREAD wait only for the
 * calling thread's own children, not its thread group's; a thread's
 * children pass at its end to another thread of its process
 * (forget_original_parent, find_alive_thread). */
#include "probe.h"
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int go[2], forked[2];
static pid_t c1, c3;

static pid_t child(int code)
{
	pid_t p = fork();
	if (p == 0)
		_exit(code);
	return p;
}

/* w4 prints what wait4(pid, options) answers: which child, and its
 * exit code. */
static void w4(const char *what, pid_t pid, int options, pid_t want)
{
	int st = 0;
	pid_t got = waitpid(pid, &st, options);
	if (got < 0)
		SAME("%s -> -1 %s", what, strerrorname_np(errno));
	else
		SAME("%s -> %s exit %d", what, got == want ? "that child" : got == 0 ? "none yet" : "another", WEXITSTATUS(st));
}

static void *thread(void *arg)
{
	(void)arg;
	char b;
	c1 = child(3);
	c3 = child(5);
	write(forked[1], "x", 1);
	read(go[0], &b, 1);
	w4("thread: wait4(c1, __WNOTHREAD)", c1, __WNOTHREAD, c1);
	return NULL; /* c3, a zombie, passes to the main thread */
}

int main(void)
{
	pthread_t t;
	char b;
	siginfo_t si;
	setvbuf(stdout, NULL, _IONBF, 0);
	pipe(go);
	pipe(forked);
	pthread_create(&t, NULL, thread, NULL);
	read(forked[0], &b, 1);
	/* Without __WNOTHREAD a thread waits for its group's children. */
	si.si_pid = 0;
	CHECK("main: waitid(c1, WNOWAIT)", waitid(P_PID, c1, &si, WEXITED | WNOWAIT));
	CHECK("main: waitid(c3, WNOWAIT)", waitid(P_PID, c3, &si, WEXITED | WNOWAIT));
	w4("main: wait4(-1, WNOHANG|__WNOTHREAD)", -1, WNOHANG | __WNOTHREAD, 0);
	w4("main: wait4(c1, WNOHANG|__WNOTHREAD)", c1, WNOHANG | __WNOTHREAD, 0);
	CHECK("main: waitid(P_ALL, WNOHANG|__WNOTHREAD)", waitid(P_ALL, 0, &si, WEXITED | WNOHANG | __WNOTHREAD));
	pid_t c2 = child(4);
	w4("main: wait4(-1, __WNOTHREAD), own child", -1, __WNOTHREAD, c2);
	write(go[1], "x", 1);
	pthread_join(t, NULL);
	w4("main: wait4(-1, __WNOTHREAD), after the thread's end", -1, __WNOTHREAD, c3);
	w4("main: wait4(-1, 0), none left", -1, 0, 0);
	return 0;
}
