/*
 * hugetime: every served call that takes a timeout or a timer value as a
 * struct timespec or timeval, given one that does not fit in 64-bit
 * nanoseconds (or, once added to the clock, would pass its range). Linux
 * saturates such a value at KTIME_MAX (timespec64_to_ktime, ktime_set,
 * ktime_add_safe; the jiffies of semtimedop and SO_RCVTIMEO cap at
 * MAX_JIFFY_OFFSET and MAX_SCHEDULE_TIMEOUT) and a deadline there is
 * never reached: each wait here ends by what another thread does 20 ms
 * later (a signal, a wake, a semop, a queued signal), never at once, and
 * a timer so armed has not expired 20 ms later. A value that is not valid
 * (tv_sec negative, tv_nsec outside 0..999999999, tv_usec outside
 * 0..999999) is EINVAL. WRAPS seconds are 512 ns modulo 2^64 ns.
 */
#include "probe.h"
#include <limits.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define WRAPS 20211507185753197LL

static pthread_t mainth;
static pid_t maintid;
static volatile int alarms;
static uint32_t word;
static int semid;

static void on(int sig)
{
	if (sig == SIGALRM)
		alarms++;
}

static void pause20(void)
{
	struct timespec d = { .tv_nsec = 20000000 };
	nanosleep(&d, NULL);
}

/* after waits 20 ms and until the main thread sleeps in its call, then
 * ends the main thread's wait its own way. */
static void *after(void *arg)
{
	pause20();
	await_sleeping(maintid);
	switch ((int)(intptr_t)arg) {
	case 0:
		pthread_kill(mainth, SIGUSR1);
		break;
	case 1:
		word = 1;
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		break;
	case 2: {
		struct sembuf up = { 0, 1, 0 };
		semop(semid, &up, 1);
		break;
	}
	case 3:
		pthread_kill(mainth, SIGUSR2);
		break;
	}
	return NULL;
}

static pthread_t start(int how)
{
	pthread_t th;
	pthread_create(&th, NULL, after, (void *)(intptr_t)how);
	return th;
}

#define SHOW(fmt, ret, ...) \
	SAME(fmt ": -> %ld %s", __VA_ARGS__, (long)(ret), (ret) < 0 ? strerrorname_np(errno) : "ok")

static const struct {
	long long sec, frac;
} huge[] = { { LLONG_MAX, 999999999 }, { WRAPS, 0 }, { 9223372036LL, 854775807 }, { 9000000000LL, 0 } },
  bad[] = { { 0, 1000000000 }, { 0, -1 }, { -1, 0 } };
#define N(a) (sizeof a / sizeof a[0])

static void sleeps(void)
{
	for (unsigned i = 0; i < N(huge); i++) {
		struct timespec ts = { huge[i].sec, huge[i].frac }, rem = { 0, 0 };
		pthread_t th = start(0);
		errno = 0;
		long r = syscall(SYS_nanosleep, &ts, &rem);
		SHOW("nanosleep {%lld, %lld}, a signal after 20 ms", r, huge[i].sec, huge[i].frac);
		SAME("nanosleep {%lld, %lld}: rem beyond 9000000000 s %d", huge[i].sec, huge[i].frac, rem.tv_sec > 9000000000LL);
		pthread_join(th, NULL);
		clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME };
		for (unsigned c = 0; c < N(clocks); c++)
			for (int abs = 0; abs < 2; abs++) {
				ts = (struct timespec){ huge[i].sec, huge[i].frac };
				th = start(0);
				int e = clock_nanosleep(clocks[c], abs ? TIMER_ABSTIME : 0, &ts, NULL);
				SAME("clock_nanosleep clock %d%s {%lld, %lld}, a signal after 20 ms: -> %s", clocks[c],
				     abs ? " TIMER_ABSTIME" : "", huge[i].sec, huge[i].frac, e ? strerrorname_np(e) : "ok");
				pthread_join(th, NULL);
			}
	}
	for (unsigned i = 0; i < N(bad); i++) {
		struct timespec ts = { bad[i].sec, bad[i].frac };
		errno = 0;
		long r = syscall(SYS_nanosleep, &ts, NULL);
		SHOW("nanosleep {%lld, %lld}", r, bad[i].sec, bad[i].frac);
		for (int abs = 0; abs < 2; abs++) {
			int e = clock_nanosleep(CLOCK_MONOTONIC, abs ? TIMER_ABSTIME : 0, &ts, NULL);
			SAME("clock_nanosleep%s {%lld, %lld}: -> %s", abs ? " TIMER_ABSTIME" : "", bad[i].sec, bad[i].frac,
			     e ? strerrorname_np(e) : "ok");
		}
	}
	struct timespec ok = { 0, 1 };
	int e = clock_nanosleep(12345, 0, &ok, NULL);
	SAME("clock_nanosleep on clock 12345: -> %s", e ? strerrorname_np(e) : "ok");
	e = clock_nanosleep(CLOCK_MONOTONIC, 0, (void *)8, NULL);
	SAME("clock_nanosleep, unreadable timespec: -> %s", e ? strerrorname_np(e) : "ok");
}

static void futexes(void)
{
	for (unsigned i = 0; i < N(huge); i++) {
		for (int op = 0; op < 3; op++) {
			struct timespec ts = { huge[i].sec, huge[i].frac };
			int cmd = op == 0 ? FUTEX_WAIT_PRIVATE : FUTEX_WAIT_BITSET_PRIVATE | (op == 2 ? FUTEX_CLOCK_REALTIME : 0);
			word = 0;
			pthread_t th = start(1);
			errno = 0;
			long r;
			do
				r = syscall(SYS_futex, &word, cmd, 0, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
			while (r == 0 && word == 0);
			SHOW("futex op %d {%lld, %lld}, a wake after 20 ms", r, cmd, huge[i].sec, huge[i].frac);
			pthread_join(th, NULL);
		}
	}
	for (unsigned i = 0; i < N(bad); i++) {
		struct timespec ts = { bad[i].sec, bad[i].frac };
		word = 0;
		errno = 0;
		long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
		SHOW("futex FUTEX_WAIT {%lld, %lld}", r, bad[i].sec, bad[i].frac);
		errno = 0;
		r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
		SHOW("futex FUTEX_WAIT {%lld, %lld}, the word differs", r, bad[i].sec, bad[i].frac);
	}
	errno = 0;
	long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, (void *)8, NULL, 0);
	SHOW("futex FUTEX_WAIT, unreadable timespec, the word differs%s", r, "");
}

static void sems(void)
{
	semid = semget(IPC_PRIVATE, 1, 0600);
	for (unsigned i = 0; i < N(huge); i++) {
		struct timespec ts = { huge[i].sec, huge[i].frac };
		struct sembuf down = { 0, -1, 0 };
		pthread_t th = start(2);
		errno = 0;
		long r = semtimedop(semid, &down, 1, &ts);
		SHOW("semtimedop {%lld, %lld}, a semop after 20 ms", r, huge[i].sec, huge[i].frac);
		pthread_join(th, NULL);
	}
	for (unsigned i = 0; i < N(bad); i++) {
		struct timespec ts = { bad[i].sec, bad[i].frac };
		struct sembuf down = { 0, -1, 0 };
		errno = 0;
		long r = semtimedop(semid, &down, 1, &ts);
		SHOW("semtimedop {%lld, %lld}", r, bad[i].sec, bad[i].frac);
	}
	semctl(semid, 0, IPC_RMID);
}

static void sigwaits(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	for (unsigned i = 0; i < N(huge); i++) {
		struct timespec ts = { huge[i].sec, huge[i].frac };
		pthread_t th = start(3);
		errno = 0;
		long r = syscall(SYS_rt_sigtimedwait, &s, NULL, &ts, 8);
		SHOW("rt_sigtimedwait {%lld, %lld}, SIGUSR2 after 20 ms", r, huge[i].sec, huge[i].frac);
		pthread_join(th, NULL);
	}
	for (unsigned i = 0; i < N(bad); i++) {
		struct timespec ts = { bad[i].sec, bad[i].frac };
		errno = 0;
		long r = syscall(SYS_rt_sigtimedwait, &s, NULL, &ts, 8);
		SHOW("rt_sigtimedwait {%lld, %lld}", r, bad[i].sec, bad[i].frac);
	}
}

static void timers(void)
{
	for (unsigned i = 0; i < N(huge); i++) {
		for (int abs = 0; abs < 2; abs++) {
			int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
			struct itimerspec its = { .it_value = { huge[i].sec, huge[i].frac } }, cur;
			errno = 0;
			long r = timerfd_settime(fd, abs ? TFD_TIMER_ABSTIME : 0, &its, NULL);
			SHOW("timerfd_settime%s {%lld, %lld}", r, abs ? " TFD_TIMER_ABSTIME" : "", huge[i].sec, huge[i].frac);
			pause20();
			uint64_t n = 0;
			errno = 0;
			r = read(fd, &n, 8);
			SHOW("timerfd read 20 ms later, %llu expiries", r, (unsigned long long)n);
			timerfd_gettime(fd, &cur);
			SAME("timerfd_gettime: armed %d", cur.it_value.tv_sec || cur.it_value.tv_nsec);
			close(fd);

			timer_t t;
			struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
			timer_create(CLOCK_MONOTONIC, &sev, &t);
			alarms = 0;
			errno = 0;
			r = timer_settime(t, abs ? TIMER_ABSTIME : 0, &its, NULL);
			SHOW("timer_settime%s {%lld, %lld}", r, abs ? " TIMER_ABSTIME" : "", huge[i].sec, huge[i].frac);
			pause20();
			timer_gettime(t, &cur);
			SAME("timer 20 ms later: %d signals, armed %d", alarms, cur.it_value.tv_sec || cur.it_value.tv_nsec);
			timer_delete(t);
		}
		struct itimerval itv = { .it_value = { huge[i].sec, huge[i].frac / 1000 } }, cur;
		alarms = 0;
		errno = 0;
		long r = setitimer(ITIMER_REAL, &itv, NULL);
		SHOW("setitimer {%lld, %lld}", r, huge[i].sec, huge[i].frac / 1000);
		pause20();
		getitimer(ITIMER_REAL, &cur);
		SAME("ITIMER_REAL 20 ms later: %d signals, armed %d", alarms, cur.it_value.tv_sec || cur.it_value.tv_usec);
		setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
	}
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	timer_t t;
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	timer_create(CLOCK_MONOTONIC, &sev, &t);
	for (unsigned i = 0; i < N(bad); i++) {
		for (int which = 0; which < 2; which++) {
			struct itimerspec its = { .it_value = { 1, 0 } };
			if (which)
				its.it_interval = (struct timespec){ bad[i].sec, bad[i].frac };
			else
				its.it_value = (struct timespec){ bad[i].sec, bad[i].frac };
			errno = 0;
			long r = timerfd_settime(fd, 0, &its, NULL);
			SHOW("timerfd_settime %s {%lld, %lld}", r, which ? "interval" : "value", bad[i].sec, bad[i].frac);
			errno = 0;
			r = timer_settime(t, 0, &its, NULL);
			SHOW("timer_settime %s {%lld, %lld}", r, which ? "interval" : "value", bad[i].sec, bad[i].frac);
		}
		struct itimerval itv = { .it_value = { bad[i].sec, bad[i].frac / 1000 } };
		if (bad[i].frac == 1000000000)
			itv.it_value.tv_usec = 1000000;
		errno = 0;
		long r = setitimer(ITIMER_REAL, &itv, NULL);
		SHOW("setitimer {%lld, %lld}", r, (long long)itv.it_value.tv_sec, (long long)itv.it_value.tv_usec);
		setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
	}
	close(fd);
	timer_delete(t);
}

static void rcvtimeo(void)
{
	for (unsigned i = 0; i < N(huge); i++) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		bind(s, (struct sockaddr *)&a, sizeof a);
		struct timeval tv = { huge[i].sec, huge[i].frac / 1000 };
		errno = 0;
		long r = setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		SHOW("SO_RCVTIMEO {%lld, %lld}", r, huge[i].sec, huge[i].frac / 1000);
		pthread_t th = start(0);
		char b;
		errno = 0;
		r = recv(s, &b, 1, 0);
		SHOW("recv, SO_RCVTIMEO {%lld, %lld}, a signal after 20 ms", r, huge[i].sec, huge[i].frac / 1000);
		pthread_join(th, NULL);
		close(s);
	}
}

int main(void)
{
	mainth = pthread_self();
	maintid = gettid();
	struct sigaction sa = { .sa_handler = on };
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	sleeps();
	futexes();
	sems();
	sigwaits();
	timers();
	rcvtimeo();
	return 0;
}
