/* Virtual resource limits (issue 36 §3): whatever limits weft's host
 * process has, the node reads the virtual defaults, sets them as Linux
 * allows, meets a lowered descriptor limit, and names no host process.
 * argv[1] is the host pid of a sacrificial host process. Every line is
 * "what: result errno" or "what: soft hard". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *what, long r) {
	printf("%s: %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "");
	fflush(stdout);
}

static void show(const char *what, int res) {
	struct rlimit r;
	if (getrlimit(res, &r) < 0) {
		say(what, -1);
		return;
	}
	printf("%s: %lld %lld\n", what, (long long)r.rlim_cur, (long long)r.rlim_max);
	fflush(stdout);
}

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	show("nproc", RLIMIT_NPROC);
	show("nofile", RLIMIT_NOFILE);
	show("stack", RLIMIT_STACK);
	show("core", RLIMIT_CORE);
	struct rlimit r = {1024, 65536};
	say("lower soft nofile", setrlimit(RLIMIT_NOFILE, &r));
	r = (struct rlimit){65536, 65536};
	say("raise soft nofile", setrlimit(RLIMIT_NOFILE, &r));
	r = (struct rlimit){1 << 21, 1 << 21};
	say("raise hard nofile", setrlimit(RLIMIT_NOFILE, &r));
	r = (struct rlimit){2048, 1024};
	say("soft above hard", setrlimit(RLIMIT_NOFILE, &r));
	say("unknown resource", prlimit(0, 99, NULL, &r));
	r = (struct rlimit){16, 16};
	say("lower nofile", setrlimit(RLIMIT_NOFILE, &r));
	show("nofile", RLIMIT_NOFILE);
	int last = -1;
	for (int i = 0; i < 64; i++) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			break;
		last = fd;
	}
	printf("highest fd: %d %s\n", last, strerrorname_np(errno));
	for (int fd = 3; fd <= last; fd++)
		close(fd);
	say("prlimit host", prlimit(atoi(argv[1]), RLIMIT_NOFILE, NULL, &r));
	say("prlimit 1", prlimit(1, RLIMIT_NOFILE, NULL, &r));
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	struct rlimit old;
	r = (struct rlimit){0, 0};
	say("prlimit child", prlimit(c, RLIMIT_CORE, &r, &old));
	printf("child old core: %lld %lld\n", (long long)old.rlim_cur, (long long)old.rlim_max);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	char line[256];
	FILE *f = fopen("/proc/self/limits", "r");
	if (!f)
		say("open /proc/self/limits", -1);
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "Max processes", 13) || !strncmp(line, "Max open files", 14))
			fputs(line, stdout);
	printf("done\n");
	return 0;
}
