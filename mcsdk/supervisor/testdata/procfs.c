/* procfs: the /proc and /sys files real programs open (redis, glibc,
 * Go's runtime), read whole and printed, from the node and from a forked
 * child (redis's RDB child reads smaps). Under weft every one must be
 * virtual, the node's own, or absent: never the host's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *files[] = {
	"/proc/self/smaps", "/proc/self/smaps_rollup", "/proc/self/statm", "/proc/self/status",
	"/proc/self/stat", "/proc/self/maps", "/proc/uptime", "/proc/loadavg", "/proc/meminfo",
	"/proc/sys/kernel/random/boot_id", "/proc/sys/net/core/somaxconn", "/proc/sys/vm/overcommit_memory",
	"/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
	"/sys/devices/system/clocksource/clocksource0/current_clocksource", "/sys/devices/system/cpu/online",
	"/proc/self/cgroup", "/proc/self/mountinfo", "/proc/self/io", "/proc/self/task", "/proc/1/status",
	"/proc/mounts", "/proc/version", "/sys/class/net", "/proc/self/cmdline", "/proc/thread-self/stat",
	NULL,
};

static void dump(const char *path) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("== %s: errno %d\n", path, errno);
		return;
	}
	static char buf[1 << 20];
	size_t len = 0;
	ssize_t k;
	while (len < sizeof buf && (k = read(fd, buf + len, sizeof buf - len)) > 0)
		len += k;
	close(fd);
	for (size_t i = 0; i < len; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
	printf("== %s: %zu bytes\n%.*s\n", path, len, (int)len, buf);
}

static void dumpAll(const char *who) {
	printf("### %s\n", who);
	for (const char **f = files; *f; f++)
		dump(*f);
	char own[64];
	snprintf(own, sizeof own, "/proc/%d/status", getpid());
	dump(own);
	snprintf(own, sizeof own, "/proc/%d/cmdline", getpid());
	dump(own);
	fflush(stdout);
}

static void result(const char *what, long r)
{
	int e = errno;
	printf("%s: %ld errno %d\n", what, r, r < 0 ? e : 0);
	errno = 0;
}

/* paths: stat, readlink and chmod of /proc paths go through the same
 * table. */
static void paths(void) {
	struct stat st;
	char own[64], buf[256];
	result("stat /proc/1", stat("/proc/1", &st));
	result("stat /proc/version", stat("/proc/version", &st));
	snprintf(own, sizeof own, "/proc/%d/status", getpid());
	result("stat own status", stat(own, &st));
	snprintf(own, sizeof own, "/proc/%d/exe", getpid());
	ssize_t k = readlink(own, buf, sizeof buf);
	ssize_t k2 = readlink("/proc/self/exe", buf + 128, 128);
	printf("readlink own exe: %zd, same as self %d\n", k, k == k2 && k > 0 && memcmp(buf, buf + 128, k) == 0);
	result("readlink /proc/1/exe", readlink("/proc/1/exe", buf, sizeof buf));
	result("chmod /proc/self/io", chmod("/proc/self/io", 0600));
	/* A thread's name, set as glibc's pthread_setname_np sets another
	 * thread's (memcached names its workers so), then read back. */
	snprintf(own, sizeof own, "/proc/self/task/%d/comm", (int)gettid());
	int comm = open(own, O_WRONLY);
	result("open own task comm for writing", comm >= 0 ? 0 : -1);
	result("write own task comm", write(comm, "probe-named", 11));
	close(comm);
	dump("/proc/thread-self/comm");
	result("open own environ for writing", open("/proc/self/environ", O_WRONLY));
	int ro = open("/etc/hostname", O_RDONLY);
	snprintf(own, sizeof own, "/proc/self/fd/%d", ro);
	result("reopen a file outside for writing", open(own, O_WRONLY));
	int out = open("/proc/self/fd/1", O_WRONLY);
	result("reopen /dev/null for writing", out >= 0 ? 0 : -1);
	close(out);
	close(ro);
	fflush(stdout);
}

int main(void) {
	paths();
	dumpAll("parent");
	pid_t pid = fork();
	if (pid == 0) {
		dumpAll("child");
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("child %d exit %d\n", pid, WEXITSTATUS(st));
	return 0;
}
