/* vdso: clock reads through every entry of the vDSO (clock_gettime on
 * each clock id, gettimeofday, time), alone, beside a second thread and
 * beside a child process, with sleeps between. Each line is what one
 * read returned, so a run with weft's vDSO and one without must print the
 * same lines. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void reads(const char *when)
{
	for (int id = -1; id <= 12; id++) {
		struct timespec ts = { 0, 0 };
		int r = clock_gettime(id, &ts);
		printf("%s clock %d: %d %s %lld.%09ld\n", when, id, r, r ? strerror(errno) : "ok", (long long)ts.tv_sec, ts.tv_nsec);
	}
	struct timeval tv;
	struct timezone tz = { 99, 99 };
	int r = gettimeofday(&tv, &tz);
	printf("%s gettimeofday: %d %lld.%06ld tz %d %d\n", when, r, (long long)tv.tv_sec, (long)tv.tv_usec, tz.tz_minuteswest, tz.tz_dsttime);
	time_t t = 0;
	time_t got = time(&t);
	printf("%s time: %lld %lld\n", when, (long long)got, (long long)t);
	fflush(stdout);
}

static void nap(long ms)
{
	struct timespec d = { ms / 1000, ms % 1000 * 1000000 };
	nanosleep(&d, NULL);
}

static void *worker(void *arg)
{
	(void)arg;
	nap(20);
	reads("worker");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "alone";
	reads("start");
	nap(1500);
	reads("slept");
	if (!strcmp(mode, "thread")) {
		pthread_t th;
		pthread_create(&th, NULL, worker, NULL);
		reads("beside");
		pthread_join(th, NULL);
		nap(10);
		reads("joined");
	}
	if (!strcmp(mode, "fork")) {
		pid_t c = fork();
		if (c == 0) {
			nap(5);
			reads("child");
			_exit(0);
		}
		reads("parent");
		int st;
		waitpid(c, &st, 0);
		nap(10);
		reads("waited");
	}
	return 0;
}
