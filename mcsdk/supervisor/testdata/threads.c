// Thread workloads for the supervisor's tests (threads_linux_test.go).
// threads MODE: join, condwait, abort, spin, sleep, pingpong N, clones N.
#define _GNU_SOURCE
#include <pthread.h>
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
