/*
 * refuse: a program weft must refuse four ways, twice each: a write
 * outside its run directory (DIR/refused, DIR shown to the node as an
 * argument), a syscall weft does not model
 * (io_setup, Linux AIO), an ioctl request not on weft's allow-list, and
 * a syscall number no kernel knows. TestRunReportsRefusals expects each
 * once in weft's summary, with the count.
 *
 * usage: refuse DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/refused", argv[1]);
	for (int i = 0; i < 2; i++) {
		int fd = open(path, O_CREAT | O_WRONLY, 0644);
		printf("open outside: %d\n", fd);
		unsigned long ctx = 0;
		printf("io_setup: %ld\n", syscall(SYS_io_setup, 1, &ctx));
		printf("ioctl: %d\n", ioctl(1, 0x7777, 0));
		printf("syscall 499: %ld\n", syscall(499));
	}
	return 0;
}
