/*
 * timersig.c: the siginfo of a timer's signal against Linux. An
 * ITIMER_REAL timer's SIGALRM is the kernel's own (it_real_fn sends it
 * with SEND_SIG_PRIV: si_code SI_KERNEL, si_pid and si_uid 0); a POSIX
 * timer's signal is SI_TIMER with the timer's id in si_timerid, its
 * overrun in si_overrun and its sigev_value (timer_create(2): the timer's
 * id when sevp is NULL). Each is read by a handler, by sigwaitinfo(2) and
 * by a signalfd(2); a periodic timer whose signal stays pending counts
 * overruns. ITIMER_REAL's si_code is SI_KERNEL (128) under weft too: the
 * kernel takes a code >= 0 only from the receiving thread itself, or from
 * the leader for its process (do_rt_tgsigqueueinfo, do_rt_sigqueueinfo),
 * so weft has the receiving thread queue it; here the thread blocks
 * SIGALRM in every wait (sigsuspend, sigwaitinfo, a signalfd read), as
 * that needs.
 */
#include "probe.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile siginfo_t got;
static volatile sig_atomic_t caught;

static void on(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	got = *si;
	caught = 1;
}

#define ITIMER (-1L) /* show's id for ITIMER_REAL's signal */
#define SIGEV (-2L)  /* show's id for a timer whose value is not its id */

/* show prints what matters of a timer signal's siginfo: for ITIMER_REAL
 * si_pid and si_uid, for a POSIX timer (id) the _timer fields. */
static void show(const char *how, const siginfo_t *si, long id)
{
	SAME("%s: signo %d errno %d", how, si->si_signo, si->si_errno);
	if (id == ITIMER) {
		SAME("%s: code %d pid %d uid %d", how, si->si_code, si->si_pid, si->si_uid);
		return;
	}
	SAME("%s: code %d", how, si->si_code);
	if (id >= 0)
		SAME("%s: timerid is the timer's %d overrun %d value is the id %d", how, si->si_timerid == (int)id,
		     si->si_overrun, si->si_value.sival_int == (int)id);
}

/* handled arms what arm does and waits in sigsuspend for sig's handler. */
static void handled(const char *how, int sig, void (*arm)(void), long id)
{
	sigset_t none;
	sigemptyset(&none);
	caught = 0;
	arm();
	while (!caught)
		sigsuspend(&none);
	siginfo_t si = *(siginfo_t *)&got;
	show(how, &si, id);
	(void)sig;
}

static timer_t posix, usr;

static void arm_itimer(void)
{
	struct itimerval itv = { .it_value = { .tv_usec = 1500 } };
	setitimer(ITIMER_REAL, &itv, NULL);
}

static void arm_posix(void)
{
	struct itimerspec its = { .it_value = { .tv_nsec = 1500000 } };
	timer_settime(posix, 0, &its, NULL);
}

static void arm_usr(void)
{
	struct itimerspec its = { .it_value = { .tv_nsec = 1500000 } };
	timer_settime(usr, 0, &its, NULL);
}

int main(void)
{
	struct sigaction sa = { .sa_sigaction = on, .sa_flags = SA_SIGINFO };
	sigset_t both;
	sigemptyset(&both);
	sigaddset(&both, SIGALRM);
	sigaddset(&both, SIGUSR1);
	if (sigaction(SIGALRM, &sa, NULL) || sigaction(SIGUSR1, &sa, NULL) || sigprocmask(SIG_BLOCK, &both, NULL))
		return 2;
	CHECK("timer_create(CLOCK_MONOTONIC, NULL)", timer_create(CLOCK_MONOTONIC, NULL, &posix));
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1, .sigev_value.sival_int = 42 };
	CHECK("timer_create(CLOCK_MONOTONIC, SIGUSR1 value 42)", timer_create(CLOCK_MONOTONIC, &ev, &usr));
	fflush(stdout);

	handled("ITIMER_REAL handler", SIGALRM, arm_itimer, ITIMER);
	/* SIGALRM unblocked, waiting in pause(2): the handler takes it at
	 * once (weft queues it as ever and gives the handler the kernel's
	 * form at its delivery). */
	sigset_t alrm1;
	sigemptyset(&alrm1);
	sigaddset(&alrm1, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &alrm1, NULL);
	caught = 0;
	arm_itimer();
	while (!caught)
		pause();
	sigprocmask(SIG_BLOCK, &alrm1, NULL);
	siginfo_t ui = *(siginfo_t *)&got;
	show("ITIMER_REAL unblocked handler", &ui, ITIMER);
	handled("timer_create(NULL) handler", SIGALRM, arm_posix, (long)(intptr_t)posix);
	handled("timer_create(SIGUSR1) handler", SIGUSR1, arm_usr, SIGEV);
	SAME("timer_create(SIGUSR1) handler: timerid is the timer's %d value %d", got.si_timerid == (int)(intptr_t)usr,
	     got.si_value.sival_int);

	sigset_t alrm;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	siginfo_t si;
	arm_itimer();
	CHECK("sigwaitinfo(SIGALRM) of ITIMER_REAL", sigwaitinfo(&alrm, &si));
	show("ITIMER_REAL sigwaitinfo", &si, ITIMER);
	arm_posix();
	CHECK("sigwaitinfo(SIGALRM) of timer_create(NULL)", sigwaitinfo(&alrm, &si));
	show("timer_create(NULL) sigwaitinfo", &si, (long)(intptr_t)posix);

	/* A periodic timer whose signal stays pending counts overruns: the
	 * signal carries them, and timer_getoverrun(2) reads them after.
	 * Linux counts them when the signal is dequeued (posixtimer_rearm),
	 * so this one carries the 20 ms's; weft fills si_overrun when it
	 * queues the signal, with the expiries missed before that (none
	 * here), and cannot change a queued siginfo: a "~" line. */
	sigset_t u1;
	sigemptyset(&u1);
	sigaddset(&u1, SIGUSR1);
	struct itimerspec every = { .it_interval = { .tv_nsec = 1000000 }, .it_value = { .tv_nsec = 1000000 } };
	CHECK("timer_settime(SIGUSR1 timer) every 1 ms", timer_settime(usr, 0, &every, NULL));
	struct timespec nap = { 0, 20000000 };
	nanosleep(&nap, NULL);
	CHECK("sigwaitinfo(SIGUSR1) after 20 ms", sigwaitinfo(&u1, &si));
	int over = timer_getoverrun(usr);
	SAME("periodic timer: code %d value %d, timer_getoverrun reads si_overrun %d", si.si_code, si.si_value.sival_int,
	     over == si.si_overrun);
	VIRT("periodic timer: overrun > 0 %d", si.si_overrun > 0);
	struct itimerspec off = { 0 };
	CHECK("timer_settime(SIGUSR1 timer) off", timer_settime(usr, 0, &off, NULL));

	int sfd = signalfd(-1, &alrm, 0);
	CHECK("signalfd(SIGALRM)", sfd);
	struct signalfd_siginfo ssi;
	arm_itimer();
	CHECK("read(signalfd) of ITIMER_REAL", read(sfd, &ssi, sizeof ssi) == sizeof ssi);
	SAME("ITIMER_REAL signalfd: signo %u errno %d code %d pid %u uid %u ptr %llu", ssi.ssi_signo, ssi.ssi_errno,
	     ssi.ssi_code, ssi.ssi_pid, ssi.ssi_uid, (unsigned long long)ssi.ssi_ptr);
	arm_posix();
	CHECK("read(signalfd) of timer_create(NULL)", read(sfd, &ssi, sizeof ssi) == sizeof ssi);
	SAME("timer_create(NULL) signalfd: signo %u code %d tid is the timer's %d overrun %u int is the id %d",
	     ssi.ssi_signo, ssi.ssi_code, ssi.ssi_tid == (unsigned)(intptr_t)posix, ssi.ssi_overrun,
	     ssi.ssi_int == (int)(intptr_t)posix);
	return 0;
}
