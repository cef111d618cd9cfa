// clonefail: thread clones the kernel refuses after weft lets them
// through (a TLS base beyond the user address space: EPERM from
// copy_thread), each followed by the thread's next call, then one that
// succeeds. TestCloneFailsInKernel runs it natively and under weft.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char stack[1 << 16] __attribute__((aligned(16)));

static int child(void *arg) {
	(void)arg;
	syscall(SYS_exit, 0);
	return 0;
}

int main(void) {
	const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS;
	for (int i = 0; i < 3; i++) {
		long r = syscall(SYS_clone, flags, stack + sizeof stack, NULL, NULL, 0xffffffffffff0000UL);
		int e = errno;
		printf("clone %d: %ld %s\n", i, r, r < 0 ? strerrorname_np(e) : "");
		fflush(stdout);
	}
	int r = clone(child, stack + sizeof stack, flags & ~CLONE_SETTLS, NULL);
	printf("clone ok: %s\n", r > 0 ? "yes" : "no");
	usleep(10000);
	printf("done\n");
	return 0;
}
