// user: what a node that runs as a named user sees: its ids and groups,
// a file it makes in its run directory (its own), a directory it may
// not write, and a setuid(0) it may not make.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
	gid_t groups[32];
	int n = getgroups(32, groups);
	printf("uid %d euid %d gid %d groups", (int)getuid(), (int)geteuid(), (int)getgid());
	for (int i = 0; i < n; i++)
		printf(" %d", (int)groups[i]);
	printf("\n");
	int fd = open("made-by-node", O_CREAT | O_WRONLY, 0644);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		printf("run directory: %s\n", strerrorname_np(errno));
	else
		printf("run directory file owner %d %d\n", (int)st.st_uid, (int)st.st_gid);
	if (stat(".", &st) == 0)
		printf("run directory owner %d\n", (int)st.st_uid);
	printf("setuid(0): %s\n", setuid(0) < 0 ? strerrorname_np(errno) : "ok");
	printf("write /etc: %s\n", open("/etc/weft-user-probe", O_CREAT | O_WRONLY, 0644) < 0 ? strerrorname_np(errno) : "ok");
	printf("read /etc/shadow: %s\n", open("/etc/shadow", O_RDONLY) < 0 ? strerrorname_np(errno) : "ok");
	mkdir("sub", 0755);
	if (stat("sub", &st) == 0)
		printf("made directory owner %d\n", (int)st.st_uid);
	return 0;
}
