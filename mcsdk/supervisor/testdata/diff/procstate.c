/*
 * procstate: the state /proc shows of a thread that waits in a call (a
 * read of an empty pipe): S (sleeping) in its stat and status, natively
 * and under weft, where the thread is parked; the reading thread itself
 * is R (running). Natively the other thread may reach its read late on a
 * loaded machine, so the probe first awaits its sleep (await_sleeping).
 */
#include "probe.h"
#include <pthread.h>

static int fds[2], started[2];
static pid_t reader;

static void *waiter(void *arg)
{
	(void)arg;
	char c;
	reader = gettid();
	if (write(started[1], "s", 1) != 1)
		return (void *)-1L;
	return (void *)(long)read(fds[0], &c, 1);
}

/* field reads path and returns its state: stat's third field, or the
 * first letter after status's "State:". */
static char field(const char *path, int status)
{
	char buf[2048];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	if (status) {
		char *p = strstr(buf, "State:\t");
		return p ? p[7] : '?';
	}
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

int main(void)
{
	pthread_t th;
	char c;
	if (pipe(fds) < 0 || pipe(started) < 0 || pthread_create(&th, NULL, waiter, NULL) != 0 ||
	    read(started[0], &c, 1) != 1)
		return 1;
	char stat[64], status[64];
	snprintf(stat, sizeof stat, "/proc/self/task/%d/stat", (int)reader);
	snprintf(status, sizeof status, "/proc/self/task/%d/status", (int)reader);
	await_sleeping(reader);
	SAME("a thread waiting in read: stat %c, status %c", field(stat, 0), field(status, 1));
	SAME("the reading thread: stat %c, status %c", field("/proc/thread-self/stat", 0),
	     field("/proc/thread-self/status", 1));
	SAME("the process, read by its main thread: stat %c", field("/proc/self/stat", 0));
	if (write(fds[1], "x", 1) != 1)
		return 1;
	void *r;
	pthread_join(th, &r);
	SAME("read -> %ld", (long)r);
	return 0;
}
