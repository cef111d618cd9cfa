/* Every call that takes a pid, tid, process group or session id, each
 * named three ways (issue 36 §3): by an id of the node's own ("own": the
 * caller, or the group a child made with setsid), by the host pid of a
 * sacrificial host process ("host", argv[2]), and by the virtual pid of
 * another node ("other", argv[3]), and by a pid no process has
 * ("none", argv[4]: the answer must not tell it from a host pid). The calls that could harm a process
 * try to (SIGKILL, nice 19, an idle I/O class, RLIMIT_CORE 0); the test
 * judges from the host that nothing reached either. Every line is
 * "call kind: ok" or "call kind: ERRNO". With argv[1] "idle" the probe
 * only waits to be killed: it is the other node. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP 2
#define IOPRIO_IDLE ((3 << 13) | 7)

static int fd;   /* a pipe's read end, for F_SETOWN */
static int sig;  /* 0 for the node's own ids, SIGKILL for the others */
static int niceness; /* 0 for the node's own ids, 19 for the others */

static long c_kill(long id) { return kill(id, sig); }
static long c_killpg(long id) { return kill(-id, sig); }
static long c_tkill(long id) { return syscall(SYS_tkill, id, sig); }
static long c_tgkill(long id) { return syscall(SYS_tgkill, id, id, sig); }
static long c_sigqueue(long id) {
	siginfo_t si = {0};
	si.si_code = SI_QUEUE;
	return syscall(SYS_rt_sigqueueinfo, id, sig, &si);
}
static long c_tgsigqueue(long id) {
	siginfo_t si = {0};
	si.si_code = SI_QUEUE;
	return syscall(SYS_rt_tgsigqueueinfo, id, id, sig, &si);
}
static long c_getaffinity(long id) {
	cpu_set_t s;
	return sched_getaffinity(id, sizeof s, &s);
}
static long c_setaffinity(long id) {
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	return sched_setaffinity(id, sizeof s, &s);
}
static long c_getparam(long id) {
	struct sched_param p;
	return sched_getparam(id, &p);
}
static long c_setscheduler(long id) {
	struct sched_param p = {0};
	return sched_setscheduler(id, sig ? SCHED_IDLE : SCHED_OTHER, &p);
}
static long c_getprio(long id) {
	errno = 0;
	long r = getpriority(PRIO_PROCESS, id);
	return r == -1 && errno ? -1 : 0;
}
static long c_setprio(long id) { return setpriority(PRIO_PROCESS, id, niceness); }
static long c_getprio_pgrp(long id) {
	errno = 0;
	long r = getpriority(PRIO_PGRP, id);
	return r == -1 && errno ? -1 : 0;
}
static long c_setprio_pgrp(long id) { return setpriority(PRIO_PGRP, id, niceness); }
static long c_ioprio_set(long id) { return syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, id, sig ? IOPRIO_IDLE : 0); }
static long c_ioprio_get(long id) { return syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, id); }
static long c_ioprio_set_pgrp(long id) { return syscall(SYS_ioprio_set, IOPRIO_WHO_PGRP, id, sig ? IOPRIO_IDLE : 0); }
static long c_ioprio_get_pgrp(long id) { return syscall(SYS_ioprio_get, IOPRIO_WHO_PGRP, id); }
static long c_capget(long id) {
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, id};
	struct __user_cap_data_struct d[2];
	return syscall(SYS_capget, &h, d);
}
static long c_prlimit(long id) {
	struct rlimit r = {0, 0};
	return prlimit(id, RLIMIT_CORE, sig ? &r : NULL, NULL);
}
static long c_pidfd_open(long id) {
	long r = syscall(SYS_pidfd_open, id, 0);
	if (r >= 0) {
		long s = syscall(SYS_pidfd_send_signal, r, 0, NULL, 0);
		close(r);
		return s;
	}
	return r;
}
static long c_waitid(long id) {
	siginfo_t si;
	return waitid(P_PID, id, &si, WEXITED | WNOHANG);
}
static long c_waitid_pgid(long id) {
	siginfo_t si;
	return waitid(P_PGID, id, &si, WEXITED | WNOHANG);
}
static long c_wait4_pgid(long id) { return wait4(-id, NULL, WNOHANG, NULL); }
static long c_setpgid(long id) { return setpgid(id, id); }
static long c_getpgid(long id) { return getpgid(id); }
static long c_getsid(long id) { return getsid(id); }
static long c_setown(long id) { return fcntl(fd, F_SETOWN, id); }
static long c_setown_pgrp(long id) { return fcntl(fd, F_SETOWN, -id); }
static long c_setown_ex_pgrp(long id) {
	struct f_owner_ex o = {F_OWNER_PGRP, id};
	return fcntl(fd, F_SETOWN_EX, &o);
}
static long c_setown_ex_tid(long id) {
	struct f_owner_ex o = {F_OWNER_TID, id};
	return fcntl(fd, F_SETOWN_EX, &o);
}
static long c_tiocspgrp(long id) {
	pid_t g = id;
	return ioctl(1, TIOCSPGRP, &g);
}
static long c_tiocgpgrp(long id) {
	pid_t g = id;
	return ioctl(1, TIOCGPGRP, &g);
}
static long c_tiocgsid(long id) {
	pid_t g = id;
	return ioctl(1, TIOCGSID, &g);
}

/* Which own id a call takes: the caller's pid, or the child's group. */
enum { SELF, GROUP };

static const struct {
	const char *name;
	long (*f)(long);
	int own;
} calls[] = {
	{"kill", c_kill, SELF},
	{"kill -pgid", c_killpg, GROUP},
	{"tkill", c_tkill, SELF},
	{"tgkill", c_tgkill, SELF},
	{"rt_sigqueueinfo", c_sigqueue, SELF},
	{"rt_tgsigqueueinfo", c_tgsigqueue, SELF},
	{"sched_getaffinity", c_getaffinity, SELF},
	{"sched_setaffinity", c_setaffinity, SELF},
	{"sched_getparam", c_getparam, SELF},
	{"sched_setscheduler", c_setscheduler, SELF},
	{"getpriority", c_getprio, SELF},
	{"setpriority", c_setprio, SELF},
	{"getpriority PRIO_PGRP", c_getprio_pgrp, GROUP},
	{"setpriority PRIO_PGRP", c_setprio_pgrp, GROUP},
	{"ioprio_get", c_ioprio_get, SELF},
	{"ioprio_set", c_ioprio_set, SELF},
	{"ioprio_get IOPRIO_WHO_PGRP", c_ioprio_get_pgrp, GROUP},
	{"ioprio_set IOPRIO_WHO_PGRP", c_ioprio_set_pgrp, GROUP},
	{"capget", c_capget, SELF},
	{"prlimit", c_prlimit, SELF},
	{"pidfd_open", c_pidfd_open, SELF},
	{"waitid P_PID", c_waitid, GROUP},
	{"waitid P_PGID", c_waitid_pgid, GROUP},
	{"wait4 -pgid", c_wait4_pgid, GROUP},
	{"setpgid", c_setpgid, SELF},
	{"getpgid", c_getpgid, SELF},
	{"getsid", c_getsid, GROUP},
	{"F_SETOWN", c_setown, SELF},
	{"F_SETOWN -pgid", c_setown_pgrp, GROUP},
	{"F_SETOWN_EX F_OWNER_PGRP", c_setown_ex_pgrp, GROUP},
	{"F_SETOWN_EX F_OWNER_TID", c_setown_ex_tid, SELF},
	{"TIOCSPGRP", c_tiocspgrp, GROUP},
	{"TIOCGPGRP", c_tiocgpgrp, GROUP},
	{"TIOCGSID", c_tiocgsid, GROUP},
};

static void say(const char *call, const char *kind, long r) {
	printf("%s %s: %s\n", call, kind, r < 0 ? strerrorname_np(errno) : "ok");
	fflush(stdout);
}

int main(int argc, char **argv) {
	if (argc < 5 || strcmp(argv[1], "idle") == 0) {
		for (;;)
			pause();
	}
	long host = atol(argv[2]), other = atol(argv[3]), none = atol(argv[4]);
	int p[2], ready[2];
	if (pipe(p) < 0 || pipe(ready) < 0)
		return 1;
	fd = p[0];
	pid_t child = fork();
	if (child == 0) {
		setsid();
		write(ready[1], "x", 1);
		for (;;)
			pause();
	}
	char b;
	if (read(ready[0], &b, 1) != 1)
		return 1;
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		sig = 0, niceness = 0;
		say(calls[i].name, "own", calls[i].f(calls[i].own == SELF ? getpid() : child));
		sig = SIGKILL, niceness = 19;
		say(calls[i].name, "host", calls[i].f(host));
		say(calls[i].name, "other", calls[i].f(other));
		say(calls[i].name, "none", calls[i].f(none));
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	printf("done\n");
	return 0;
}
