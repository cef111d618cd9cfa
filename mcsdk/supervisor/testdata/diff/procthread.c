/* procthread: a thread's own /proc directory. A second thread names
 * itself and blocks SIGUSR1, then reads its directory by every spelling
 * (/proc/thread-self, /proc/PID/task/TID, /proc/TID) and its process's
 * (/proc/self): a thread's stat and status show its id, its name and its
 * signal mask, the process's its own (proc(5)). Natively and under weft
 * alike. */
#include "probe.h"
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static char buf[8192];

/* slurp reads path into buf ("" if it cannot be opened). */
static const char *slurp(const char *path)
{
	buf[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return buf;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

/* stat says whether path's first field is want and shows its name. */
static void stat1(const char *label, const char *path, long want)
{
	const char *b = slurp(path), *l = strchr(b, '('), *r = strrchr(b, ')');
	SAME("%s: first field is %s, name %.*s", label, strtol(b, 0, 10) == want ? "the id" : "another id",
	     l && r ? (int)(r - l + 1) : 0, l ? l : "");
}

/* status shows path's Name and, with mask, SigBlk, and whether Pid is
 * pid and Tgid tgid. */
static void status(const char *label, const char *path, long pid, long tgid, int mask)
{
	const char *b = slurp(path), *p = strstr(b, "\nPid:\t"), *g = strstr(b, "\nTgid:\t");
	const char *name = strstr(b, "Name:\t"), *blk = strstr(b, "\nSigBlk:\t");
	SAME("%s: Pid %s, Tgid %s, %.*s, %.*s", label,
	     p && strtol(p + 6, 0, 10) == pid ? "the id" : "another id",
	     g && strtol(g + 7, 0, 10) == tgid ? "the pid" : "another id",
	     name ? (int)strcspn(name, "\n") : 0, name ? name : "",
	     blk && mask ? (int)strcspn(blk + 1, "\n") : 0, blk ? blk + 1 : "");
}

static void *thread(void *arg)
{
	(void)arg;
	char path[128];
	long pid = getpid(), tid = gettid();
	pthread_setname_np(pthread_self(), "worker-1");
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, 0);
	stat1("thread-self/stat", "/proc/thread-self/stat", tid);
	snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", pid, tid);
	stat1("PID/task/TID/stat", path, tid);
	snprintf(path, sizeof path, "/proc/%ld/stat", tid);
	stat1("TID/stat", path, tid);
	stat1("self/stat", "/proc/self/stat", pid);
	status("thread-self/status", "/proc/thread-self/status", tid, pid, 1);
	snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
	status("self/task/TID/status", path, tid, pid, 1);
	/* The main thread's mask is not shown: pthread_create blocks every
	 * signal around clone, so whether it is restored yet is a race. */
	status("self/status", "/proc/self/status", pid, pid, 0);
	return 0;
}

int main(void)
{
	setvbuf(stdout, 0, _IONBF, 0);
	pthread_t t;
	if (pthread_create(&t, 0, thread, 0) != 0)
		return 1;
	pthread_join(t, 0);
	stat1("main thread-self/stat", "/proc/thread-self/stat", getpid());
	status("main thread-self/status", "/proc/thread-self/status", getpid(), getpid(), 1);
	return 0;
}
