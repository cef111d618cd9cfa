/* Hostile shapes for weft's bounds (issue 36 §4), by argv[1]:
 * forkbomb: every process forks forever (children too);
 * threadbomb: threads that each start another, forever;
 * uffd: userfaultfd(2) and /dev/userfaultfd's USERFAULTFD_IOC_NEW;
 * fds: which descriptors above 2 the node started with. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
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

int main(int argc, char **argv) {
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
