/*
 * escape: a hostile node tries to leave its view (issue 36). Each line
 * says what a call answered; the test judges from the host side whether
 * anything left the view.
 *
 * $OUTSIDE: a host directory outside the node's view (holding "victim"),
 *           named in the environment, which weft does not mount (an
 *           absolute path in the arguments is shown read-only)
 * argv[1]: the pid of a sacrificial host process
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void r(const char *what, long rc) {
	if (rc < 0)
		printf("%s = %s\n", what, strerrorname_np(errno));
	else
		printf("%s = ok\n", what);
}

/* show prints a file's first line, or the error opening it. */
static void show(const char *path) {
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("read %s = %s\n", path, strerrorname_np(errno));
		return;
	}
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
	printf("read %s = %s%s", path, buf, n > 0 && buf[n - 1] == '\n' ? "" : "\n");
}

int main(int argc, char **argv) {
	const char *out = getenv("OUTSIDE"), *pid = argv[1];
	if (argc < 2 || !out)
		return 2;
	char p[8192], q[8192];
	setvbuf(stdout, NULL, _IONBF, 0);

	/* A dangling symlink to outside, then O_CREAT through it. */
	snprintf(p, sizeof p, "%s/created", out);
	r("symlink(outside/created, dangle)", symlink(p, "dangle"));
	r("open(dangle, O_CREAT)", open("dangle", O_CREAT | O_WRONLY, 0644));

	/* A symlink into another node's directory. */
	r("symlink(../node1/stolen, tonode1)", symlink("../node1/stolen", "tonode1"));
	r("open(tonode1, O_CREAT)", open("tonode1", O_CREAT | O_WRONLY, 0644));
	r("mkdir(../node1/dir)", mkdir("../node1/dir", 0755));

	/* A chain of 40 symlinks ending outside (Linux follows 40), and of 41. */
	for (int i = 0; i < 41; i++) {
		snprintf(q, sizeof q, "c%d", i);
		if (i == 39)
			snprintf(p, sizeof p, "%s/chain", out);
		else if (i == 40)
			snprintf(p, sizeof p, "c0");
		else
			snprintf(p, sizeof p, "c%d", i + 1);
		symlink(p, q);
	}
	r("open(40-link chain, O_CREAT)", open("c0", O_CREAT | O_WRONLY, 0644));
	r("open(41-link chain, O_CREAT)", open("c40", O_CREAT | O_WRONLY, 0644));
	r("chmod(40-link chain)", chmod("c0", 0777));

	/* A relative path of about 4 kB that climbs to outside. */
	char *cwd = getcwd(q, sizeof q);
	printf("getcwd = %s\n", cwd ? cwd : strerrorname_np(errno));
	int n = 0;
	while (n < 3900)
		n += snprintf(p + n, sizeof p - n, "./");
	snprintf(p + n, sizeof p - n, "../../../../../../../../..%s/long", out);
	printf("long path: %zu bytes\n", strlen(p));
	r("open(4 kB path, O_CREAT)", open(p, O_CREAT | O_WRONLY, 0644));
	snprintf(p + n, sizeof p - n, "../../../../../../../../..%s/victim", out);
	r("chmod(4 kB path to victim)", chmod(p, 0777));
	r("unlink(4 kB path to victim)", unlink(p));
	r("truncate(4 kB path to victim)", truncate(p, 0));

	/* A host process's memory and files. */
	snprintf(p, sizeof p, "/proc/%s/mem", pid);
	r("symlink(/proc/HOST/mem, mem)", symlink(p, "mem"));
	r("open(mem, O_RDWR)", open("mem", O_RDWR));
	snprintf(p, sizeof p, "/proc/self/root/proc/%s/mem", pid);
	r("open(/proc/self/root/proc/HOST/mem, O_RDWR)", open(p, O_RDWR));
	snprintf(p, sizeof p, "/proc/%s/cmdline", pid);
	r("symlink(/proc/HOST/cmdline, cmdline)", symlink(p, "cmdline"));
	show("cmdline");
	snprintf(p, sizeof p, "/proc/self/root/proc/%s/cmdline", pid);
	show(p);
	snprintf(p, sizeof p, "/proc/self/root%s/victim", out);
	show(p);
	snprintf(p, sizeof p, "%s/victim", out);
	show(p);

	/* Host identity and devices. */
	show("/etc/hostname");
	show("/etc/machine-id");
	show("/proc/self/cgroup");
	show("/dev/kmsg");
	show("/dev/tty");
	r("open(/dev/userfaultfd)", open("/dev/userfaultfd", O_RDWR));
	r("symlink(/dev/kmsg, kmsg)", symlink("/dev/kmsg", "kmsg"));
	show("kmsg");
	show("/dev/null");
	return 0;
}
