/*
 * chldinfo.c: a child's end as its parent reads it with SIGCHLD blocked,
 * from a signalfd(2) and from sigwaitinfo(2): Linux's kernel sends that
 * SIGCHLD itself (do_notify_parent): si_code CLD_EXITED with the exit
 * code in si_status, or CLD_KILLED with the signal, si_pid the child's,
 * si_uid its uid; a signalfd copies si_status to ssi_status and leaves
 * ssi_int 0. Each child waits on a pipe until its parent is about to
 * read, so the parent waits blocking SIGCHLD when the child ends.
 */
#include "probe.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* child forks a child that ends as end says ('e': exit(code), 'k':
 * killed by SIGKILL) once the parent writes to its pipe; it returns the
 * child's pid with *go the pipe's write end. */
static pid_t child(char end, int code, int *go)
{
	int p[2];
	if (pipe(p))
		exit(2);
	pid_t kid = fork();
	if (kid == 0) {
		char b;
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(9);
		if (end == 'k')
			kill(getpid(), SIGKILL);
		_exit(code);
	}
	close(p[0]);
	*go = p[1];
	return kid;
}

int main(void)
{
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, NULL))
		return 2;
	int sfd = signalfd(-1, &chld, 0);
	CHECK("signalfd(SIGCHLD)", sfd);
	for (int i = 0; i < 2; i++) {
		char end = i ? 'k' : 'e';
		int go;
		pid_t kid = child(end, 3, &go);
		CHECK("write the go-ahead", write(go, "x", 1));
		struct signalfd_siginfo ssi;
		CHECK("read(signalfd)", read(sfd, &ssi, sizeof ssi) == sizeof ssi);
		SAME("signalfd %c: signo %u errno %d code %d pid is the child's %d uid is mine %d status %d int %d", end,
		     ssi.ssi_signo, ssi.ssi_errno, ssi.ssi_code, ssi.ssi_pid == (unsigned)kid, ssi.ssi_uid == getuid(),
		     ssi.ssi_status, ssi.ssi_int);
		CHECK("waitpid", waitpid(kid, NULL, 0));
		close(go);

		kid = child(end, 4, &go);
		CHECK("write the go-ahead", write(go, "x", 1));
		siginfo_t si;
		CHECK("sigwaitinfo(SIGCHLD)", sigwaitinfo(&chld, &si));
		SAME("sigwaitinfo %c: signo %d errno %d code %d pid is the child's %d uid is mine %d status %d", end,
		     si.si_signo, si.si_errno, si.si_code, si.si_pid == kid, si.si_uid == getuid(), si.si_status);
		CHECK("waitpid", waitpid(kid, NULL, 0));
		close(go);
	}
	return 0;
}
