// dents: makes argv[1] files in its working directory, then lists the
// directory with raw getdents64 calls into a 32 KiB buffer and prints
// each call's result. Linux fills the buffer as long as the next entry
// fits, so every call but the last two returns more than 32 KiB less the
// largest record; a call that ends early shows as a short line ("short
// N"), which is what a signal pending on weft's own thread used to cause
// (TestGetdentsFull).
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BUF 32768
#define MAXREC 280 /* a 255-byte name: 19 + 256, rounded up to 8 */

int main(int argc, char **argv) {
	int files = argc > 1 ? atoi(argv[1]) : 2000;
	char name[64];
	for (int i = 0; i < files; i++) {
		snprintf(name, sizeof name, "entry-with-a-longer-name-%06d", i);
		int fd = open(name, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			perror("open");
			return 1;
		}
		close(fd);
	}
	static char buf[BUF];
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	if (dir < 0) {
		perror("open .");
		return 1;
	}
	for (int rounds = 0; rounds < 5; rounds++) {
		long calls = 0, entries = 0, shortcalls = 0, last = -1;
		lseek(dir, 0, SEEK_SET);
		for (;;) {
			long n = syscall(SYS_getdents64, dir, buf, BUF);
			if (n < 0) {
				perror("getdents64");
				return 1;
			}
			calls++;
			if (last >= 0 && last < BUF - MAXREC && n > 0)
				shortcalls++; /* the previous call ended early: more followed */
			if (n == 0)
				break;
			for (long off = 0; off < n;) {
				struct dirent64 *d = (struct dirent64 *)(buf + off);
				entries++;
				off += d->d_reclen;
			}
			last = n;
		}
		printf("round %d: %ld entries in %ld calls, %ld short\n", rounds, entries, calls, shortcalls);
	}
	return 0;
}
