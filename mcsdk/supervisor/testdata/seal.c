/*
 * seal: the probe of issue 13's "Must show". It stats files, reads
 * /proc/uptime and its rusage, signals itself, tries to reach a host
 * process and to write outside its run directory, then aborts.
 *
 * usage: seal HOST_PID OUTSIDE_PATH
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on(int sig) { got = sig; }

static void show(const char *what, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		printf("stat %s: %s\n", what, strerrorname_np(errno));
		return;
	}
	printf("stat %s: size %lld mtime %lld.%09ld ctime %lld.%09ld atime %lld\n", what, (long long)st.st_size,
	       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
	       st.st_ctim.tv_nsec, (long long)st.st_atim.tv_sec);
}

static void result(const char *what, long r)
{
	printf("%s = %ld%s%s\n", what, r, r < 0 ? " " : "", r < 0 ? strerrorname_np(errno) : "");
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	pid_t host = (pid_t)atoi(argv[1]);

	show("/", "/");
	show("/etc/passwd", "/etc/passwd");
	int fd = open("data", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	write(fd, "one\n", 4);
	show("data", "data");
	struct timespec d = { 2, 0 };
	nanosleep(&d, NULL);
	write(fd, "two\n", 4);
	close(fd);
	show("data after 2 s", "data");

	char up[64] = "";
	FILE *f = fopen("/proc/uptime", "r");
	if (f && fgets(up, sizeof up, f))
		printf("/proc/uptime: %s", up);
	if (f)
		fclose(f);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("rusage: utime %ld.%06ld stime %ld.%06ld maxrss %ld\n", (long)ru.ru_utime.tv_sec,
	       (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss);

	signal(SIGUSR1, on);
	errno = 0;
	result("kill(getpid(), 0)", kill(getpid(), 0));
	result("raise(SIGUSR1)", raise(SIGUSR1));
	printf("handler saw signal %d\n", (int)got);
	errno = 0;
	result("kill(host, 0)", kill(host, 0));
	errno = 0;
	result("kill(host, SIGTERM)", kill(host, SIGTERM));
	errno = 0;
	result("ptrace(PTRACE_ATTACH, host)", ptrace(PTRACE_ATTACH, host, 0, 0));
	errno = 0;
	result("ptrace(PTRACE_TRACEME)", ptrace(PTRACE_TRACEME, 0, 0, 0));
	errno = 0;
	result("open(outside, O_CREAT)", open(argv[2], O_CREAT | O_WRONLY, 0644));
	errno = 0;
	result("open(outside, O_RDONLY)", open("/etc/passwd", O_RDONLY));
	fflush(stdout);
	abort();
}
