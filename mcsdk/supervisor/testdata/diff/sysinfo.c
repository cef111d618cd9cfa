/* sysinfo: what a process learns about its machine. */
#include "probe.h"
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/* first reads the first line of a file. */
static void first(const char *path)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	if (!f) {
		SAME("%s: open failed %s", path, strerrorname_np(errno));
		return;
	}
	if (!fgets(buf, sizeof buf, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	VIRT("%s: %s", path, buf);
	fclose(f);
}

/* count counts the lines of a file that start with prefix. */
static int count(const char *path, const char *prefix)
{
	char buf[512];
	int n = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(buf, sizeof buf, f))
		n += strncmp(buf, prefix, strlen(prefix)) == 0;
	fclose(f);
	return n;
}

int main(void)
{
	struct utsname u;
	CHECK("uname", uname(&u));
	SAME("sysname %s machine %s", u.sysname, u.machine);
	VIRT("nodename %s release %s version %s", u.nodename, u.release, u.version);
	struct sysinfo si;
	CHECK("sysinfo", sysinfo(&si));
	VIRT("sysinfo uptime %ld totalram %lu procs %d", si.uptime, si.totalram, si.procs);
	struct rusage ru;
	CHECK("getrusage(SELF)", getrusage(RUSAGE_SELF, &ru));
	CHECK("getrusage(99)", getrusage(99, &ru));
	VIRT("rusage utime %ld maxrss %ld minflt %ld", (long)ru.ru_utime.tv_usec, ru.ru_maxrss, ru.ru_minflt);
	struct rlimit rl, rl2;
	CHECK("getrlimit(NOFILE)", getrlimit(RLIMIT_NOFILE, &rl));
	CHECK("prlimit(getpid(), NOFILE)", prlimit(getpid(), RLIMIT_NOFILE, NULL, &rl2));
	SAME("prlimit(getpid()) agrees with getrlimit: %d", rl.rlim_cur == rl2.rlim_cur && rl.rlim_max == rl2.rlim_max);
	rl2.rlim_cur = rl.rlim_cur > 64 ? 64 : rl.rlim_cur;
	CHECK("prlimit(getpid(), NOFILE, lower)", prlimit(getpid(), RLIMIT_NOFILE, &rl2, NULL));
	CHECK("getrlimit(NOFILE)", getrlimit(RLIMIT_NOFILE, &rl));
	SAME("lowered: %d", rl.rlim_cur == rl2.rlim_cur);
	errno = 0;
	int prio = getpriority(PRIO_PROCESS, getpid());
	SAME("getpriority(getpid()) equals getpriority(0): %d", prio == getpriority(PRIO_PROCESS, 0));
	CHECK("setpriority(getpid(), 5)", setpriority(PRIO_PROCESS, getpid(), 5));
	SAME("nice now 5: %d", getpriority(PRIO_PROCESS, 0) == 5);
	cpu_set_t set;
	CHECK("sched_getaffinity(0)", sched_getaffinity(0, sizeof set, &set));
	VIRT("affinity CPUs %d", CPU_COUNT(&set));
	CHECK("sched_getaffinity(0, 4 bytes)", syscall(SYS_sched_getaffinity, 0, 4, &set));
	unsigned cpu = 99, node = 99;
	CHECK("getcpu", getcpu(&cpu, &node));
	VIRT("getcpu cpu %u node %u", cpu, node);
	VIRT("get_nprocs %d sysconf online %ld", get_nprocs(), sysconf(_SC_NPROCESSORS_ONLN));
	first("/proc/uptime");
	first("/proc/loadavg");
	first("/proc/meminfo");
	first("/sys/devices/system/cpu/online");
	VIRT("/proc/cpuinfo processors %d", count("/proc/cpuinfo", "processor"));
	VIRT("/proc/stat cpu lines %d", count("/proc/stat", "cpu"));
	char buf[1024] = "";
	FILE *f = fopen("/proc/self/stat", "r");
	SAME("/proc/self/stat opens: %d", f != NULL);
	if (f) {
		if (!fgets(buf, sizeof buf, f))
			buf[0] = 0;
		fclose(f);
	}
	int fields = 0;
	for (char *p = strrchr(buf, ')'); p && *p; p++)
		fields += *p == ' ';
	SAME("/proc/self/stat fields %d", fields + 2);
	SAME("/proc/self/stat pid is getpid: %d", atoi(buf) == getpid());
	char line[256];
	int pidline = 0, ppid = -1;
	f = fopen("/proc/self/status", "r");
	SAME("/proc/self/status opens: %d", f != NULL);
	while (f && fgets(line, sizeof line, f)) {
		if (strncmp(line, "Pid:", 4) == 0)
			pidline = atoi(line + 4) == getpid();
		if (strncmp(line, "PPid:", 5) == 0)
			ppid = atoi(line + 5);
		if (strncmp(line, "VmRSS:", 6) == 0 || strncmp(line, "Cpus_allowed:", 13) == 0 ||
		    strncmp(line, "Cpus_allowed_list:", 18) == 0) {
			line[strcspn(line, "\n")] = 0;
			VIRT("status %s", line);
		}
	}
	if (f)
		fclose(f);
	SAME("/proc/self/status Pid is getpid: %d", pidline);
	VIRT("status PPid %d", ppid);
	return 0;
}
