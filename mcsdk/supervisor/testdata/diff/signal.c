/* signal: signals a process sends itself. */
#include "probe.h"
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int got, code, pid, value;

static void on(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got = sig;
	code = si->si_code;
	pid = si->si_pid;
	value = si->si_value.sival_int;
}

int main(void)
{
	struct sigaction sa = { .sa_sigaction = on, .sa_flags = SA_SIGINFO };
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	CHECK("kill(self, 0)", kill(getpid(), 0));
	CHECK("kill(self, 65)", kill(getpid(), 65));
	CHECK("kill(self, SIGUSR1)", kill(getpid(), SIGUSR1));
	SAME("handled %d, sender is self: %d", got, pid == getpid());
	VIRT("si_code %d", code);
	got = 0;
	CHECK("raise(SIGUSR2)", raise(SIGUSR2));
	SAME("handled %d", got);
	got = 0;
	CHECK("tgkill(self, self, SIGUSR1)", syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1));
	SAME("handled %d", got);
	got = 0;
	union sigval v = { .sival_int = 7 };
	CHECK("sigqueue(self, SIGUSR2, 7)", sigqueue(getpid(), SIGUSR2, v));
	SAME("handled %d code %d value %d sender is self: %d", got, code, value, pid == getpid());
	got = 0;
	sigset_t s, p;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	CHECK("kill(self, SIGUSR1) blocked", kill(getpid(), SIGUSR1));
	sigpending(&p);
	SAME("pending %d handled %d", sigismember(&p, SIGUSR1), got);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	SAME("after unblocking: handled %d", got);
	got = 0;
	int fd = syscall(SYS_pidfd_open, getpid(), 0);
	SAME("pidfd_open(self) ok: %d", fd >= 0);
	CHECK("pidfd_send_signal(self, SIGUSR2)", syscall(SYS_pidfd_send_signal, fd, SIGUSR2, NULL, 0));
	SAME("handled %d", got);
	CHECK("pidfd_send_signal(-1)", syscall(SYS_pidfd_send_signal, -1, SIGUSR2, NULL, 0));
	/* Under weft, nothing outside the node can be reached: */
	errno = 0;
	long r = kill(1, 0);
	VIRT("kill(1, 0) -> %ld %s", r, r ? strerrorname_np(errno) : "ok");
	errno = 0;
	r = kill(-1, 0);
	VIRT("kill(-1, 0) -> %ld %s", r, r ? strerrorname_np(errno) : "ok");
	errno = 0;
	r = ptrace(PTRACE_TRACEME, 0, 0, 0);
	VIRT("ptrace(TRACEME) -> %ld %s", r, r ? strerrorname_np(errno) : "ok");
	return 0;
}
