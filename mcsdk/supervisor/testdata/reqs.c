/* Issues every ioctl and fcntl request named on the command line on one
 * kind of descriptor (argv[1]: file, dir, null, pipe, inet, eventfd),
 * with a zero argument, and prints "i|f request errno" for each
 * (argv[2..]: i0x5421 or f4). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int open_kind(const char *k) {
	int p[2];
	if (!strcmp(k, "file"))
		return open("/etc/hostname", O_RDONLY);
	if (!strcmp(k, "dir"))
		return open("/usr", O_RDONLY | O_DIRECTORY); /* a host directory: "/" is a virtual one */
	if (!strcmp(k, "null"))
		return open("/dev/null", O_RDWR);
	if (!strcmp(k, "pipe"))
		return pipe(p) < 0 ? -1 : p[0];
	if (!strcmp(k, "inet"))
		return socket(AF_INET, SOCK_STREAM, 0);
	return eventfd(0, 0);
}

int main(int argc, char **argv) {
	int fd = open_kind(argv[1]);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		unsigned long req = strtoul(argv[i] + 1, NULL, 0);
		errno = 0;
		long r = argv[i][0] == 'i' ? ioctl(fd, req, 0) : fcntl(fd, (int)req, 0);
		printf("%c %#lx %s\n", argv[i][0], req, r < 0 ? strerrorname_np(errno) : "ok");
	}
	return 0;
}
