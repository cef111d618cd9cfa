// Thread workloads for the supervisor's tests (threads_linux_test.go).
// threads MODE: join, condwait, abort, spin, sleep, pingpong N, clones N,
// futexops (raw futex(2) operations; its output is the same natively).
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long counter;
static int turn, rounds;

static void *adder(void *arg) {
	long id = (long)arg;
	for (int i = 0; i < 3; i++) {
		pthread_mutex_lock(&mu);
		counter++;
		printf("t%ld tid %ld counter %ld\n", id, (long)syscall(SYS_gettid), counter);
		pthread_mutex_unlock(&mu);
	}
	return (void *)(id * 10);
}

static void *aborter(void *arg) {
	(void)arg;
	printf("aborting\n");
	fflush(stdout);
	abort();
}

static void *spinner(void *arg) {
	(void)arg;
	for (volatile int x = 0;; x++) {
	}
	return NULL;
}

static void *sleeper(void *arg) {
	long ms = (long)arg;
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
	printf("slept %ldms\n", ms);
	return NULL;
}

static void *nothing(void *arg) { return arg; }

static uint32_t f1, f2;
static volatile int waiting;

static long fx(uint32_t *a, int op, uint32_t val, const struct timespec *ts, uint32_t *a2, uint32_t val3) {
	long r = syscall(SYS_futex, a, op, val, ts, a2, val3);
	return r < 0 ? -errno : r;
}

// fxn is fx with a count where futex(2) takes a timeout pointer.
static long fxn(uint32_t *a, int op, uint32_t val, long n, uint32_t *a2, uint32_t val3) {
	long r = syscall(SYS_futex, a, op, val, (void *)n, a2, val3);
	return r < 0 ? -errno : r;
}

struct waitspec {
	uint32_t *addr;
	uint32_t bits;
	long rc;
};

static void *waiter(void *arg) {
	struct waitspec *w = arg;
	__atomic_add_fetch(&waiting, 1, __ATOMIC_SEQ_CST);
	if (w->bits)
		w->rc = fx(w->addr, FUTEX_WAIT_BITSET_PRIVATE, *w->addr, NULL, NULL, w->bits);
	else
		w->rc = fx(w->addr, FUTEX_WAIT_PRIVATE, *w->addr, NULL, NULL, 0);
	return NULL;
}

// settle gives started waiters time to block natively (under weft the
// sleep lets every ready thread run first).
static void settle(int n) {
	while (waiting < n)
		usleep(1000);
	usleep(20000);
}

static void futexops(void) {
	struct timespec rel = {0, 50 * 1000000}, abs;
	printf("wait wrong value: %ld\n", fx(&f1, FUTEX_WAIT, 7, NULL, NULL, 0));
	printf("wait relative timeout: %ld\n", fx(&f1, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0));
	clock_gettime(CLOCK_MONOTONIC, &abs);
	abs.tv_nsec += 20 * 1000000;
	if (abs.tv_nsec >= 1000000000) abs.tv_sec++, abs.tv_nsec -= 1000000000;
	printf("wait_bitset absolute monotonic: %ld\n", fx(&f1, FUTEX_WAIT_BITSET_PRIVATE, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY));
	clock_gettime(CLOCK_REALTIME, &abs);
	abs.tv_sec -= 1;
	printf("wait_bitset realtime in the past: %ld\n", fx(&f1, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY));
	printf("wait_bitset zero bitset: %ld\n", fx(&f1, FUTEX_WAIT_BITSET, 0, NULL, NULL, 0));
	printf("wake nobody: %ld\n", fx(&f1, FUTEX_WAKE, 1, NULL, NULL, 0));

	pthread_t a, b;
	struct waitspec wa = {&f1, 0, 99}, wb = {&f1, 0, 99};
	waiting = 0;
	pthread_create(&a, NULL, waiter, &wa);
	pthread_create(&b, NULL, waiter, &wb);
	settle(2);
	printf("cmp_requeue wrong value: %ld\n", fxn(&f1, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, &f2, 5));
	printf("cmp_requeue wake 1 move 1: %ld\n", fxn(&f1, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, &f2, 0));
	printf("wake f1 after requeue: %ld\n", fx(&f1, FUTEX_WAKE_PRIVATE, 10, NULL, NULL, 0));
	printf("wake f2 after requeue: %ld\n", fx(&f2, FUTEX_WAKE_PRIVATE, 10, NULL, NULL, 0));
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("waiters returned %ld %ld\n", wa.rc, wb.rc);

	struct waitspec wc = {&f2, 0, 99};
	waiting = 0;
	f2 = 0;
	pthread_create(&a, NULL, waiter, &wc);
	settle(1);
	printf("wake_op add 5 if 0: %ld\n", fxn(&f1, FUTEX_WAKE_OP_PRIVATE, 1, 1, &f2, FUTEX_OP(FUTEX_OP_ADD, 5, FUTEX_OP_CMP_EQ, 0)));
	printf("f2 now %u\n", f2);
	printf("wake_op or 2 if 0: %ld\n", fxn(&f1, FUTEX_WAKE_OP_PRIVATE, 1, 1, &f2, FUTEX_OP(FUTEX_OP_OR, 2, FUTEX_OP_CMP_EQ, 0)));
	printf("f2 now %u\n", f2);
	pthread_join(a, NULL);
	printf("waiter returned %ld\n", wc.rc);

	struct waitspec wd = {&f1, 2, 99};
	waiting = 0;
	f1 = 0;
	pthread_create(&a, NULL, waiter, &wd);
	settle(1);
	printf("wake_bitset other bits: %ld\n", fx(&f1, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 1));
	printf("wake_bitset its bits: %ld\n", fx(&f1, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 6));
	pthread_join(a, NULL);
	printf("bitset waiter returned %ld\n", wd.rc);

	f1 = 0;
	waiting = 0;
	struct waitspec we = {&f1, 0, 99};
	pthread_create(&a, NULL, waiter, &we);
	settle(1);
	printf("requeue all: %ld\n", fxn(&f1, FUTEX_REQUEUE_PRIVATE, 0, 10, &f2, 0));
	printf("wake f2: %ld\n", fx(&f2, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
	pthread_join(a, NULL);
	printf("requeued waiter returned %ld\n", we.rc);
}

static void *lastone(void *arg) {
	(void)arg;
	usleep(5000);
	printf("last thread exits the process\n");
	exit(3);
}

static void *groupexit(void *arg) {
	(void)arg;
	printf("thread ends the group\n");
	exit(4);
}

static volatile int flag;

static void *setflag(void *arg) {
	flag = 1; // its first instruction of its own
	return arg;
}

static volatile long handled_in;

static void on_usr1(int sig) {
	(void)sig;
	handled_in = syscall(SYS_gettid);
}

static void *sigwaiter(void *arg) {
	(void)arg;
	while (!handled_in)
		sched_yield();
	printf("SIGUSR1 handled in tid %ld\n", handled_in);
	return NULL;
}

static void *ponger(void *arg) {
	long me = (long)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (turn != me && rounds > 0)
			pthread_cond_wait(&cv, &mu);
		if (rounds <= 0) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		rounds--;
		turn = 1 - me;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "join";
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_t a, b;
	if (!strcmp(mode, "join")) {
		pthread_create(&a, NULL, adder, (void *)1);
		pthread_create(&b, NULL, adder, (void *)2);
		void *ra, *rb;
		pthread_join(a, &ra);
		pthread_join(b, &rb);
		printf("main tid %ld pid %ld total %ld results %ld %ld\n", (long)syscall(SYS_gettid), (long)getpid(), counter, (long)ra, (long)rb);
		return 0;
	}
	if (!strcmp(mode, "condwait")) {
		struct timespec t0, t1, dl;
		clock_gettime(CLOCK_REALTIME, &t0);
		dl = t0;
		dl.tv_sec += 10;
		pthread_mutex_lock(&mu);
		int rc = pthread_cond_timedwait(&cv, &mu, &dl);
		pthread_mutex_unlock(&mu);
		clock_gettime(CLOCK_REALTIME, &t1);
		printf("timedwait rc=%d waited %lds\n", rc, (long)(t1.tv_sec - t0.tv_sec));
		return 0;
	}
	if (!strcmp(mode, "abort")) {
		pthread_create(&a, NULL, aborter, NULL);
		pthread_join(a, NULL);
		return 0;
	}
	if (!strcmp(mode, "spin")) {
		pthread_create(&a, NULL, spinner, NULL);
		pthread_join(a, NULL);
		return 0;
	}
	if (!strcmp(mode, "sleep")) {
		pthread_create(&a, NULL, sleeper, (void *)300);
		pthread_create(&b, NULL, sleeper, (void *)100);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		printf("both slept\n");
		return 0;
	}
	if (!strcmp(mode, "pingpong")) {
		rounds = argc > 2 ? atoi(argv[2]) : 1000;
		int n = rounds;
		pthread_create(&a, NULL, ponger, (void *)0);
		pthread_create(&b, NULL, ponger, (void *)1);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		printf("pingpong %d done\n", n);
		return 0;
	}
	if (!strcmp(mode, "mainexit")) { // the main thread ends first
		pthread_create(&a, NULL, lastone, NULL);
		pthread_exit(NULL);
	}
	if (!strcmp(mode, "exitheld")) { // exit_group while the new thread is held
		pthread_create(&a, NULL, setflag, NULL);
		printf("exiting with the thread held\n");
		exit(5);
	}
	if (!strcmp(mode, "groupexit")) { // another thread's exit_group ends the waiting main one
		pthread_create(&a, NULL, groupexit, NULL);
		pthread_join(a, NULL);
		return 0;
	}
	if (!strcmp(mode, "hold")) { // neither thread runs on past the clone until picked
		pthread_create(&a, NULL, setflag, NULL);
		int seen = flag;
		pthread_join(a, NULL);
		printf("flag after create %d\n", seen);
		return 0;
	}
	if (!strcmp(mode, "sigthread")) { // pthread_kill: tgkill to another thread
		signal(SIGUSR1, on_usr1);
		pthread_create(&a, NULL, sigwaiter, NULL);
		pthread_kill(a, SIGUSR1);
		pthread_join(a, NULL);
		return 0;
	}
	if (!strcmp(mode, "futexops")) {
		futexops();
		return 0;
	}
	if (!strcmp(mode, "clones")) {
		int n = argc > 2 ? atoi(argv[2]) : 100;
		for (int i = 0; i < n; i++) {
			pthread_create(&a, NULL, nothing, NULL);
			pthread_join(a, NULL);
		}
		printf("clones %d done\n", n);
		return 0;
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
