/* procend: which thread's end ends a process, and with which status
 * (exit(2), exit_group(2), kernel/exit.c), a kill after the leader's
 * exit; then signals to a zombie and
 * to a reaped child (kill(2), tgkill(2), rt_sigqueueinfo(2)). Natively
 * and under weft alike. */
#include "probe.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* How each scenario's second thread ends: after the leader has ended
 * (late: it sleeps 200 ms first, natively a margin, under weft virtual
 * time after the leader's exit) or before it (early: the leader joins
 * it, or pauses until its exit_group; a raw exit clears and wakes its
 * tid word all the same). */
struct how {
	int late;   /* wait for the leader to end first */
	int group;  /* exit_group rather than exit */
	int code;
};

static void *second(void *arg)
{
	struct how *h = arg;
	if (h->late)
		nap(200);
	if (h->group)
		syscall(SYS_exit_group, h->code);
	syscall(SYS_exit, h->code);
	return NULL;
}

/* scenario forks a child whose leader thread ends with exit(leader) (or
 * waits, early) and whose second thread ends as h says; it prints the
 * status the parent reaps. */
static void scenario(const char *what, int leader, struct how h)
{
	pid_t c = fork();
	if (c == 0) {
		pthread_t t;
		pthread_create(&t, NULL, second, &h);
		if (!h.late && h.group)
			for (;;)
				pause(); /* until the thread's exit_group ends it */
		if (!h.late)
			pthread_join(t, NULL);
		syscall(SYS_exit, leader);
	}
	int st = 0;
	pid_t got = waitpid(c, &st, 0);
	SAME("%s: reaped %d exited %d code %d signalled %d", what, got == c, WIFEXITED(st), WEXITSTATUS(st),
	     WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void *pauser(void *a)
{
	(void)a;
	for (;;)
		pause();
	return NULL;
}

/* killed forks a child whose leader exits while its second thread
 * pauses, then kills it with sig: the process ends by the signal. */
static void killed(int sig)
{
	pid_t c = fork();
	if (c == 0) {
		pthread_t t;
		pthread_create(&t, NULL, pauser, NULL);
		syscall(SYS_exit, 5);
	}
	nap(200);
	char name[64];
	snprintf(name, sizeof name, "kill(%d) after the leader's exit", sig);
	CHECK(name, kill(c, sig));
	int st = 0;
	pid_t got = waitpid(c, &st, 0);
	SAME("%s: reaped %d signalled %d", name, got == c, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* signals probes the signal calls on pid c with signal 0 and SIGUSR1. */
static void signals(const char *what, pid_t c)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_code = SI_QUEUE;
	char name[96];
	for (int sig = 0; sig <= SIGUSR1; sig += SIGUSR1) {
		snprintf(name, sizeof name, "%s kill(%d)", what, sig);
		CHECK(name, kill(c, sig));
		snprintf(name, sizeof name, "%s tkill(%d)", what, sig);
		CHECK(name, syscall(SYS_tkill, c, sig));
		snprintf(name, sizeof name, "%s tgkill(%d)", what, sig);
		CHECK(name, syscall(SYS_tgkill, c, c, sig));
		snprintf(name, sizeof name, "%s rt_sigqueueinfo(%d)", what, sig);
		CHECK(name, syscall(SYS_rt_sigqueueinfo, c, sig, &si));
		snprintf(name, sizeof name, "%s rt_tgsigqueueinfo(%d)", what, sig);
		CHECK(name, syscall(SYS_rt_tgsigqueueinfo, c, c, sig, &si));
	}
}

int main(void)
{
	setvbuf(stdout, 0, _IONBF, 0);
	scenario("leader exit(5) first, then thread exit(7)", 5, (struct how){ .late = 1, .code = 7 });
	scenario("thread exit(7) first, then leader exit(5)", 5, (struct how){ .late = 0, .code = 7 });
	scenario("leader exit(5) first, then thread exit_group(9)", 5, (struct how){ .late = 1, .group = 1, .code = 9 });
	scenario("thread exit_group(9) while the leader waits", 5, (struct how){ .late = 0, .group = 1, .code = 9 });
	killed(SIGTERM);
	killed(SIGKILL);

	pid_t c = fork();
	if (c == 0)
		_exit(3);
	siginfo_t si;
	waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT); /* c is a zombie */
	signals("zombie", c);
	int st;
	waitpid(c, &st, 0);
	signals("reaped", c);
	return 0;
}
