/* Virtual ids and the ioctl/fcntl allow-lists, judged from the host by
 * the test (issue 36 §3, issue 37): argv[1] is the host pid of a
 * sacrificial host process, argv[2] a file outside the run directory.
 * Every line is "what: result errno". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void say(const char *what, long r) {
	printf("%s: %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "");
	fflush(stdout);
}

static long host;

static void *thread(void *arg) {
	(void)arg;
	cpu_set_t set;
	pid_t tid = gettid();
	say("thread affinity own tid", sched_getaffinity(tid, sizeof set, &set) < 0 ? -1 : CPU_COUNT(&set));
	pthread_attr_t attr;
	say("thread pthread_getattr_np", -pthread_getattr_np(pthread_self(), &attr));
	struct rlimit rl;
	say("thread prlimit own tid", prlimit(tid, RLIMIT_NOFILE, NULL, &rl));
	errno = 0;
	say("thread getpriority own tid", getpriority(PRIO_PROCESS, tid));
	say("thread sched_getscheduler own tid", sched_getscheduler(tid));
	struct sched_param sp;
	say("thread sched_getparam own tid", sched_getparam(tid, &sp));
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, tid};
	struct __user_cap_data_struct d[2];
	long r = syscall(SYS_capget, &h, d);
	say("thread capget own tid", r < 0 ? r : (d[0].effective != 0));
	h.pid = tid;
	say("thread capset own tid", syscall(SYS_capset, &h, d));
	return NULL;
}

int main(int argc, char **argv) {
	host = atol(argv[1]);
	pthread_t t;
	pthread_create(&t, NULL, thread, NULL);
	pthread_join(t, NULL);

	cpu_set_t set;
	struct rlimit rl = {64, 64};
	say("affinity host", sched_getaffinity(host, sizeof set, &set));
	say("setaffinity host", sched_setaffinity(host, sizeof set, &set));
	say("prlimit host", prlimit(host, RLIMIT_NOFILE, &rl, NULL));
	say("setpriority host", setpriority(PRIO_PROCESS, host, 7));
	say("setpriority user", setpriority(PRIO_USER, 0, 5));
	say("setpriority pgrp", setpriority(PRIO_PGRP, 0, 6));
	say("setpriority pgrp host", setpriority(PRIO_PGRP, host, 6));
	errno = 0;
	say("getpriority self", getpriority(PRIO_PROCESS, 0));
	say("ioprio_set user", syscall(SYS_ioprio_set, 3, 0, (3 << 13)));
	say("ioprio_set host", syscall(SYS_ioprio_set, 1, host, (3 << 13)));
	say("sched_setscheduler host", sched_setscheduler(host, SCHED_BATCH, &(struct sched_param){0}));
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, (int)host};
	struct __user_cap_data_struct d[2];
	say("capget host", syscall(SYS_capget, &h, d));
	h.pid = getpid();
	long r = syscall(SYS_capget, &h, d);
	say("capget self", r < 0 ? r : (d[0].effective != 0));

	int p[2];
	pipe(p);
	say("F_SETOWN self", fcntl(p[0], F_SETOWN, getpid()));
	say("F_GETOWN is self", fcntl(p[0], F_GETOWN) == getpid());
	say("F_SETOWN group", fcntl(p[0], F_SETOWN, -getpgrp()));
	say("F_GETOWN is group", fcntl(p[0], F_GETOWN) == -getpgrp());
	say("F_SETOWN host", fcntl(p[0], F_SETOWN, host));
	struct f_owner_ex ex = {F_OWNER_TID, gettid()};
	say("F_SETOWN_EX tid", fcntl(p[0], F_SETOWN_EX, &ex));
	ex.pid = 0;
	fcntl(p[0], F_GETOWN_EX, &ex);
	say("F_GETOWN_EX is tid", ex.type == F_OWNER_TID && ex.pid == gettid());
	ex = (struct f_owner_ex){F_OWNER_PID, (int)host};
	say("F_SETOWN_EX host", fcntl(p[0], F_SETOWN_EX, &ex));
	say("F_SETSIG", fcntl(p[0], F_SETSIG, SIGUSR1));
	say("F_GETFL", fcntl(p[0], F_GETFL) >= 0);

	int f = open(argv[2], O_RDONLY);
	say("F_SETLEASE", fcntl(f, F_SETLEASE, F_RDLCK));
	say("F_GETLEASE", fcntl(f, F_GETLEASE));
	int dir = open("/usr", O_RDONLY | O_DIRECTORY); /* a host directory of the view */
	say("F_NOTIFY", fcntl(dir, F_NOTIFY, DN_CREATE));
	say("fcntl 4242", fcntl(f, 4242));
	unsigned flags = FS_IMMUTABLE_FL;
	say("FS_IOC_SETFLAGS read-only", ioctl(f, FS_IOC_SETFLAGS, &flags));
	char c = 'x';
	say("TIOCSTI", ioctl(0, TIOCSTI, &c));
	struct termios tio;
	say("TCGETS stdout", ioctl(1, TCGETS, &tio));
	int n = -1;
	say("FIONREAD pipe", ioctl(p[0], FIONREAD, &n) < 0 ? -1 : n);
	say("ioctl 0x1234", ioctl(p[0], 0x1234, 0));

	say("flock outside", flock(f, LOCK_EX | LOCK_NB));
	struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
	say("F_SETLK outside", fcntl(f, F_SETLK, &fl));
	printf("locked\n");
	fflush(stdout);
	sleep(5); /* parks: the test checks the host side now */
	say("unlock", flock(f, LOCK_UN));
	return 0;
}
