/* Hostile shapes for weft's bounds (issue 36 §4), by argv[1]:
 * forkbomb: every process forks forever (children too);
 * threadbomb: threads that each start another, forever;
 * uffd: userfaultfd(2) and /dev/userfaultfd's USERFAULTFD_IOC_NEW;
 * fds: which descriptors above 2 the node started with;
 * fdbomb-open, fdbomb-dup, fdbomb-pipe: descriptors made forever, errors
 *   ignored;
 * ownlimit: lowers its own RLIMIT_NOFILE to 64 and opens until EMFILE;
 * membomb: allocates and touches 1 MiB after 1 MiB forever;
 * membomb-child: a child process does, while its parent waits for it;
 * execfail PATH: lists its descriptors, execs PATH (which fails), lists
 *   them again;
 * execfds N PATH: opens N more descriptors, then execs PATH with the
 *   argument "argv0" (argv[0] is PATH itself);
 * argv0: prints its argv[0] and AT_EXECFN;
 * vexecfds N PATH: likewise in a vfork child; the parent then prints
 *   the path it gave the child, from its own memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *spawn(void *arg) {
	pthread_t t;
	(void)arg;
	while (pthread_create(&t, NULL, spawn, NULL) != 0)
		;
	pause();
	return NULL;
}

static void membomb(void) {
	for (;;) {
		char *p = malloc(1 << 20);
		if (p)
			memset(p, 1, 1 << 20);
	}
}

static int fdbomb(const char *how) {
	int p[2];
	for (;;) {
		if (!strcmp(how, "fdbomb-open"))
			open("/dev/null", O_RDONLY);
		else if (!strcmp(how, "fdbomb-dup"))
			dup(0);
		else if (!strcmp(how, "fdbomb-pipe"))
			pipe(p);
		else
			return 1;
	}
}

static int ownlimit(void) {
	struct rlimit rl = {64, 64};
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		printf("setrlimit: %s\n", strerrorname_np(errno));
		return 1;
	}
	int k = 0;
	while (open("/dev/null", O_RDONLY) >= 0)
		k++;
	printf("opened %d, then %s\n", k, strerrorname_np(errno));
	return 0;
}

static void listfds(const char *when) {
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	printf("fds %s:", when);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			printf(" %s", e->d_name);
	printf("\n");
	if (d)
		closedir(d);
}

static int execfail(char *path) {
	char *argv[] = {path, NULL};
	listfds("before");
	execv(path, argv);
	int e = errno;
	listfds("after");
	printf("exec %s: %s\n", path, strerrorname_np(e));
	return 0;
}

static int execfds(int vforked, int n, char *path) {
	char *argv[] = {path, "argv0", NULL};
	for (int i = 0; i < n; i++)
		open("/dev/null", O_RDONLY);
	if (vforked) {
		pid_t pid = vfork();
		if (pid == 0) {
			execv(path, argv);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		printf("child exit %d; parent's path %s\n", WEXITSTATUS(st), path);
		return 0;
	}
	execv(path, argv);
	printf("exec %s: %s\n", path, strerrorname_np(errno));
	return 0;
}

int main(int argc, char **argv) {
	if (!strcmp(argv[1], "execfail"))
		return execfail(argv[2]);
	if (!strcmp(argv[1], "argv0")) {
		printf("argv0 %s execfn %s\n", argv[0], (char *)getauxval(AT_EXECFN));
		return 0;
	}
	if (!strcmp(argv[1], "execfds") || !strcmp(argv[1], "vexecfds"))
		return execfds(argv[1][0] == 'v', atoi(argv[2]), argv[3]);
	if (!strncmp(argv[1], "fdbomb-", 7))
		return fdbomb(argv[1]);
	if (!strcmp(argv[1], "ownlimit"))
		return ownlimit();
	if (!strcmp(argv[1], "membomb"))
		membomb();
	if (!strcmp(argv[1], "membomb-child")) {
		if (fork() == 0)
			membomb();
		int st;
		wait(&st);
		printf("child ended: %s\n", WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exited");
		return 0;
	}
	if (!strcmp(argv[1], "forkbomb"))
		for (;;)
			fork();
	if (!strcmp(argv[1], "threadbomb"))
		spawn(NULL);
	if (!strcmp(argv[1], "uffd")) {
		long r = syscall(SYS_userfaultfd, O_CLOEXEC);
		printf("userfaultfd: %ld %s\n", r, r < 0 ? strerrorname_np(errno) : "");
		int fd = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			printf("/dev/userfaultfd: open %s\n", strerrorname_np(errno));
			return 0;
		}
		r = ioctl(fd, 0xaa00 /* USERFAULTFD_IOC_NEW */, O_CLOEXEC);
		printf("/dev/userfaultfd: USERFAULTFD_IOC_NEW %ld %s\n", r, r < 0 ? strerrorname_np(errno) : "");
		return 0;
	}
	for (int fd = 3; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			printf("open fd %d\n", fd);
	printf("fds checked\n");
	return 0;
}
