/* start: what a node sees of its own start, printed at once: the bytes
 * the kernel (weft) gave it in AT_RANDOM, the stack protector's canary
 * derived from them, where it works and what it finds there, its ids,
 * signal state, limits, umask and open descriptors. A node started as a
 * fork of a template must print what a freshly started one prints. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
	printf("random");
	for (int i = 0; i < 16; i++)
		printf(" %02x", r[i]);
	unsigned long canary;
	__asm__("mov %%fs:0x28, %0" : "=r"(canary));
	printf("\ncanary %016lx\n", canary);
	char cwd[4096];
	printf("cwd %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
	char buf[64] = "";
	int fd = open("marker", O_RDONLY);
	if (fd >= 0) {
		ssize_t k = read(fd, buf, sizeof buf - 1);
		buf[k > 0 ? k : 0] = 0;
		close(fd);
	}
	printf("marker %s\n", buf);
	printf("ids pid %d ppid %d pgrp %d sid %d\n", getpid(), getppid(), getpgrp(), getsid(0));
	sigset_t mask;
	sigprocmask(SIG_BLOCK, NULL, &mask);
	printf("blocked");
	for (int s = 1; s < 65; s++)
		if (sigismember(&mask, s) == 1)
			printf(" %d", s);
	printf("\nhandled");
	for (int s = 1; s < 65; s++) {
		struct sigaction sa;
		if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL)
			printf(" %d", s);
	}
	struct rlimit nofile;
	getrlimit(RLIMIT_NOFILE, &nofile);
	mode_t um = umask(0);
	printf("\nnofile %lu %lu umask %03o\nfds", (unsigned long)nofile.rlim_cur, (unsigned long)nofile.rlim_max, um);
	for (int i = 0; i < 64; i++)
		if (fcntl(i, F_GETFD) >= 0)
			printf(" %d", i);
	printf("\nargs");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);
	pause();
	return 0;
}
