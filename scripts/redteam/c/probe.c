// Hostile probes for scripts/redteam.sh (issue 36). One binary, one probe
// per run: `probe RUNDIR ID NAME PARAMS...` as a weft node, whose model
// passes {rundir} and {id} first. The probe only attacks and prints what
// it got; scripts/redteam.sh judges from the host side. Lines "V: ..."
// are values a leak probe read: the script runs the same probe natively
// and a native V line that appears in the node's output is a host value
// the node saw. `probe --host CMD ...` are the script's own native helpers
// (file snapshots, memory peeks, the terminal harness).
#define _GNU_SOURCE
#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <immintrin.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include <linux/openat2.h>
#include <linux/userfaultfd.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/rtnetlink.h>
#include <linux/vm_sockets.h>
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/quota.h>
#include <sys/reboot.h>
#include <sys/swap.h>
#include <sys/timex.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define PWN "PWNED-by-weft-redteam\n"

static void out(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

// rc prints what a call returned, with errno's name when it failed.
static long rc(const char *what, long r) {
	if (r < 0)
		out("%s = -1 %s\n", what, strerror(errno));
	else
		out("%s = %ld\n", what, r);
	return r;
}

static uint64_t fnv(const void *p, size_t n) {
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
	return h;
}

static ssize_t slurp(const char *path, char *buf, size_t n) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	ssize_t k;
	while (got < n - 1 && (k = read(fd, buf + got, n - 1 - got)) > 0)
		got += k;
	close(fd);
	buf[got] = 0;
	return got;
}

// --- paths -------------------------------------------------------------

// longrel turns an absolute path into a relative one
// (4089 or 4090 bytes: "./" many times, then enough ".." to reach /),
// under PATH_MAX for the node but not once weft
// prefixes it with /proc/PID/cwd.
static char *longrel(const char *abs) {
	static char buf[4096];
	size_t tail = 3 * 48 + strlen(abs);
	size_t n = 0;
	while (n + 2 + tail <= 4090)
		n += sprintf(buf + n, "./");
	for (int i = 0; i < 48; i++)
		n += sprintf(buf + n, "../");
	strcpy(buf + n, abs + 1);
	return buf;
}

// chain makes the 40 symlinks c0 -> c1 -> ... -> c39 -> target in the run
// directory: the kernel follows exactly 40, one more (weft's
// /proc/PID/cwd) is ELOOP.
static const char *chain(const char *target) {
	char a[32], b[32];
	for (int i = 0; i < 40; i++) {
		snprintf(a, sizeof a, "c%d", i);
		snprintf(b, sizeof b, "c%d", i + 1);
		unlink(a);
		if (symlink(i == 39 ? target : b, a) < 0)
			rc("symlink(chain)", -1);
	}
	return "c0";
}

static const char *route(const char *how, const char *abs, char *buf, size_t n) {
	if (!strcmp(how, "abs"))
		return abs;
	if (!strcmp(how, "long"))
		return longrel(abs);
	if (!strcmp(how, "chain"))
		return chain(abs);
	if (!strcmp(how, "chaindir")) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%s", abs);
		char *slash = strrchr(dir, '/');
		*slash = 0;
		chain(dir);
		snprintf(buf, n, "c0/%s", slash + 1);
		return buf;
	}
	if (!strcmp(how, "selfroot")) {
		snprintf(buf, n, "/proc/self/root%s", abs);
		return buf;
	}
	if (!strcmp(how, "link")) {
		unlink("lnk");
		symlink(abs, "lnk");
		return "lnk";
	}
	return abs;
}

// pathop performs one changing operation on path; a names another path
// when the operation takes two (rename, link).
static void pathop(const char *op, const char *path) {
	int fd;
	struct timeval tv[2] = {{0, 0}, {0, 0}};
	close(open("mine", O_CREAT | O_WRONLY, 0644));
	if (!strcmp(op, "creat")) {
		fd = rc("open(O_CREAT)", open(path, O_CREAT | O_WRONLY, 0666));
		if (fd >= 0)
			rc("write", write(fd, PWN, strlen(PWN)));
	} else if (!strcmp(op, "openwr")) {
		fd = rc("open(O_WRONLY|O_APPEND)", open(path, O_WRONLY | O_APPEND));
		if (fd >= 0)
			rc("write", write(fd, PWN, strlen(PWN)));
	} else if (!strcmp(op, "mkdir"))
		rc("mkdir", mkdir(path, 0777));
	else if (!strcmp(op, "rmdir"))
		rc("rmdir", rmdir(path));
	else if (!strcmp(op, "symlink"))
		rc("symlink", symlink("/pwned", path));
	else if (!strcmp(op, "mknod"))
		rc("mkfifo", mkfifo(path, 0666));
	else if (!strcmp(op, "renameout"))
		rc("rename(mine, out)", rename("mine", path));
	else if (!strcmp(op, "renamein"))
		rc("rename(out, stolen)", rename(path, "stolen"));
	else if (!strcmp(op, "exchange"))
		rc("renameat2(EXCHANGE)", syscall(SYS_renameat2, AT_FDCWD, "mine", AT_FDCWD, path, RENAME_EXCHANGE));
	else if (!strcmp(op, "link"))
		rc("link(mine, out)", link("mine", path));
	else if (!strcmp(op, "chmod"))
		rc("chmod", chmod(path, 04777));
	else if (!strcmp(op, "chown"))
		rc("chown", chown(path, 65534, 65534));
	else if (!strcmp(op, "truncate"))
		rc("truncate", truncate(path, 1));
	else if (!strcmp(op, "utimes"))
		rc("utimes", utimes(path, tv));
	else if (!strcmp(op, "unlink"))
		rc("unlink", unlink(path));
	else if (!strcmp(op, "setxattr"))
		rc("setxattr", setxattr(path, "user.pwned", "1", 1, 0));
	else if (!strcmp(op, "bind")) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		rc("bind", bind(s, (struct sockaddr *)&sa, sizeof sa));
	} else
		out("unknown op %s\n", op);
}

// path ROUTE OP OUTPATH: change OUTPATH (outside the run directory)
// through ROUTE.
static int p_path(char **a) {
	char buf[4200];
	pathop(a[1], route(a[0], a[2], buf, sizeof buf));
	return 0;
}

// dangling MODE OUTDIR: through a symlink in the run directory that names
// a missing file outside (creat, openat2, trunc), or, for dir-OP, OP on
// l/f where l names the directory outside.
static int p_dangling(char **a) {
	char f[4096];
	snprintf(f, sizeof f, "%s/f", a[1]);
	unlink("l");
	if (!strcmp(a[0], "creat")) {
		symlink(f, "l");
		pathop("creat", "l");
	} else if (!strcmp(a[0], "openat2")) {
		symlink(f, "l");
		struct open_how how = {.flags = O_CREAT | O_WRONLY, .mode = 0666};
		int fd = rc("openat2(O_CREAT)", syscall(SYS_openat2, AT_FDCWD, "l", &how, sizeof how));
		if (fd >= 0)
			write(fd, PWN, strlen(PWN));
	} else if (!strcmp(a[0], "trunc")) {
		symlink(f, "l");
		int fd = rc("open(O_TRUNC|O_CREAT)", open("l", O_RDWR | O_CREAT | O_TRUNC, 0600));
		if (fd >= 0)
			write(fd, PWN, strlen(PWN));
	} else if (!strncmp(a[0], "dir-", 4)) {
		symlink(a[1], "l");
		pathop(a[0] + 4, "l/f");
	} else
		out("unknown mode %s\n", a[0]);
	return 0;
}

// othernode: node 0 plants a file in node 1's run directory through a
// dangling symlink and directly; node 1 reports what it finds.
static int p_othernode(char **a, const char *id) {
	if (!strcmp(id, "0")) {
		unlink("l");
		symlink("../node1/planted-sym", "l");
		pathop("creat", "l");
		pathop("creat", "../node1/planted-direct");
		return 0;
	}
	sleep(5);
	DIR *d = opendir(".");
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "planted", 7))
			out("FOUND %s\n", e->d_name);
	return 0;
}

// fdop VICTIM OP: a change through a descriptor opened read-only (or
// O_PATH), or a reopen of it for writing.
static int p_rofd(char **a) {
	int fd = rc("open(O_RDONLY)", open(a[0], O_RDONLY));
	const char *op = a[1];
	struct timespec ts[2] = {{0, 0}, {0, 0}};
	char p[64];
	if (!strcmp(op, "fchmod"))
		rc("fchmod", fchmod(fd, 04777));
	else if (!strcmp(op, "fchown"))
		rc("fchown", fchown(fd, 65534, 65534));
	else if (!strcmp(op, "futimens"))
		rc("futimens", futimens(fd, ts));
	else if (!strcmp(op, "fsetxattr"))
		rc("fsetxattr", fsetxattr(fd, "user.pwned", "1", 1, 0));
	else if (!strcmp(op, "reopen") || !strcmp(op, "opath")) {
		if (!strcmp(op, "opath"))
			fd = rc("open(O_PATH)", open(a[0], O_PATH));
		snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
		int w = rc("open(/proc/self/fd/N, O_WRONLY)", open(p, O_WRONLY | O_APPEND));
		if (w >= 0)
			rc("write", write(w, PWN, strlen(PWN)));
	} else if (!strcmp(op, "setflags")) {
		int fl = 0;
		ioctl(fd, FS_IOC_GETFLAGS, &fl);
		fl |= FS_NODUMP_FL | FS_NOATIME_FL;
		rc("ioctl(FS_IOC_SETFLAGS)", ioctl(fd, FS_IOC_SETFLAGS, &fl));
	} else if (!strcmp(op, "fssetxattr")) {
		struct fsxattr fx = {0};
		ioctl(fd, FS_IOC_FSGETXATTR, &fx);
		fx.fsx_xflags |= FS_XFLAG_NODUMP | FS_XFLAG_NOATIME;
		rc("ioctl(FS_IOC_FSSETXATTR)", ioctl(fd, FS_IOC_FSSETXATTR, &fx));
	} else if (!strcmp(op, "setversion")) {
		int v = 12345;
		rc("ioctl(FS_IOC_SETVERSION)", ioctl(fd, FS_IOC_SETVERSION, &v));
	} else if (!strcmp(op, "handle")) {
		struct {
			struct file_handle h;
			unsigned char b[128];
		} fh = {.h.handle_bytes = 128};
		int mnt;
		rc("name_to_handle_at", name_to_handle_at(AT_FDCWD, a[0], &fh.h, &mnt, 0));
		int w = rc("open_by_handle_at(O_WRONLY)", open_by_handle_at(fd, &fh.h, O_WRONLY | O_APPEND));
		if (w >= 0)
			rc("write", write(w, PWN, strlen(PWN)));
	}
	return 0;
}

// dirfd OUTDIR HOW: create a file outside through a directory descriptor
// or a working directory outside.
static int p_dirfd(char **a) {
	int d = rc("open(outdir, O_DIRECTORY)", open(a[0], O_RDONLY | O_DIRECTORY));
	char f[4096];
	snprintf(f, sizeof f, "%s/f", a[0]);
	if (!strcmp(a[1], "openat"))
		rc("openat(dirfd, f, O_CREAT)", openat(d, "f", O_CREAT | O_WRONLY, 0666));
	else if (!strcmp(a[1], "fchdir")) {
		rc("fchdir", fchdir(d));
		rc("open(f, O_CREAT)", open("f", O_CREAT | O_WRONLY, 0666));
	} else if (!strcmp(a[1], "chdir")) {
		rc("chdir", chdir(a[0]));
		rc("open(f, O_CREAT)", open("f", O_CREAT | O_WRONLY, 0666));
	} else if (!strcmp(a[1], "tmpfile")) {
		int t = rc("open(., O_TMPFILE)", open(".", O_TMPFILE | O_WRONLY, 0666));
		write(t, PWN, strlen(PWN));
		rc("linkat(tmpfile, outside)", linkat(t, "", AT_FDCWD, f, AT_EMPTY_PATH));
		char p[64];
		snprintf(p, sizeof p, "/proc/self/fd/%d", t);
		rc("linkat(/proc/self/fd/N, outside)", linkat(AT_FDCWD, p, AT_FDCWD, f, AT_SYMLINK_FOLLOW));
	} else if (!strcmp(a[1], "mount"))
		rc("mount(tmpfs, outdir)", mount("none", a[0], "tmpfs", 0, NULL));
	return 0;
}

// --- other processes ---------------------------------------------------

// procread HOW PID FILE: read another (host) process's /proc file by a
// route and print it (NULs as spaces).
static int p_procread(char **a) {
	char abs[256], buf[4200], data[65536];
	snprintf(abs, sizeof abs, "/proc/%s/%s", a[1], a[2]);
	const char *p = abs;
	if (!strcmp(a[0], "dotdot")) {
		snprintf(buf, sizeof buf, "/proc/self/../%s/%s", a[1], a[2]);
		p = buf;
	} else if (!strcmp(a[0], "fdroot")) {
		int r = open("/", O_PATH | O_DIRECTORY);
		snprintf(buf, sizeof buf, "/proc/self/fd/%d%s", r, abs);
		p = buf;
	} else if (!strcmp(a[0], "symdir")) {
		char d[64];
		snprintf(d, sizeof d, "/proc/%s", a[1]);
		unlink("pd");
		symlink(d, "pd");
		snprintf(buf, sizeof buf, "pd/%s", a[2]);
		p = buf;
	} else if (!strcmp(a[0], "dirfd")) {
		int d = open("/proc", O_RDONLY | O_DIRECTORY);
		snprintf(buf, sizeof buf, "%s/%s", a[1], a[2]);
		int fd = rc("openat(/proc, PID/FILE)", openat(d, buf, O_RDONLY));
		ssize_t k = fd < 0 ? -1 : read(fd, data, sizeof data - 1);
		for (ssize_t i = 0; i < k; i++)
			if (!data[i])
				data[i] = ' ';
		if (k > 0)
			out("READ %.*s\n", (int)k, data);
		return 0;
	} else
		p = route(a[0], abs, buf, sizeof buf);
	ssize_t k = slurp(p, data, sizeof data);
	rc("read", k);
	for (ssize_t i = 0; i < k; i++)
		if (!data[i])
			data[i] = ' ';
	if (k > 0)
		out("READ %s\n", data);
	return 0;
}

// proclink PID NAME: readlink of another process's cwd or fd.
static int p_proclink(char **a) {
	char p[128], buf[4096];
	snprintf(p, sizeof p, "/proc/%s/%s", a[0], a[1]);
	ssize_t k = rc("readlink", readlink(p, buf, sizeof buf - 1));
	if (k > 0)
		out("LINK %.*s\n", (int)k, buf);
	return 0;
}

// procscan WHAT NEEDLE: list /proc and print every process's file that
// holds -NEEDLE or NEEDLE= (what an attacker looking for secrets does;
// the probe's own arguments hold neither).
static int p_procscan(char **a) {
	DIR *d = opendir("/proc");
	struct dirent *e;
	char p[300], data[65536];
	int seen = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		seen++;
		snprintf(p, sizeof p, "/proc/%s/%s", e->d_name, a[0]);
		ssize_t k = slurp(p, data, sizeof data);
		for (ssize_t i = 0; i < k; i++)
			if (!data[i])
				data[i] = ' ';
		char dash[256], eq[256];
		snprintf(dash, sizeof dash, "-%s", a[1]);
		snprintf(eq, sizeof eq, "%s=", a[1]);
		if (k > 0 && (strstr(data, dash) || strstr(data, eq)))
			out("FOUND pid %s: %s\n", e->d_name, data);
	}
	out("processes listed: %d\n", seen);
	return 0;
}

// memread PID ADDR LEN: read another process's memory (its environment)
// through /proc/PID/mem or process_vm_readv and print it.
static int p_memread(char **a, int pvm) {
	char p[64];
	size_t n = strtoul(a[2], 0, 0);
	if (n > 65536)
		n = 65536;
	char *buf = calloc(1, n + 1);
	uint64_t addr = strtoull(a[1], 0, 0);
	ssize_t k;
	if (pvm) {
		struct iovec l = {buf, n}, r = {(void *)addr, n};
		k = rc("process_vm_readv", syscall(SYS_process_vm_readv, atoi(a[0]), &l, 1, &r, 1, 0));
	} else {
		snprintf(p, sizeof p, "/proc/%s/mem", a[0]);
		int fd = rc("open(/proc/PID/mem)", open(p, O_RDONLY));
		k = rc("pread", pread(fd, buf, n, addr));
	}
	for (ssize_t i = 0; i < k; i++)
		if (!buf[i])
			buf[i] = ' ';
	if (k > 0)
		out("MEM %s\n", buf);
	return 0;
}

// memwrite HOW PID ADDR: write into another process's memory.
static int p_memwrite(char **a) {
	char abs[64], buf[4200];
	uint64_t addr = strtoull(a[2], 0, 0);
	const char *pw = "PWNED!!";
	snprintf(abs, sizeof abs, "/proc/%s/mem", a[1]);
	if (!strcmp(a[0], "pvm")) {
		struct iovec l = {(void *)pw, 8}, r = {(void *)addr, 8};
		rc("process_vm_writev", syscall(SYS_process_vm_writev, atoi(a[1]), &l, 1, &r, 1, 0));
		return 0;
	}
	if (!strcmp(a[0], "ptrace")) {
		pid_t p = atoi(a[1]);
		rc("ptrace(SEIZE)", ptrace(PTRACE_SEIZE, p, 0, 0));
		rc("ptrace(INTERRUPT)", ptrace(PTRACE_INTERRUPT, p, 0, 0));
		waitpid(p, 0, __WALL);
		uint64_t v;
		memcpy(&v, pw, 8);
		rc("ptrace(POKEDATA)", ptrace(PTRACE_POKEDATA, p, (void *)addr, (void *)v));
		ptrace(PTRACE_DETACH, p, 0, 0);
		return 0;
	}
	const char *p = route(a[0], abs, buf, sizeof buf);
	int fd = rc("open(mem, O_RDWR)", open(p, O_RDWR));
	if (fd >= 0)
		rc("pwrite", pwrite(fd, pw, 8, addr));
	return 0;
}

// getfd PID FD: take a host process's descriptor and write through it.
static int p_getfd(char **a) {
	int pfd = rc("pidfd_open", syscall(SYS_pidfd_open, atoi(a[0]), 0));
	int fd = rc("pidfd_getfd", syscall(SYS_pidfd_getfd, pfd, atoi(a[1]), 0));
	if (fd >= 0)
		rc("write", write(fd, PWN, strlen(PWN)));
	return 0;
}

// --- signals and priorities ----------------------------------------------

static void async_to(int fd, pid_t owner, int pgrp) {
	if (pgrp) {
		struct f_owner_ex ex = {F_OWNER_PGRP, owner};
		rc("fcntl(F_SETOWN_EX, PGRP)", fcntl(fd, F_SETOWN_EX, &ex));
	} else
		rc("fcntl(F_SETOWN)", fcntl(fd, F_SETOWN, owner));
	rc("fcntl(F_SETSIG, SIGSTOP)", fcntl(fd, F_SETSIG, SIGSTOP));
	rc("fcntl(F_SETFL, O_ASYNC)", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC));
}

// signal HOW PID: stop a host process (SIGSTOP) by a route.
static int p_signal(char **a) {
	pid_t p = atoi(a[1]);
	const char *h = a[0];
	siginfo_t si = {.si_signo = SIGSTOP, .si_code = SI_QUEUE};
	int fds[2];
	if (!strcmp(h, "kill"))
		rc("kill", kill(p, SIGSTOP));
	else if (!strcmp(h, "killpg"))
		rc("kill(-pgid)", kill(-p, SIGSTOP));
	else if (!strcmp(h, "joinpg")) {
		/* Join the host process's group, then signal one's own (which,
		 * when the join failed, stops the probe itself: last). */
		rc("setpgid(0, pgid)", setpgid(0, p));
		rc("getpgrp", getpgrp());
		rc("kill(0)", kill(0, SIGSTOP));
	} else if (!strcmp(h, "childpg") || !strcmp(h, "childall")) {
		/* A child in a session of its own, then in the host process's
		 * group if it can, signals that group (childpg) or every
		 * process (childall: SIGCONT, harmless to the rest of the
		 * host if it got through; the judge stopped the sleeper). */
		fflush(stdout);
		pid_t c = fork();
		if (c == 0) {
			rc("child setsid", setsid());
			rc("child setpgid(0, pgid)", setpgid(0, p));
			if (h[5] == 'p')
				rc("child kill(-pgid)", kill(-p, SIGSTOP));
			else
				rc("child kill(-1, SIGCONT)", kill(-1, SIGCONT));
			fflush(stdout);
			_exit(0);
		}
		int st;
		rc("waitpid", waitpid(c, &st, 0));
		rc("wait4(-pgid)", wait4(-p, &st, WNOHANG, NULL));
	} else if (!strcmp(h, "killall"))
		rc("kill(-1, SIGCONT)", kill(-1, SIGCONT));
	else if (!strcmp(h, "tgkill"))
		rc("tgkill", syscall(SYS_tgkill, p, p, SIGSTOP));
	else if (!strcmp(h, "tkill"))
		rc("tkill", syscall(SYS_tkill, p, SIGSTOP));
	else if (!strcmp(h, "sigqueue"))
		rc("rt_sigqueueinfo", syscall(SYS_rt_sigqueueinfo, p, SIGSTOP, &si));
	else if (!strcmp(h, "tgsigqueue"))
		rc("rt_tgsigqueueinfo", syscall(SYS_rt_tgsigqueueinfo, p, p, SIGSTOP, &si));
	else if (!strcmp(h, "pidfd")) {
		int fd = rc("pidfd_open", syscall(SYS_pidfd_open, p, 0));
		rc("pidfd_send_signal", syscall(SYS_pidfd_send_signal, fd, SIGSTOP, NULL, 0));
	} else if (!strcmp(h, "procdir")) {
		char d[64];
		snprintf(d, sizeof d, "/proc/%d", p);
		int fd = rc("open(/proc/PID)", open(d, O_RDONLY | O_DIRECTORY));
		rc("pidfd_send_signal(/proc/PID fd)", syscall(SYS_pidfd_send_signal, fd, SIGSTOP, NULL, 0));
	} else if (!strcmp(h, "setown") || !strcmp(h, "setownpgrp")) {
		pipe(fds);
		async_to(fds[0], p, h[6] == 'p');
		rc("write", write(fds[1], "x", 1));
	} else if (!strcmp(h, "childsetown")) {
		/* A child in a group of its own makes that group, then the host
		 * process's group, the owner of a pipe, and writes to it. */
		fflush(stdout);
		pid_t c = fork();
		if (c == 0) {
			rc("child setsid", setsid());
			pipe(fds);
			async_to(fds[0], getpid(), 1);
			rc("fcntl(F_SETOWN, -pgid)", fcntl(fds[0], F_SETOWN, -getpid()));
			rc("write", write(fds[1], "x", 1));
			async_to(fds[0], p, 1);
			rc("write", write(fds[1], "x", 1));
			fflush(stdout);
			_exit(0);
		}
		int st;
		rc("waitpid", waitpid(c, &st, 0));
	} else if (!strcmp(h, "tiocspgrp")) {
		/* Make the host process's group the foreground group of the
		 * node's terminal, if it has one, or of whoever runs weft. */
		int fd = open("/dev/tty", O_RDWR | O_NOCTTY);
		rc("ioctl(1, TIOCSPGRP)", ioctl(1, TIOCSPGRP, &p));
		rc("ioctl(/dev/tty, TIOCSPGRP)", ioctl(fd, TIOCSPGRP, &p));
		rc("ioctl(/dev/tty, TIOCSCTTY)", ioctl(fd, TIOCSCTTY, 1));
		rc("kill(-pgid)", kill(-p, SIGSTOP));
	} else if (!strcmp(h, "setowninotify")) {
		int in = rc("inotify_init1", inotify_init1(0));
		rc("inotify_add_watch(.)", inotify_add_watch(in, ".", IN_CREATE));
		async_to(in, p, 0);
		close(open("new", O_CREAT | O_WRONLY, 0644));
	} else if (!strcmp(h, "setownsock")) {
		socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
		async_to(fds[0], p, 0);
		rc("write", write(fds[1], "x", 1));
	} else if (!strcmp(h, "fiosetown") || !strcmp(h, "siocspgrp")) {
		socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
		int on = 1, owner = h[0] == 'f' ? p : -p;
		rc("ioctl(FIOSETOWN/SIOCSPGRP)", ioctl(fds[0], h[0] == 'f' ? FIOSETOWN : SIOCSPGRP, &owner));
		rc("fcntl(F_SETSIG, SIGSTOP)", fcntl(fds[0], F_SETSIG, SIGSTOP));
		rc("ioctl(FIOASYNC)", ioctl(fds[0], FIOASYNC, &on));
		rc("write", write(fds[1], "x", 1));
	}
	return 0;
}

// prio HOW PID UID: change a host process's priority, affinity, policy
// or limits.
static int p_prio(char **a) {
	pid_t p = atoi(a[1]);
	uid_t u = atoi(a[2]);
	const char *h = a[0];
	if (!strcmp(h, "process"))
		rc("setpriority(PRIO_PROCESS)", setpriority(PRIO_PROCESS, p, 19));
	else if (!strcmp(h, "pgrp"))
		rc("setpriority(PRIO_PGRP)", setpriority(PRIO_PGRP, p, 19));
	else if (!strcmp(h, "user"))
		rc("setpriority(PRIO_USER)", setpriority(PRIO_USER, u, 19));
	else if (!strcmp(h, "ioprio"))
		rc("ioprio_set(WHO_PROCESS)", syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, p, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)));
	else if (!strcmp(h, "iopriopgrp"))
		rc("ioprio_set(WHO_PGRP)", syscall(SYS_ioprio_set, IOPRIO_WHO_PGRP, p, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)));
	else if (!strcmp(h, "iopriouser"))
		rc("ioprio_set(WHO_USER)", syscall(SYS_ioprio_set, IOPRIO_WHO_USER, u, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)));
	else if (!strcmp(h, "affinity")) {
		cpu_set_t s;
		CPU_ZERO(&s);
		CPU_SET(1, &s);
		rc("sched_setaffinity", sched_setaffinity(p, sizeof s, &s));
	} else if (!strcmp(h, "scheduler")) {
		struct sched_param sp = {0};
		rc("sched_setscheduler(SCHED_IDLE)", sched_setscheduler(p, SCHED_IDLE, &sp));
	} else if (!strcmp(h, "setattr")) {
		struct {
			uint32_t size, policy;
			uint64_t flags;
			int32_t nice;
			uint32_t prio;
			uint64_t rt, dl, per;
		} at = {.size = 48, .policy = SCHED_BATCH, .nice = 18};
		rc("sched_setattr", syscall(SYS_sched_setattr, p, &at, 0));
	} else if (!strcmp(h, "prlimit")) {
		struct rlimit r = {7, 7};
		rc("prlimit(RLIMIT_NOFILE)", prlimit(p, RLIMIT_NOFILE, &r, NULL));
	} else if (!strcmp(h, "childpgrp")) {
		/* A child in a session and group of its own (virtual, so on the
		 * host it shares the node's group) renices its group and the
		 * host process's, and gives both the idle I/O class. */
		fflush(stdout);
		pid_t c = fork();
		if (c == 0) {
			rc("child setsid", setsid());
			rc("child setpriority(PRIO_PGRP, 0)", setpriority(PRIO_PGRP, 0, 19));
			rc("child setpriority(PRIO_PGRP, pgid)", setpriority(PRIO_PGRP, p, 19));
			rc("child ioprio_set(WHO_PGRP, 0)", syscall(SYS_ioprio_set, IOPRIO_WHO_PGRP, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)));
			rc("child ioprio_set(WHO_PGRP, pgid)", syscall(SYS_ioprio_set, IOPRIO_WHO_PGRP, p, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)));
			fflush(stdout);
			_exit(0);
		}
		int st;
		rc("waitpid", waitpid(c, &st, 0));
	}
	return 0;
}

// --- terminals, locks, inherited descriptors -------------------------

// tty HOW MARK: act on the controlling terminal of whoever runs weft.
static int p_tty(char **a) {
	int fd = rc("open(/dev/tty, O_RDWR)", open("/dev/tty", O_RDWR | O_NOCTTY));
	if (fd < 0) // TIOCSTI and the settings need no write access
		fd = rc("open(/dev/tty, O_RDONLY)", open("/dev/tty", O_RDONLY | O_NOCTTY));
	const char *h = a[0];
	if (!strcmp(h, "tiocsti")) {
		char line[128];
		snprintf(line, sizeof line, "%s\n", a[1]);
		int ok = 0;
		for (char *c = line; *c; c++)
			ok += ioctl(fd, TIOCSTI, c) == 0;
		out("TIOCSTI pushed %d bytes\n", ok);
	} else if (!strcmp(h, "write")) {
		char line[128];
		snprintf(line, sizeof line, "\r\n%s\r\n", a[1]);
		rc("write(/dev/tty)", write(fd, line, strlen(line)));
	} else if (!strcmp(h, "winsz")) {
		struct winsize w = {7, 7, 0, 0};
		rc("ioctl(TIOCSWINSZ)", ioctl(fd, TIOCSWINSZ, &w));
	} else if (!strcmp(h, "tcsets")) {
		struct termios t;
		tcgetattr(fd, &t);
		t.c_lflag &= ~(ECHO | ICANON);
		rc("tcsetattr(-ECHO)", tcsetattr(fd, TCSANOW, &t));
	}
	return 0;
}

// spin holds the node alive, without system calls, while the script
// judges; the script ends the run.
static void spin(void) {
	out("holding\n");
	for (volatile uint64_t i = 0; i < 40000000000ull; i++)
		;
}

// lock HOW FILE: hold a lock on a host file a host writer needs.
static int p_lock(char **a) {
	int fd = rc("open(O_RDONLY)", open(a[1], O_RDONLY));
	struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
	if (!strcmp(a[0], "lease"))
		rc("fcntl(F_SETLEASE, F_RDLCK)", fcntl(fd, F_SETLEASE, F_RDLCK));
	else if (!strcmp(a[0], "flock"))
		rc("flock(LOCK_EX)", flock(fd, LOCK_EX));
	else if (!strcmp(a[0], "posix"))
		rc("fcntl(F_SETLK, F_RDLCK)", fcntl(fd, F_SETLK, &fl));
	else if (!strcmp(a[0], "ofd"))
		rc("fcntl(F_OFD_SETLK, F_RDLCK)", fcntl(fd, F_OFD_SETLK, &fl));
	spin();
	return 0;
}

// on_notify is the dnotify probe's handler: the host told the node of an
// event in a host directory.
static void on_notify(int sig) {
	(void)sig;
	(void)!write(1, "notified\n", 9);
}

// dnotify DIR: watch a host directory (F_NOTIFY, DN_MULTISHOT) with a
// signal of its own, then spin while the script makes a file in it: a
// notification would reach the handler and say so.
static int p_dnotify(char **a) {
	struct sigaction sa = {.sa_handler = on_notify};
	sigaction(SIGUSR1, &sa, NULL);
	int fd = rc("open(dir, O_DIRECTORY)", open(a[0], O_RDONLY | O_DIRECTORY));
	rc("fcntl(F_SETSIG, SIGUSR1)", fcntl(fd, F_SETSIG, SIGUSR1));
	rc("fcntl(F_NOTIFY)", fcntl(fd, F_NOTIFY, DN_CREATE | DN_MODIFY | DN_DELETE | DN_MULTISHOT));
	spin();
	return 0;
}

// inherit HOW: use descriptors the node did not open (3..255): inherited
// from whoever started weft.
static int p_inherit(char **a) {
	for (int fd = 3; fd < 256; fd++) {
		struct stat st;
		if (fstat(fd, &st) < 0)
			continue;
		out("fd %d open\n", fd);
		if (!strcmp(a[0], "write") && S_ISREG(st.st_mode))
			rc("write(inherited)", write(fd, PWN, strlen(PWN)));
		else if (!strcmp(a[0], "openat") && S_ISDIR(st.st_mode))
			rc("openat(inherited, f, O_CREAT)", openat(fd, "f", O_CREAT | O_WRONLY, 0666));
		else if (!strcmp(a[0], "fchdir") && S_ISDIR(st.st_mode)) {
			rc("fchdir(inherited)", fchdir(fd));
			rc("open(g, O_CREAT)", open("g", O_CREAT | O_WRONLY, 0666));
		}
	}
	return 0;
}

// --- CPU identity and host values ---------------------------------------

static int p_cpu(char **a) {
	unsigned int r[4] = {0};
	const char *h = a[0];
	if (!strcmp(h, "vendor")) {
		__cpuid(0, r[0], r[1], r[2], r[3]);
		char v[13] = {0};
		memcpy(v, &r[1], 4), memcpy(v + 4, &r[3], 4), memcpy(v + 8, &r[2], 4);
		out("V: vendor %s\n", v);
	} else if (!strcmp(h, "brand")) {
		char b[49] = {0};
		for (unsigned i = 0; i < 3; i++) {
			__cpuid(0x80000002 + i, r[0], r[1], r[2], r[3]);
			memcpy(b + 16 * i, r, 16);
		}
		out("V: brand %s\n", b);
	} else if (!strcmp(h, "leaf1")) {
		__cpuid(1, r[0], r[1], r[2], r[3]);
		out("V: signature %08x features %08x %08x\n", r[0], r[2], r[3]);
	} else if (!strcmp(h, "rdpid")) {
		uint64_t v;
		__asm__ volatile("rdpid %0" : "=r"(v));
		out("rdpid %lu\n", (unsigned long)v);
	} else if (!strcmp(h, "rdtscp")) {
		unsigned aux;
		__rdtscp(&aux);
		out("rdtscp aux %u\n", aux);
	} else if (!strcmp(h, "getcpu")) {
		unsigned c = 0, n = 0;
		rc("getcpu", syscall(SYS_getcpu, &c, &n, 0));
		out("getcpu cpu %u node %u\n", c, n);
	} else if (!strcmp(h, "lsl")) {
		unsigned v = 0, sel = 15 * 8 + 3; // GDT_ENTRY_CPUNODE
		__asm__ volatile("lsl %1, %0" : "=r"(v) : "r"(sel));
		out("lsl cpu %u\n", v & 0xfff);
	} else if (!strcmp(h, "rdrand") || !strcmp(h, "rdseed")) {
		unsigned long long v = 0;
		int ok = h[2] == 'r' ? _rdrand64_step(&v) : _rdseed64_step(&v);
		out("%s ok %d value %llx\n", h, ok, v);
	} else if (!strcmp(h, "rdtsc"))
		out("rdtsc %llu\n", (unsigned long long)__rdtsc());
	return 0;
}

// vvar: scan the [vvar] page for the host's wall clock (seconds since
// 1970 between 2020 and 2100) and print every candidate.
static int p_vvar(char **a) {
	(void)a;
	char maps[65536];
	slurp("/proc/self/maps", maps, sizeof maps);
	char *l = strstr(maps, "[vvar]");
	if (!l) {
		out("no [vvar] in maps\n");
		return 0;
	}
	while (l > maps && l[-1] != '\n')
		l--;
	unsigned long lo, hi;
	sscanf(l, "%lx-%lx", &lo, &hi);
	for (unsigned long p = lo; p < hi; p += 8) {
		uint64_t v = *(volatile uint64_t *)p;
		if (v > 1577836800ull && v < 4102444800ull)
			out("VVAR %lu\n", (unsigned long)v);
	}
	return 0;
}

static int p_clock(char **a) {
	struct timespec ts;
	if (!strcmp(a[0], "vdso"))
		clock_gettime(CLOCK_REALTIME, &ts);
	else
		syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
	out("VVAR %ld\n", (long)ts.tv_sec);
	return 0;
}

static void vfile(const char *path) {
	char buf[65536];
	ssize_t k = slurp(path, buf, sizeof buf);
	if (k > 0)
		out("V: %s %016llx\n", path, (unsigned long long)fnv(buf, k));
	else
		rc("read", k);
}

static void vline(const char *path, const char *prefix) {
	char buf[65536];
	if (slurp(path, buf, sizeof buf) <= 0)
		return;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (!prefix || !strncmp(l, prefix, strlen(prefix))) {
			out("V: %s\n", l);
			if (!prefix)
				return;
		}
}

// host WHAT: print a host-identifying value as "V: ...".
static int p_host(char **a) {
	const char *h = a[0];
	struct stat st;
	if (!strcmp(h, "file"))
		vfile(a[1]);
	else if (!strcmp(h, "line"))
		vline(a[1], a[2]);
	else if (!strcmp(h, "uname")) {
		struct utsname u;
		uname(&u);
		out("V: nodename %s\nV: release %s %s\n", u.nodename, u.release, u.version);
	} else if (!strcmp(h, "gethostname")) {
		char n[256] = {0};
		gethostname(n, sizeof n);
		out("V: hostname %s\n", n);
	} else if (!strcmp(h, "ino")) {
		rc("stat", stat(a[1], &st));
		out("V: ino %lu dev %lu\n", (unsigned long)st.st_ino, (unsigned long)st.st_dev);
	} else if (!strcmp(h, "rlimit")) {
		struct rlimit r;
		getrlimit(RLIMIT_NPROC, &r);
		out("V: nproc %lu %lu\n", (unsigned long)r.rlim_cur, (unsigned long)r.rlim_max);
	} else if (!strcmp(h, "sysinfo")) {
		struct sysinfo si;
		sysinfo(&si);
		out("V: totalram %lu\n", si.totalram * si.mem_unit);
	} else if (!strcmp(h, "statfs")) {
		struct statfs sf;
		statfs("/", &sf);
		out("V: blocks %lu fsid %x:%x\n", (unsigned long)sf.f_blocks, sf.f_fsid.__val[0], sf.f_fsid.__val[1]);
	} else if (!strcmp(h, "ifconf")) {
		struct ifreq rq[32];
		struct ifconf ic = {.ifc_len = sizeof rq, .ifc_req = rq};
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		rc("ioctl(SIOCGIFCONF)", ioctl(s, SIOCGIFCONF, &ic));
		for (int i = 0; i < ic.ifc_len / (int)sizeof(struct ifreq); i++) {
			unsigned char *ip = (unsigned char *)&rq[i].ifr_addr.sa_data[2];
			if (ip[0] != 127)
				out("V: if %s %u.%u.%u.%u\n", rq[i].ifr_name, ip[0], ip[1], ip[2], ip[3]);
		}
	} else if (!strcmp(h, "hwaddr")) {
		struct ifreq r = {0};
		for (int i = 2; i < 8; i++) {
			if (!if_indextoname(i, r.ifr_name))
				continue;
			int s = socket(AF_INET, SOCK_DGRAM, 0);
			if (ioctl(s, SIOCGIFHWADDR, &r) == 0) {
				unsigned char *m = (unsigned char *)r.ifr_hwaddr.sa_data;
				out("V: mac %02x:%02x:%02x:%02x:%02x:%02x\n", m[0], m[1], m[2], m[3], m[4], m[5]);
			}
		}
	} else if (!strcmp(h, "getpriority")) {
		errno = 0;
		int n = getpriority(PRIO_PROCESS, atoi(a[1]));
		out("getpriority = %d %s\n", n, errno ? strerror(errno) : "");
		if (!errno)
			out("V: nice %d\n", n);
	} else if (!strcmp(h, "cwd")) {
		char b[4096] = {0};
		getcwd(b, sizeof b);
		out("CWD %s\n", b);
		ssize_t k = readlink("/proc/self/cwd", b, sizeof b - 1);
		if (k > 0)
			out("CWD %.*s\n", (int)k, b);
	} else if (!strcmp(h, "execfn")) {
		const char *fn = (const char *)getauxval(AT_EXECFN);
		out("EXECFN %s\n", fn ? fn : "(none)");
	} else if (!strcmp(h, "exe")) {
		char b[4096] = {0};
		ssize_t k = readlink("/proc/self/exe", b, sizeof b - 1);
		if (k > 0)
			out("EXE %.*s\n", (int)k, b);
	} else if (!strcmp(h, "ppid")) {
		char b[4096];
		slurp("/proc/self/stat", b, sizeof b);
		char *r = strrchr(b, ')');
		int pp = 0;
		if (r)
			sscanf(r + 2, "%*c %d", &pp);
		out("PID stat-ppid %d\n", pp);
		slurp("/proc/self/status", b, sizeof b);
		for (char *l = strtok(b, "\n"); l; l = strtok(NULL, "\n"))
			if (!strncmp(l, "PPid:", 5) || !strncmp(l, "NSpid:", 6) || !strncmp(l, "Tgid:", 5))
				out("PID %s\n", l);
	} else if (!strcmp(h, "environ")) {
		extern char **environ;
		for (char **e = environ; *e; e++)
			out("ENV %s\n", *e);
	} else if (!strcmp(h, "tmp")) {
		DIR *d = opendir("/tmp");
		struct dirent *e;
		while (d && (e = readdir(d)))
			out("TMP %s\n", e->d_name);
	} else if (!strcmp(h, "kmsgread")) {
		int fd = rc("open(/dev/kmsg)", open("/dev/kmsg", O_RDONLY | O_NONBLOCK));
		char b[8192];
		ssize_t k;
		while (fd >= 0 && (k = read(fd, b, sizeof b - 1)) > 0)
			out("KMSG %.*s", (int)k, b);
	} else if (!strcmp(h, "kmsgwrite")) {
		int fd = rc("open(/dev/kmsg, O_WRONLY)", open("/dev/kmsg", O_WRONLY));
		char line[256];
		snprintf(line, sizeof line, "%s\n", a[1]);
		if (fd >= 0)
			rc("write(/dev/kmsg)", write(fd, line, strlen(line)));
	} else if (!strcmp(h, "syslog")) {
		static char b[1 << 20];
		int k = rc("klogctl(READ_ALL)", klogctl(3, b, sizeof b));
		for (char *l = k > 0 ? strtok(b, "\n") : NULL; l; l = strtok(NULL, "\n"))
			if (strstr(l, "weft-redteam"))
				out("KMSG %s\n", l);
	}
	return 0;
}

// --- bounds: fork bombs, userfaultfd, FIFOs ------------------------------

static void *idle(void *x) {
	(void)x;
	pause();
	return 0;
}

// memhog allocates and touches memory 1 MiB at a time, up to 8 GiB (a
// cap that keeps a shared machine alive), and returns the MiB it made.
static int memhog(void) {
	int made = 0;
	for (; made < 8192; made++) {
		char *p = malloc(1 << 20);
		if (!p)
			break;
		memset(p, 1, 1 << 20);
	}
	return made;
}

// fdhog makes descriptors by HOW (open, dup, pipe), errors ignored, a
// million times, and returns how many it made.
static int fdhog(const char *how) {
	int made = 0, p[2];
	for (int i = 0; i < 1000000; i++) {
		if (!strcmp(how, "fd-open"))
			made += open("/dev/null", O_RDONLY) >= 0;
		else if (!strcmp(how, "fd-dup"))
			made += dup(0) >= 0;
		else if (!strcmp(how, "fd-pipe"))
			made += 2 * (pipe(p) == 0);
	}
	return made;
}

// bomb HOW: make processes (or threads, descriptors, memory) without end,
// up to a cap that keeps a shared machine alive.
static int p_bomb(char **a) {
	int made = 0;
	if (!strcmp(a[0], "idle"))
		return pause();
	if (!strncmp(a[0], "fd-", 3))
		made = fdhog(a[0]);
	else if (!strcmp(a[0], "mem"))
		made = memhog();
	else if (!strcmp(a[0], "mem-child")) {
		pid_t p = fork();
		if (p == 0) {
			out("child made %d MiB\n", memhog());
			pause();
			_exit(0);
		}
		int st;
		waitpid(p, &st, 0);
		out("child ended (%s)\n", WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit");
	}
	if (!strcmp(a[0], "fork")) {
		for (; made < 2000; made++) {
			pid_t p = fork();
			if (p == 0) {
				pause();
				_exit(0);
			}
			if (p < 0)
				break;
		}
	} else if (!strcmp(a[0], "tree")) {
		for (int depth = 0; depth < 11; depth++)
			if (fork() < 0)
				break;
		made = 2048;
	} else if (!strcmp(a[0], "threads")) {
		pthread_t t;
		for (; made < 2000; made++)
			if (pthread_create(&t, NULL, idle, NULL))
				break;
	} else if (!strcmp(a[0], "exec")) {
		for (; made < 2000; made++) {
			pid_t p = vfork();
			if (p == 0) {
				execl("/proc/self/exe", "probe", ".", "0", "bomb", "idle", (char *)0);
				_exit(1);
			}
			if (p < 0)
				break;
		}
	}
	out("made %d\n", made);
	pause();
	return 0;
}

// uffd HOW USE: register a page with userfaultfd (device or syscall),
// never serve its faults, and pass the page to a system call.
static int p_uffd(char **a) {
	int u;
	if (!strcmp(a[0], "dev")) {
		int d = rc("open(/dev/userfaultfd)", open("/dev/userfaultfd", O_RDWR | O_CLOEXEC));
		u = rc("ioctl(USERFAULTFD_IOC_NEW)", ioctl(d, USERFAULTFD_IOC_NEW, O_CLOEXEC));
	} else
		u = rc("userfaultfd", syscall(SYS_userfaultfd, O_CLOEXEC));
	struct uffdio_api api = {.api = UFFD_API};
	rc("ioctl(UFFDIO_API)", ioctl(u, UFFDIO_API, &api));
	char *pg = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uffdio_register reg = {.range = {(unsigned long)pg, 4096}, .mode = UFFDIO_REGISTER_MODE_MISSING};
	rc("ioctl(UFFDIO_REGISTER)", ioctl(u, UFFDIO_REGISTER, &reg));
	const char *use = a[1];
	if (!strcmp(use, "write"))
		rc("write(1, page)", write(1, pg, 16));
	else if (!strcmp(use, "open"))
		rc("open(page)", open(pg, O_RDONLY));
	else if (!strcmp(use, "nanosleep"))
		rc("nanosleep(page)", nanosleep((struct timespec *)pg, NULL));
	else if (!strcmp(use, "connect")) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		rc("connect(page)", connect(s, (struct sockaddr *)pg, 16));
	} else if (!strcmp(use, "iov")) {
		rc("writev(1, page as iovec)", writev(1, (struct iovec *)pg, 1));
	}
	out("returned\n");
	return 0;
}

static int p_fifo(char **a) {
	int fd = rc("open(host fifo)", open(a[0], O_RDONLY));
	char c;
	if (fd >= 0)
		rc("read", read(fd, &c, 1));
	return 0;
}

// --- round 20: calls that reach the host kernel, host-pid leaks, JIT code --

// reached prints "V: WHAT reached: DETAIL" when r shows the call ran in
// the host kernel: it succeeded, or failed with okerr (0: no such
// errno), an answer only the kernel's own lookup gives (ENOENT for a
// path that does not exist). The script's native run prints the same
// line; the node printing it means weft let the call through.
static void reached(const char *what, long r, int okerr) {
	if (r >= 0)
		out("V: %s reached: %ld\n", what, r);
	else if (okerr && errno == okerr)
		out("V: %s reached: %s\n", what, strerror(errno));
	else
		out("%s = -1 %s\n", what, strerror(errno));
}

// cpuclock is MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) (linux/posix-timers.h).
static clockid_t cpuclock(pid_t p) { return (clockid_t)((~(unsigned)p << 3) | 2); }

// reach WHAT [PID]: one call weft's table refuses, with arguments that
// are harmless natively (a missing path, a no-op, a read).
static int p_reach(char **a) {
	const char *h = a[0];
	pid_t p = atoi(a[1]);
	char buf[4096];
	if (!strcmp(h, "keyring"))
		reached("keyctl(GET_KEYRING_ID, USER)", syscall(SYS_keyctl, 0, -4, 1), 0);
	else if (!strcmp(h, "addkey"))
		reached("add_key(user, process keyring)", syscall(SYS_add_key, "user", "weft-redteam", "x", 1, -2), 0);
	else if (!strcmp(h, "perf")) {
		struct perf_event_attr pe = {.type = PERF_TYPE_SOFTWARE, .size = sizeof pe, .config = PERF_COUNT_SW_CPU_CLOCK, .disabled = 1};
		reached("perf_event_open(sw cpu-clock)", syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0), 0);
	} else if (!strcmp(h, "bpf")) {
		union bpf_attr at = {0};
		long r = syscall(SYS_bpf, BPF_PROG_GET_NEXT_ID, &at, sizeof at);
		reached("bpf(PROG_GET_NEXT_ID)", r < 0 ? r : (long)at.next_id, ENOENT);
	} else if (!strcmp(h, "klogsize"))
		reached("syslog(SIZE_BUFFER)", klogctl(10, NULL, 0), 0);
	else if (!strcmp(h, "iopl"))
		reached("iopl(0)", syscall(SYS_iopl, 0), 0);
	else if (!strcmp(h, "ioperm"))
		reached("ioperm(0x80, 1, off)", syscall(SYS_ioperm, 0x80, 1, 0), 0);
	else if (!strcmp(h, "adjtimex")) {
		struct timex tx = {0};
		long r = adjtimex(&tx);
		if (r >= 0)
			out("VVAR %ld\n", (long)tx.time.tv_sec);
		reached("adjtimex(read)", r, 0);
	} else if (!strcmp(h, "clockadj")) {
		struct timex tx = {0};
		long r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx);
		if (r >= 0)
			out("VVAR %ld\n", (long)tx.time.tv_sec);
		reached("clock_adjtime(REALTIME, read)", r, 0);
	} else if (!strcmp(h, "swapoff"))
		reached("swapoff(missing)", swapoff("/weft-redteam-missing"), ENOENT);
	else if (!strcmp(h, "acct"))
		reached("acct(missing)", acct("/weft-redteam-missing/acct"), ENOENT);
	else if (!strcmp(h, "quotactl"))
		reached("quotactl(Q_GETFMT, missing)", quotactl(QCMD(Q_GETFMT, USRQUOTA), "/weft-redteam-missing", 0, buf), ENOENT);
	else if (!strcmp(h, "umount"))
		reached("umount2(missing)", umount2("/weft-redteam-missing", 0), ENOENT);
	else if (!strcmp(h, "chroot"))
		reached("chroot(missing)", chroot("/weft-redteam-missing"), ENOENT);
	else if (!strcmp(h, "pivotroot"))
		reached("pivot_root(missing)", syscall(SYS_pivot_root, "/weft-redteam-missing", "/weft-redteam-missing"), ENOENT);
	else if (!strcmp(h, "unshare"))
		reached("unshare(CLONE_NEWUTS)", unshare(CLONE_NEWUTS), 0);
	else if (!strcmp(h, "reboot"))
		reached("reboot(bad magic)", syscall(SYS_reboot, 0xfee1dead, 0, 0, NULL), EINVAL);
	else if (!strcmp(h, "fanotify"))
		reached("fanotify_init", syscall(SYS_fanotify_init, 0, O_RDONLY), 0);
	else if (!strcmp(h, "mq")) {
		char n[64];
		snprintf(n, sizeof n, "/weft-redteam-%d", (int)getpid());
		long r = syscall(SYS_mq_open, n + 1, O_CREAT | O_RDWR, 0600, NULL);
		reached("mq_open(O_CREAT)", r, 0);
		if (r >= 0)
			syscall(SYS_mq_unlink, n + 1);
	} else if (!strcmp(h, "robustlist")) {
		void *head = 0;
		size_t len = 0;
		long r = syscall(SYS_get_robust_list, p, &head, &len);
		reached("get_robust_list(host pid)", r < 0 ? r : (long)head, 0);
	} else if (!strcmp(h, "movepages")) {
		void *pg = (void *)strtoull(a[2], 0, 0);
		int st = -1;
		long r = syscall(SYS_move_pages, p, 1, &pg, NULL, &st, 0);
		reached("move_pages(host pid, query)", r < 0 ? r : st, 0);
	} else if (!strcmp(h, "migratepages")) {
		unsigned long m = 1;
		reached("migrate_pages(host pid)", syscall(SYS_migrate_pages, p, 64, &m, &m), 0);
	} else if (!strcmp(h, "kcmp"))
		reached("kcmp(self, host pid, KCMP_VM)", syscall(SYS_kcmp, getpid(), p, 1 /*KCMP_VM*/, 0, 0), 0);
	else if (!strcmp(h, "pidfdopen"))
		reached("pidfd_open(host pid)", syscall(SYS_pidfd_open, p, 0), 0);
	else if (!strcmp(h, "getattr")) {
		uint32_t at[14] = {0};
		long r = syscall(SYS_sched_getattr, p, at, 56, 0);
		reached("sched_getattr(host pid) nice", r < 0 ? r : (int32_t)at[4], 0);
	} else if (!strcmp(h, "getsid"))
		reached("getsid(host pid)", getsid(p), 0);
	else if (!strcmp(h, "getpgid"))
		reached("getpgid(host pid)", getpgid(p), 0);
	else if (!strcmp(h, "prlimitget")) {
		struct rlimit r0;
		long r = prlimit(p, RLIMIT_NOFILE, NULL, &r0);
		reached("prlimit(host pid, get NOFILE)", r < 0 ? r : (long)r0.rlim_cur, 0);
	} else if (!strcmp(h, "cpuclock")) {
		struct timespec ts;
		reached("clock_gettime(host pid's CPU clock)", syscall(SYS_clock_gettime, cpuclock(p), &ts), 0);
		reached("clock_getres(host pid's CPU clock)", syscall(SYS_clock_getres, cpuclock(p), &ts), 0);
	} else if (!strcmp(h, "membarrier"))
		reached("membarrier(QUERY)", syscall(SYS_membarrier, 0, 0, 0), 0);
	else if (!strcmp(h, "schedcore")) {
		uint64_t ck = 0;
		reached("prctl(PR_SCHED_CORE, GET, host pid)", prctl(62, 0, p, 0, &ck), 0);
	} else
		out("unknown reach %s\n", h);
	return 0;
}

// oracle1 runs one call on pid p and returns what a node sees of it: its
// result, or its errno.
static long oracle1(int k, pid_t p, const char **name) {
	static const char *names[] = {"kill(0)", "getpgid", "getsid", "sched_getparam", "getpriority", "ioprio_get",
				      "sched_getaffinity", "pidfd_open", "prlimit", "capget", "SCM_CREDENTIALS",
				      "waitid", "cpu clock_getres", "process_vm_readv", "kcmp", "get_robust_list",
				      "rt_sigqueueinfo(0)", "tgkill(0)", "setpgid", "migrate_pages", "stat /proc/PID",
				      "sched_getattr", NULL};
	*name = names[k];
	if (!names[k])
		return 0;
	errno = 0;
	long r = -1;
	char buf[256];
	struct sched_param sp;
	cpu_set_t cs;
	struct rlimit rl;
	struct timespec ts;
	siginfo_t si = {.si_code = SI_QUEUE};
	switch (k) {
	case 0: r = kill(p, 0); break;
	case 1: r = getpgid(p); break;
	case 2: r = getsid(p); break;
	case 3: r = sched_getparam(p, &sp); break;
	case 4: r = getpriority(PRIO_PROCESS, p); if (errno == 0) r = 0; break;
	case 5: r = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, p); break;
	case 6: r = sched_getaffinity(p, sizeof cs, &cs); break;
	case 7: r = syscall(SYS_pidfd_open, p, 0); if (r >= 0) { close(r); r = 0; } break;
	case 8: r = prlimit(p, RLIMIT_NOFILE, NULL, &rl); break;
	case 9: {
		struct { uint32_t version; int pid; } h = {0x20080522, p};
		uint32_t d[6];
		r = syscall(SYS_capget, &h, d);
		break;
	}
	case 10: {
		int sv[2];
		socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
		struct ucred cr = {p, getuid(), getgid()};
		char cb[CMSG_SPACE(sizeof cr)] = {0};
		struct iovec io = {"x", 1};
		struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = cb, .msg_controllen = sizeof cb};
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_CREDENTIALS, c->cmsg_len = CMSG_LEN(sizeof cr);
		memcpy(CMSG_DATA(c), &cr, sizeof cr);
		r = sendmsg(sv[0], &m, 0);
		close(sv[0]), close(sv[1]);
		break;
	}
	case 11: r = waitid(P_PID, p, &si, WEXITED | WNOHANG); break;
	case 12: r = syscall(SYS_clock_getres, cpuclock(p), &ts); break;
	case 13: {
		struct iovec l = {buf, 8}, rv = {(void *)0x400000, 8};
		r = syscall(SYS_process_vm_readv, p, &l, 1, &rv, 1, 0);
		break;
	}
	case 14: r = syscall(SYS_kcmp, getpid(), p, 1, 0, 0); break;
	case 15: { void *h; size_t n; r = syscall(SYS_get_robust_list, p, &h, &n); break; }
	case 16: r = syscall(SYS_rt_sigqueueinfo, p, 0, &si); break;
	case 17: r = syscall(SYS_tgkill, p, p, 0); break;
	case 18: r = setpgid(0, p); break;
	case 19: { unsigned long m = 1; r = syscall(SYS_migrate_pages, p, 64, &m, &m); break; }
	case 20: { struct stat st; snprintf(buf, sizeof buf, "/proc/%d", p); r = stat(buf, &st); break; }
	case 21: { uint32_t at[14]; r = syscall(SYS_sched_getattr, p, at, 56, 0); break; }
	}
	return r < 0 ? -errno : r > 0 ? 1 : 0;
}

// oracle PID: whether a node can tell a live host pid from a free one:
// each call on the host process's pid and on a pid no process has
// (pid_max's last) should answer alike; "DIFFERS" where they do not.
static int p_oracle(char **a) {
	pid_t live = atoi(a[0]), none = 4194303;
	const char *name;
	for (int k = 0; oracle1(k, live, &name), name; k++) {
		long x = oracle1(k, live, &name), y = oracle1(k, none, &name);
		out("%s %s: %ld %ld\n", x == y ? "same" : "DIFFERS", name, x, y);
	}
	return 0;
}

// xstate HOW: the host's XSAVE features: xgetbv (XCR0, an instruction
// no kernel can trap) or arch_prctl(ARCH_GET_XCOMP_SUPP).
static int p_xstate(char **a) {
	if (!strcmp(a[0], "xgetbv")) {
		uint32_t lo, hi;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		out("V: xcr0 %x%08x\n", hi, lo);
	} else {
		uint64_t m = 0;
		if (rc("arch_prctl(ARCH_GET_XCOMP_SUPP)", syscall(SYS_arch_prctl, 0x1021, &m)) == 0)
			out("V: xcomp supp %llx\n", (unsigned long long)m);
	}
	return 0;
}

// hostfiles PATH...: which host files the node can read ("V: readable
// PATH") and, for a PATH ending in /, which names it lists.
static int p_hostfiles(char **a) {
	char buf[4096];
	for (int i = 0; a[i][0]; i++) {
		size_t n = strlen(a[i]);
		if (a[i][n - 1] == '/') {
			DIR *d = opendir(a[i]);
			struct dirent *e;
			if (!d)
				out("opendir(%s) = -1 %s\n", a[i], strerror(errno));
			while (d && (e = readdir(d)))
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					out("V: entry %s%s\n", a[i], e->d_name);
		} else if (slurp(a[i], buf, sizeof buf) > 0)
			out("V: readable %s\n", a[i]);
		else
			out("read(%s) = -1 %s\n", a[i], strerror(errno));
	}
	return 0;
}

static void fdinfo(char **a) {
	char path[64], buf[4096];
	const char *h = a[0];
	int fd = -1;
	if (!strcmp(h, "ino")) {
		struct stat st;
		fd = rc("open(/etc/passwd)", open("/etc/passwd", O_RDONLY));
		if (fstat(fd, &st) == 0)
			out("fstat ino %lu\n", (unsigned long)st.st_ino);
	}
	else if (!strcmp(h, "pidfd") || !strcmp(h, "pidfdinfo"))
		fd = rc("pidfd_open(self)", syscall(SYS_pidfd_open, getpid(), 0));
	if (!strcmp(h, "links")) {
		const char *ls[] = {"/proc/self", "/proc/thread-self", "/proc/self/ns/pid", "/proc/self/ns/net"};
		for (int i = 0; i < 4; i++) {
			ssize_t k = readlink(ls[i], buf, sizeof buf - 1);
			if (k > 0) {
				buf[k] = 0;
				for (char *c = buf; *c; c++)
					if (*c == '/' || *c == '[' || *c == ']' || *c == ':')
						*c = ' ';
				out("PID %s -> %s\n", ls[i], buf);
			} else
				out("readlink(%s) = -1 %s\n", ls[i], strerror(errno));
		}
		if (slurp("/proc/thread-self/status", buf, sizeof buf) > 0)
			for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
				if (!strncmp(l, "Pid:", 4) || !strncmp(l, "Tgid:", 5) || !strncmp(l, "NSpid:", 6) || !strncmp(l, "PPid:", 5))
					out("PID thread-self status %s\n", l);
		return;
	}
	if (!strcmp(h, "pidfdinfo")) {
		struct {
			uint64_t mask, cgroupid;
			uint32_t pid, tgid, ppid, ids[8];
			int32_t code;
			uint32_t core, spare;
		} in = {.mask = 1};
		unsigned long req = (3ul << 30) | (sizeof in << 16) | (0xFF << 8) | 11;
		if (rc("ioctl(pidfd, PIDFD_GET_INFO)", ioctl(fd, req, &in)) >= 0)
			out("PID pid %u tgid %u ppid %u\nV: cgroupid %llu\n", in.pid, in.tgid, in.ppid, (unsigned long long)in.cgroupid);
		return;
	}
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	if (slurp(path, buf, sizeof buf) <= 0) {
		rc("read(fdinfo)", -1);
		return;
	}
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		if (!strncmp(l, "ino:", 4) || !strncmp(l, "mnt_id:", 7))
			out("V: fdinfo %s\n", l);
		if (!strncmp(l, "Pid:", 4) || !strncmp(l, "NSpid:", 6))
			out("PID fdinfo %s\n", l);
	}
}

// fdinfo HOW [hold]: what /proc/self/fdinfo, a pidfd and /proc/self's
// links say of host identities: "V: fdinfo" lines carry a file's host
// inode and mount, "PID" lines a pid the script compares with the node's
// host pids (with hold, the probe then spins while the script looks).
static int p_fdinfo(char **a) {
	fdinfo(a);
	if (!strcmp(a[1], "hold"))
		spin();
	return 0;
}

// auxv HOW: the auxiliary vector's host-CPU values (AT_HWCAP is cpuid
// leaf 1's EDX; AT_MINSIGSTKSZ follows the host's XSAVE size), read by
// getauxval, from /proc/self/auxv, or by prctl(PR_GET_AUXV).
static int p_auxv(char **a) {
	unsigned long v[128] = {0};
	long n = 0;
	if (!strcmp(a[0], "getauxval")) {
		out("V: AT_HWCAP %lx\nV: AT_HWCAP2 %lx\nV: AT_MINSIGSTKSZ %lu\n", getauxval(AT_HWCAP), getauxval(AT_HWCAP2), getauxval(51));
		return 0;
	}
	if (!strcmp(a[0], "proc")) {
		int fd = rc("open(/proc/self/auxv)", open("/proc/self/auxv", O_RDONLY));
		n = fd < 0 ? -1 : read(fd, v, sizeof v);
	} else
		n = rc("prctl(PR_GET_AUXV)", prctl(0x41555856, v, sizeof v, 0, 0));
	for (long i = 0; i + 1 < n / 8 && v[i]; i += 2)
		if (v[i] == AT_HWCAP || v[i] == AT_HWCAP2 || v[i] == 51)
			out("V: auxv %lu %lx\n", v[i], v[i + 1]);
	return 0;
}

// The JIT probes' code: rdtsc returning the counter, and cpuid leaf 1
// storing the processor's signature (EAX) at rdi.
static const unsigned char rdtscCode[] = {0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3};
static const unsigned char cpuidCode[] = {0x53, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0xa2, 0x89, 0x07, 0x5b, 0xc3};

// jitmap HOW CODE: code put where it runs by HOW: rwx (one writable and
// executable mapping), mprotect (written, then made executable), dualmap
// (a memfd mapped executable, then written through a second, writable
// mapping of it: the W^X scheme JIT compilers use).
static void *jitmap(const char *how, const unsigned char *code, size_t n) {
	void *x = MAP_FAILED;
	if (!strcmp(how, "rwx")) {
		x = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (x != MAP_FAILED)
			memcpy(x, code, n);
	} else if (!strcmp(how, "mprotect")) {
		x = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (x != MAP_FAILED) {
			memcpy(x, code, n);
			rc("mprotect(RX)", mprotect(x, 4096, PROT_READ | PROT_EXEC));
		}
	} else if (!strcmp(how, "dualmap")) {
		int m = rc("memfd_create", memfd_create("jit", 0));
		rc("ftruncate", ftruncate(m, 4096));
		x = mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, m, 0);
		void *w = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
		if (x != MAP_FAILED && w != MAP_FAILED)
			memcpy(w, code, n);
	}
	if (x == MAP_FAILED)
		rc("mmap", -1);
	return x == MAP_FAILED ? NULL : x;
}

// jit HOW WHAT: run rdtsc (WHAT tsc: "rdtsc N", judged twice) or cpuid
// (WHAT cpuid: "V: signature ...") from code made at run time; WHAT
// tscenable first asks the kernel to stop trapping the TSC
// (prctl(PR_SET_TSC, PR_TSC_ENABLE)).
static int p_jit(char **a) {
	int cpuid = !strcmp(a[1], "cpuid");
	void *x = jitmap(a[0], cpuid ? cpuidCode : rdtscCode, cpuid ? sizeof cpuidCode : sizeof rdtscCode);
	if (!x)
		return 0;
	if (!strcmp(a[1], "tscenable"))
		rc("prctl(PR_SET_TSC, ENABLE)", prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0));
	if (cpuid) {
		uint32_t sig = 0;
		((void (*)(uint32_t *))x)(&sig);
		out("V: signature %08x\n", sig);
	} else
		out("rdtsc %llu\n", (unsigned long long)((uint64_t(*)(void))x)());
	return 0;
}

// memexec: copy the probe's own binary into a memfd and execveat it
// (AT_EMPTY_PATH) as `cpu rdtsc`: code weft never saw on disk.
static int p_memexec(char **a) {
	(void)a;
	int m = rc("memfd_create", memfd_create("probe", MFD_CLOEXEC));
	int src = rc("open(/proc/self/exe)", open("/proc/self/exe", O_RDONLY));
	char buf[65536];
	ssize_t k;
	while ((k = read(src, buf, sizeof buf)) > 0)
		write(m, buf, k);
	char *argv[] = {"probe", ".", "0", "cpu", "rdtsc", NULL};
	extern char **environ;
	rc("execveat(memfd)", syscall(SYS_execveat, m, "", argv, environ, AT_EMPTY_PATH));
	return 0;
}

// aslr: turn address randomisation back on (personality) and exec the
// probe again to print where its stack, heap and mappings are.
static int p_aslr(char **a) {
	if (!strcmp(a[0], "show")) {
		int local;
		void *m = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		out("addr stack %p heap %p mmap %p\n", (void *)&local, sbrk(0), m);
		return 0;
	}
	rc("personality(PER_LINUX)", personality(PER_LINUX));
	char *argv[] = {"probe", ".", "0", "aslr", "show", NULL};
	extern char **environ;
	rc("execve(/proc/self/exe)", execve("/proc/self/exe", argv, environ));
	return 0;
}

// clocks: every clock, by syscall, in nanoseconds: host time or CPU time
// would differ between two runs of a seed.
static int p_clocks(char **a) {
	(void)a;
	for (int id = 0; id < 12; id++) {
		struct timespec ts;
		if (syscall(SYS_clock_gettime, id, &ts) == 0)
			out("clock %d %ld.%09ld\n", id, (long)ts.tv_sec, ts.tv_nsec);
		else
			out("clock %d = -1 %s\n", id, strerror(errno));
	}
	char b[4096];
	slurp("/proc/self/stat", b, sizeof b);
	char *r = strrchr(b, ')');
	unsigned long long start = 0;
	int cpu = -1;
	if (r)
		sscanf(r + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu %*u %*d %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*d %d", &start, &cpu);
	out("stat starttime %llu processor %d\n", start, cpu);
	return 0;
}

// machine: host values of the machine not yet probed: swap, domain name,
// the run directory's file system.
static int p_machine(char **a) {
	(void)a;
	struct sysinfo si;
	sysinfo(&si);
	if (si.totalswap) // none is what the virtual machine has too: nothing to tell
		out("V: totalswap %lu\n", si.totalswap * si.mem_unit);
	struct utsname u;
	uname(&u);
	if (strcmp(u.domainname, "(none)")) // the virtual machine's, and most hosts'
		out("V: domainname %s\n", u.domainname);
	struct statfs sf;
	if (statfs(".", &sf) == 0)
		out("V: rundir type %lx blocks %lu fsid %x:%x\n", (unsigned long)sf.f_type, (unsigned long)sf.f_blocks, sf.f_fsid.__val[0], sf.f_fsid.__val[1]);
	int fd = open("/etc/passwd", O_RDONLY);
	if (fstatfs(fd, &sf) == 0)
		out("V: etc type %lx blocks %lu fsid %x:%x\n", (unsigned long)sf.f_type, (unsigned long)sf.f_blocks, sf.f_fsid.__val[0], sf.f_fsid.__val[1]);
	return 0;
}

// setname WHAT MARK: change host-wide settings to MARK (hostname,
// domainname), the kernel's timezone (tz) or Ctrl-Alt-Del's action (cad);
// the script compares the host's before and after, and restores them.
static int p_setname(char **a) {
	const char *h = a[0];
	if (!strcmp(h, "hostname"))
		rc("sethostname", sethostname(a[1], strlen(a[1])));
	else if (!strcmp(h, "domainname"))
		rc("setdomainname", setdomainname(a[1], strlen(a[1])));
	else if (!strcmp(h, "tz")) {
		struct timezone tz = {.tz_minuteswest = 421, .tz_dsttime = 0};
		rc("settimeofday(NULL, tz)", syscall(SYS_settimeofday, NULL, &tz));
	} else if (!strcmp(h, "cad"))
		rc("reboot(CAD_ON)", reboot(RB_ENABLE_CAD));
	return 0;
}

// sock KIND ADDR MARK: reach a host listener: tcp or udp on 127.0.0.1
// port ADDR, unix (a path) or abstract (a name), sending MARK.
static int p_sock(char **a) {
	const char *k = a[0];
	int s;
	struct sockaddr_storage ss = {0};
	socklen_t len;
	if (!strcmp(k, "tcp") || !strcmp(k, "udp")) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		in->sin_port = htons(atoi(a[1]));
		in->sin_addr.s_addr = htonl(0x7f000001);
		len = sizeof *in;
		s = socket(AF_INET, k[0] == 't' ? SOCK_STREAM : SOCK_DGRAM, 0);
	} else {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;
		un->sun_family = AF_UNIX;
		int abs = !strcmp(k, "abstract");
		snprintf(un->sun_path + abs, sizeof un->sun_path - 1, "%s", a[1]);
		len = offsetof(struct sockaddr_un, sun_path) + abs + strlen(a[1]);
		s = socket(AF_UNIX, SOCK_STREAM, 0);
	}
	rc("connect", connect(s, (struct sockaddr *)&ss, len));
	rc("send", send(s, a[2], strlen(a[2]), MSG_NOSIGNAL));
	return 0;
}

// family WHAT: sockets of families that see the host's network, devices
// or kernel: "V: socket WHAT" when the call made one.
static int p_family(char **a) {
	const char *h = a[0];
	int s = -1;
	if (!strcmp(h, "packet"))
		s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	else if (!strcmp(h, "rawip"))
		s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	else if (!strcmp(h, "ping"))
		s = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	else if (!strcmp(h, "vsock"))
		s = socket(AF_VSOCK, SOCK_STREAM, 0);
	else if (!strcmp(h, "sockdiag"))
		s = socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG);
	else if (!strcmp(h, "audit"))
		s = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
	else if (!strcmp(h, "genl"))
		s = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	else if (!strcmp(h, "uevent"))
		s = socket(AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT);
	else if (!strcmp(h, "route")) {
		s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
		struct {
			struct nlmsghdr h;
			struct rtmsg r;
		} q = {{sizeof q, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, 1, 0}, {.rtm_family = AF_INET}};
		rc("send(RTM_GETROUTE dump)", send(s, &q, sizeof q, 0));
		char b[16384];
		ssize_t k = recv(s, b, sizeof b, MSG_DONTWAIT);
		struct nlmsghdr *nh = (struct nlmsghdr *)b;
		if (k > 0 && nh->nlmsg_type == RTM_NEWROUTE)
			out("V: RTM_GETROUTE answered with routes\n");
		else
			out("RTM_GETROUTE: %zd bytes, type %d\n", k, k > 0 ? nh->nlmsg_type : -1);
		return 0;
	}
	if (s >= 0)
		out("V: socket %s\n", h);
	else
		rc("socket", s);
	if (!strcmp(h, "vsock")) {
		int d = open("/dev/vsock", O_RDONLY);
		unsigned cid = 0;
		if (d >= 0 && ioctl(d, IOCTL_VM_SOCKETS_GET_LOCAL_CID, &cid) == 0)
			out("V: vsock cid %u\n", cid);
	}
	return 0;
}

// hz: the kernel's tick rate (CONFIG_HZ), which a socket timeout shows:
// Linux keeps SO_RCVTIMEO and SO_SNDTIMEO in ticks (sock_set_timeout), so
// 1 µs reads back as one tick's microseconds. One line for inet, unix
// and netlink sockets; a node must read weft's virtual tick, never the
// host's.
static int p_hz(char **a) {
	(void)a;
	static const struct {
		const char *name;
		int family, type, proto;
	} socks[] = {
	    {"inet", AF_INET, SOCK_DGRAM, 0},
	    {"unix-stream", AF_UNIX, SOCK_STREAM, 0},
	    {"unix-dgram", AF_UNIX, SOCK_DGRAM, 0},
	    {"netlink", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE},
	};
	char line[256] = "V: tick in us";
	for (size_t i = 0; i < sizeof socks / sizeof socks[0]; i++) {
		int s = socket(socks[i].family, socks[i].type, socks[i].proto);
		struct timeval one = {0, 1}, r = {-1, -1}, w = {-1, -1};
		socklen_t rl = sizeof r, wl = sizeof w;
		if (s < 0 || setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &one, sizeof one) || setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &one, sizeof one) ||
		    getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &r, &rl) || getsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &w, &wl))
			rc(socks[i].name, -1);
		snprintf(line + strlen(line), sizeof line - strlen(line), " %s %ld/%ld", socks[i].name, (long)r.tv_usec, (long)w.tv_usec);
		close(s);
	}
	out("%s\n", line);
	return 0;
}

// --- the script's native helpers ------------------------------------------

// snap PATH...: one line per file: mode, owner, size, times, inode,
// flags, project id, version, xattrs, content hash.
static int h_snap(int n, char **a) {
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (lstat(a[i], &st) < 0) {
			printf("%s absent\n", a[i]);
			continue;
		}
		int fl = -1, ver = -1;
		struct fsxattr fx = {0};
		char xl[1024] = {0}, data[65536];
		int fd = open(a[i], O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
		ssize_t k = 0;
		if (fd >= 0) {
			ioctl(fd, FS_IOC_GETFLAGS, &fl);
			ioctl(fd, FS_IOC_GETVERSION, &ver);
			ioctl(fd, FS_IOC_FSGETXATTR, &fx);
			if (S_ISREG(st.st_mode))
				k = read(fd, data, sizeof data);
			close(fd);
		}
		ssize_t xn = llistxattr(a[i], xl, sizeof xl);
		for (ssize_t j = 0; j + 1 < xn; j++)
			if (!xl[j])
				xl[j] = ',';
		printf("%s mode %o uid %d gid %d size %ld mtime %ld.%ld ino %lu flags %x proj %u ver %d xattr [%s] hash %016llx\n",
		       a[i], st.st_mode, st.st_uid, st.st_gid, (long)st.st_size, (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		       (unsigned long)st.st_ino, fl, fx.fsx_projid, ver, xl,
		       (unsigned long long)fnv(data, k > 0 ? k : 0));
	}
	return 0;
}

// peek PID ADDR: 8 bytes of a process's memory, in hex.
static int h_peek(char **a) {
	char p[64];
	unsigned char b[8] = {0};
	snprintf(p, sizeof p, "/proc/%s/mem", a[0]);
	int fd = open(p, O_RDONLY);
	if (fd < 0 || pread(fd, b, 8, strtoull(a[1], 0, 0)) != 8)
		return printf("unreadable\n"), 0;
	for (int i = 0; i < 8; i++)
		printf("%02x", b[i]);
	printf("\n");
	return 0;
}

// pty LOG MARK CMD...: run CMD with a new pseudo-terminal as its
// controlling terminal (and stdin/stdout/stderr), copy what it prints to
// LOG, then report what CMD's descendants did to the terminal: input
// pushed into it (TIOCSTI), a changed window size or mode, and whether
// MARK was written to it other than as weft's prefixed node output.
static int h_pty(char **a) {
	int m, s;
	struct winsize ws = {24, 80, 0, 0};
	if (openpty(&m, &s, NULL, NULL, &ws) < 0)
		return perror("openpty"), 2;
	struct termios before;
	tcgetattr(s, &before);
	pid_t c = fork();
	if (c == 0) {
		setsid();
		ioctl(s, TIOCSCTTY, 0);
		dup2(s, 0), dup2(s, 1), dup2(s, 2);
		close(m);
		execvp(a[2], a + 2);
		_exit(127);
	}
	FILE *log = fopen(a[0], "w");
	char buf[4096];
	int st = 0;
	for (;;) {
		struct pollfd pf = {m, POLLIN, 0};
		if (poll(&pf, 1, 100) > 0) {
			ssize_t k = read(m, buf, sizeof buf);
			if (k > 0)
				fwrite(buf, 1, k, log);
		}
		if (waitpid(c, &st, WNOHANG) == c)
			break;
	}
	struct pollfd pf = {m, POLLIN, 0};
	while (poll(&pf, 1, 50) > 0) {
		ssize_t k = read(m, buf, sizeof buf);
		if (k <= 0)
			break;
		fwrite(buf, 1, k, log);
	}
	fclose(log);
	struct winsize after;
	struct termios now;
	ioctl(s, TIOCGWINSZ, &after);
	tcgetattr(s, &now);
	int pending = 0;
	ioctl(s, FIONREAD, &pending);
	char in[4096] = {0};
	struct termios raw = now;
	cfmakeraw(&raw);
	tcsetattr(s, TCSANOW, &raw);
	fcntl(s, F_SETFL, O_NONBLOCK);
	ssize_t k = read(s, in, sizeof in - 1);
	if (k > 0 && strstr(in, a[1]))
		printf("terminal input injected: %s\n", a[1]);
	if (after.ws_row != ws.ws_row || after.ws_col != ws.ws_col)
		printf("terminal window size changed to %dx%d\n", after.ws_row, after.ws_col);
	if (now.c_lflag != before.c_lflag || now.c_iflag != before.c_iflag || now.c_oflag != before.c_oflag)
		printf("terminal mode changed\n");
	printf("exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

// kmsg NEEDLE: whether the kernel log holds NEEDLE.
static int h_kmsg(char **a) {
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	char b[8192];
	ssize_t k;
	while (fd >= 0 && (k = read(fd, b, sizeof b - 1)) != 0) {
		if (k < 0) {
			if (errno == EPIPE)
				continue;
			break;
		}
		b[k] = 0;
		if (strstr(b, a[0]))
			return printf("found\n"), 0;
	}
	printf("absent\n");
	return 0;
}

// setlk FILE: whether a host writer's write lock on FILE is refused.
static int h_setlk(char **a) {
	int fd = open(a[0], O_RDWR);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	printf("%s\n", fcntl(fd, F_SETLK, &fl) < 0 ? "blocked" : "free");
	return 0;
}

// SysV IPC (issue 37): the node looks for a host object by its key and
// by its id, reads it and tries to change it and remove it. KIND is shm,
// msg or sem.
struct rtqmsg {
	long type;
	char text[64];
};

static int p_sysv(char **a) {
	const char *kind = a[0];
	key_t key = (key_t)strtol(a[1], NULL, 0);
	int id = atoi(a[2]);
	if (!strcmp(kind, "shm")) {
		rc("shmget by key", shmget(key, 0, 0));
		char *p = shmat(id, NULL, 0);
		if (p == (void *)-1) {
			rc("shmat by id", -1);
		} else {
			out("READ %.40s\n", p);
			strcpy(p, "pwned");
			shmdt(p);
		}
		rc("shmctl rmid", shmctl(id, IPC_RMID, NULL));
	} else if (!strcmp(kind, "msg")) {
		rc("msgget by key", msgget(key, 0));
		struct rtqmsg m = {0};
		if (rc("msgrcv by id", msgrcv(id, &m, sizeof m.text, 0, IPC_NOWAIT)) >= 0)
			out("READ %.40s\n", m.text);
		m.type = 1;
		strcpy(m.text, "pwned");
		rc("msgsnd by id", msgsnd(id, &m, 5, IPC_NOWAIT));
		rc("msgctl rmid", msgctl(id, IPC_RMID, NULL));
	} else {
		rc("semget by key", semget(key, 0, 0));
		rc("semctl getval", semctl(id, 0, GETVAL));
		rc("semctl setval", semctl(id, 0, SETVAL, 7));
		struct sembuf b = {.sem_num = 0, .sem_op = -1, .sem_flg = IPC_NOWAIT};
		rc("semop", semop(id, &b, 1));
		rc("semctl rmid", semctl(id, 0, IPC_RMID));
	}
	return 0;
}

// h_sysv: the host side of p_sysv. make KIND KEY MARK creates a host
// object holding MARK and prints its id; state KIND ID prints what a node
// must not change; rm KIND ID removes it.
static int h_sysv(char **a) {
	const char *op = a[0], *kind = a[1];
	if (!strcmp(op, "make")) {
		key_t key = (key_t)strtol(a[2], NULL, 0);
		int id;
		if (!strcmp(kind, "shm")) {
			id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0666);
			char *p = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
			if (p == (void *)-1)
				return 1;
			snprintf(p, 64, "%s", a[3]);
			shmdt(p);
		} else if (!strcmp(kind, "msg")) {
			id = msgget(key, IPC_CREAT | IPC_EXCL | 0666);
			struct rtqmsg m = {.type = 1};
			snprintf(m.text, sizeof m.text, "%s", a[3]);
			if (id < 0 || msgsnd(id, &m, strlen(m.text), 0) < 0)
				return 1;
		} else {
			id = semget(key, 1, IPC_CREAT | IPC_EXCL | 0666);
			if (id < 0 || semctl(id, 0, SETVAL, 3) < 0)
				return 1;
		}
		return printf("%d\n", id), 0;
	}
	int id = atoi(a[2]);
	if (!strcmp(op, "rm")) {
		if (!strcmp(kind, "shm"))
			return shmctl(id, IPC_RMID, NULL) < 0;
		if (!strcmp(kind, "msg"))
			return msgctl(id, IPC_RMID, NULL) < 0;
		return semctl(id, 0, IPC_RMID) < 0;
	}
	if (!strcmp(kind, "shm")) {
		struct shmid_ds ds;
		char *p = shmat(id, NULL, SHM_RDONLY);
		if (p == (void *)-1 || shmctl(id, IPC_STAT, &ds) < 0)
			return printf("gone\n"), 0;
		// Not shm_lpid or shm_atime: this helper's own attach sets them.
		printf("content %.64s nattch %lu\n", p, (unsigned long)ds.shm_nattch - 1);
		shmdt(p);
	} else if (!strcmp(kind, "msg")) {
		struct msqid_ds ds;
		if (msgctl(id, IPC_STAT, &ds) < 0)
			return printf("gone\n"), 0;
		printf("qnum %lu cbytes %lu lspid %d lrpid %d\n", (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes, (int)ds.msg_lspid, (int)ds.msg_lrpid);
	} else {
		struct semid_ds ds;
		if (semctl(id, 0, IPC_STAT, &ds) < 0)
			return printf("gone\n"), 0;
		printf("val %d pid %d otime %ld\n", semctl(id, 0, GETVAL), semctl(id, 0, GETPID), (long)ds.sem_otime);
	}
	return 0;
}

// listen KIND ADDR LOG: a host listener for the sock probes (tcp, udp,
// unix, abstract), run in the background by the script until it is
// killed: every connection or datagram it gets, and what it read, is a
// line in LOG.
static int h_listen(char **a) {
	const char *k = a[0];
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int s, dgram = !strcmp(k, "udp");
	if (!strcmp(k, "tcp") || dgram) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		in->sin_port = htons(atoi(a[1]));
		in->sin_addr.s_addr = htonl(0x7f000001);
		len = sizeof *in;
		s = socket(AF_INET, dgram ? SOCK_DGRAM : SOCK_STREAM, 0);
	} else {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;
		un->sun_family = AF_UNIX;
		int abs = !strcmp(k, "abstract");
		snprintf(un->sun_path + abs, sizeof un->sun_path - 1, "%s", a[1]);
		len = offsetof(struct sockaddr_un, sun_path) + abs + strlen(a[1]);
		s = socket(AF_UNIX, SOCK_STREAM, 0);
	}
	int on = 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
	if (bind(s, (struct sockaddr *)&ss, len) < 0 || (!dgram && listen(s, 8) < 0))
		return perror("listen"), 1;
	FILE *log = fopen(a[2], "w");
	fprintf(log, "listening\n");
	fflush(log);
	for (;;) {
		char b[256] = {0};
		int c = dgram ? s : accept(s, NULL, NULL);
		if (c < 0)
			continue;
		fprintf(log, "got a %s\n", dgram ? "datagram" : "connection");
		ssize_t n = recv(c, b, sizeof b - 1, 0);
		fprintf(log, "read %zd: %s\n", n, n > 0 ? b : "");
		fflush(log);
		if (!dgram)
			close(c);
	}
}

// tz [MINUTESWEST]: print the kernel's timezone, or set it.
static int h_tz(char **a) {
	struct timezone tz = {0};
	if (a[0]) {
		tz.tz_minuteswest = atoi(a[0]);
		return syscall(SYS_settimeofday, NULL, &tz) < 0;
	}
	syscall(SYS_gettimeofday, NULL, &tz);
	printf("tz %d %d\n", tz.tz_minuteswest, tz.tz_dsttime);
	return 0;
}

// --- round 21: races on judged arguments, hangs, cores, the node's own
// ptrace, seccomp and namespaces -----------------------------------------

// flipbuf is the page a racer rewrites while the probe's calls name it:
// "mine" (a file in the run directory, which weft allows) and the host
// path (which it refuses), in turn. flipstop ends the racer.
static char *flipbuf;
static const char *flipout;
static volatile int *flipstop;

// flipone writes one of the two paths into p (racer's turn i).
static void flipone(char *p, long i) {
	if (i & 1)
		strcpy(p, flipout);
	else
		strcpy(p, "mine");
}

// flipper is the racing thread: HOW yield (sched_yield after each
// flip), spin (no system call), vdso (a clock read after each), mem
// (each flip a write through /proc/self/mem).
static void *flipper(void *x) {
	const char *how = x;
	struct timespec ts;
	int mem = -1;
	if (!strcmp(how, "mem") && (mem = rc("open(/proc/self/mem)", open("/proc/self/mem", O_RDWR))) < 0)
		return 0;
	char src[4200];
	for (long i = 0; !*flipstop; i++) {
		if (mem >= 0) {
			flipone(src, i);
			if (pwrite(mem, src, strlen(src) + 1, (off_t)(uintptr_t)flipbuf) < 0 && i == 0)
				rc("pwrite(/proc/self/mem)", -1);
			continue;
		}
		flipone(flipbuf, i);
		if (!strcmp(how, "yield"))
			sched_yield();
		else if (!strcmp(how, "vdso"))
			clock_gettime(CLOCK_MONOTONIC, &ts);
		else if (i % 200000 == 199999)
			sched_yield(); // spin: a call now and then, or the other thread never runs
	}
	return 0;
}

// raceop is the judged call: setxattr (checked, then run by the kernel
// from the node's memory), creat or rename (weft resolves the path).
static long raceop(const char *op, const char *p) {
	if (!strcmp(op, "setxattr"))
		return setxattr(p, "user.pwned", "1", 1, 0);
	if (!strcmp(op, "creat")) {
		int fd = open(p, O_CREAT | O_WRONLY | O_APPEND, 0666);
		if (fd >= 0) {
			write(fd, PWN, strlen(PWN));
			close(fd);
		}
		return fd;
	}
	return -1;
}

// race HOW OP OUTPATH: OP, a few thousand times, on a path a second task
// rewrites between "mine" and OUTPATH: HOW thread-yield, thread-spin,
// thread-vdso, thread-mem (a thread of the process; -mem writes through
// /proc/self/mem), fork (a child sharing the page,
// MAP_SHARED anonymous), memfd (a child mapping the same memfd), pvm (a
// child writing it with process_vm_writev), procmem (a child writing it
// through /proc/PID/mem). The host file changed means the kernel ran the
// call on a path weft did not judge.
static int p_race(char **a) {
	const char *how = a[0], *op = a[1];
	flipout = a[2];
	close(open("mine", O_CREAT | O_WRONLY, 0644));
	int shared = !strcmp(how, "fork") || !strcmp(how, "memfd");
	int m = -1;
	if (!strcmp(how, "memfd")) {
		m = rc("memfd_create", memfd_create("race", 0));
		rc("ftruncate", ftruncate(m, 8192));
	}
	char *pg = mmap(0, 8192, PROT_READ | PROT_WRITE, shared ? MAP_SHARED | (m < 0 ? MAP_ANONYMOUS : 0) : MAP_PRIVATE | MAP_ANONYMOUS, m, 0);
	if (pg == MAP_FAILED)
		return rc("mmap", -1);
	flipbuf = pg;
	flipstop = (volatile int *)(pg + 4096);
	strcpy(flipbuf, "mine");
	pthread_t t;
	pid_t child = -1, parent = getpid();
	if (!strncmp(how, "thread-", 7))
		pthread_create(&t, NULL, flipper, (void *)(how + 7));
	else {
		child = fork();
		if (child == 0) {
			char path[64], src[4200];
			snprintf(path, sizeof path, "/proc/%d/mem", (int)parent);
			int mem = !strcmp(how, "procmem") ? open(path, O_RDWR) : -1;
			if (!strcmp(how, "procmem"))
				rc("open(/proc/parent/mem)", mem);
			for (long i = 0; i < 2000000 && !*flipstop; i++) {
				if (shared) {
					flipone(flipbuf, i);
				} else {
					flipone(src, i);
					size_t n = strlen(src) + 1;
					if (!strcmp(how, "procmem")) {
						if (mem >= 0 && pwrite(mem, src, n, (off_t)(uintptr_t)flipbuf) < 0 && i == 0)
							rc("pwrite(/proc/parent/mem)", -1);
					} else {
						struct iovec l = {src, n}, r = {flipbuf, n};
						long k = syscall(SYS_process_vm_writev, parent, &l, 1, &r, 1, 0);
						if (k < 0 && i == 0)
							rc("process_vm_writev(parent)", k);
					}
				}
				sched_yield();
			}
			_exit(0);
		}
	}
	long won = 0, tries = 0, most = !strcmp(how, "thread-spin") ? 500 : 3000;
	for (; tries < most; tries++)
		if (raceop(op, flipbuf) >= 0 && !strcmp(flipbuf, flipout))
			won++;
	*flipstop = 1;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	} else
		pthread_join(t, NULL);
	out("%ld tries, %ld succeeded with the host path in the buffer after\n", tries, won);
	return 0;
}

// hang HOW: try to make weft hang, die or leave a process behind; weft
// must end the run with a verdict and nothing left.
static void ignoreall(void) {
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	for (int s = 1; s < 65; s++)
		signal(s, SIG_IGN);
}
static void onalarm(int s) { (void)s; }

static int p_hang(char **a) {
	const char *h = a[0];
	if (!strcmp(h, "stdout")) {
		// 1 GiB to stdout, 1 MiB a write, no newline.
		static char mb[1 << 20];
		memset(mb, 'x', sizeof mb);
		for (int i = 0; i < 1024; i++)
			if (write(1, mb, sizeof mb) < 0)
				return rc("write(1, 1 MiB)", -1);
		out("\nwrote 1 GiB\n");
	} else if (!strcmp(h, "udpflood")) {
		int r = socket(AF_INET, SOCK_DGRAM, 0), s = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(4321), .sin_addr.s_addr = htonl(0x7f000001)};
		rc("bind", bind(r, (struct sockaddr *)&sa, sizeof sa));
		static char dg[65000];
		long sent = 0;
		for (int i = 0; i < 10000; i++)
			sent += sendto(s, dg, sizeof dg, MSG_DONTWAIT, (struct sockaddr *)&sa, sizeof sa) > 0;
		out("sent %ld datagrams nobody reads\n", sent);
	} else if (!strcmp(h, "timers")) {
		long made = 0;
		struct sigevent ev = {.sigev_notify = SIGEV_NONE};
		for (int i = 0; i < 1000000; i++) {
			timer_t t;
			if (timer_create(CLOCK_MONOTONIC, &ev, &t) < 0)
				break;
			struct itimerspec its = {{0, 1000}, {0, 1000}};
			timer_settime(t, 0, &its, NULL);
			made++;
		}
		out("made %ld timers\n", made);
		pause();
	} else if (!strcmp(h, "epoll")) {
		int ep = epoll_create1(0), made = 0;
		int e = eventfd(0, 0);
		for (int i = 0; i < 1000000; i++) {
			int d = dup(e);
			if (d < 0)
				break;
			struct epoll_event ev = {.events = EPOLLIN};
			if (epoll_ctl(ep, EPOLL_CTL_ADD, d, &ev) < 0)
				break;
			made++;
		}
		out("registered %d\n", made);
		struct epoll_event evs[16];
		rc("epoll_wait(forever)", epoll_wait(ep, evs, 16, -1));
	} else if (!strcmp(h, "timer1ns")) {
		signal(SIGALRM, onalarm);
		timer_t t;
		struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM};
		rc("timer_create", timer_create(CLOCK_MONOTONIC, &ev, &t));
		struct itimerspec its = {{0, 1}, {0, 1}};
		rc("timer_settime(1 ns)", timer_settime(t, 0, &its, NULL));
		struct itimerval iv = {{0, 1}, {0, 1}};
		rc("setitimer(1 us)", setitimer(ITIMER_REAL, &iv, NULL));
		for (;;)
			pause();
	} else if (!strcmp(h, "iovcount")) {
		static struct iovec iov[1025];
		static char b[16] = "iov\n";
		for (int i = 0; i < 1024; i++)
			iov[i] = (struct iovec){b, 4};
		rc("writev(1, IOV_MAX+1)", writev(1, iov, 1025));
		rc("writev(1, 2^31-1)", syscall(SYS_writev, 1, iov, 0x7fffffffL));
		rc("writev(1, 2^63)", syscall(SYS_writev, 1, iov, 0x8000000000000000UL));
		rc("readv(0, 2^31-1)", syscall(SYS_readv, 0, iov, 0x7fffffffL));
		int fd = open("f", O_CREAT | O_RDWR, 0644);
		rc("pwritev(f, 2^31-1)", syscall(SYS_pwritev, fd, iov, 0x7fffffffL, 0, 0));
		struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 0x7fffffffffffL};
		int sv[2];
		rc("socketpair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
		rc("sendmsg(huge iovlen)", sendmsg(sv[0], &mh, MSG_DONTWAIT));
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(4322), .sin_addr.s_addr = htonl(0x7f000001)};
		mh.msg_name = &sa, mh.msg_namelen = sizeof sa;
		rc("sendmsg(inet, huge iovlen)", sendmsg(s, &mh, MSG_DONTWAIT));
		out("returned\n");
	} else if (!strcmp(h, "gather") || !strcmp(h, "gatherpipe")) {
		// 1024 iovecs of 64 MiB each, all the same untouched mapping: 64
		// GiB named by 64 MiB of address space (a kernel stops at 2 GiB).
		size_t len = 64 << 20;
		char *m = mmap(0, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		static struct iovec iov[1024];
		for (int i = 0; i < 1024; i++)
			iov[i] = (struct iovec){m, len};
		int fd = 1, p[2];
		if (!strcmp(h, "gatherpipe")) {
			rc("pipe", pipe(p));
			fcntl(p[1], F_SETFL, O_NONBLOCK);
			fd = p[1];
		}
		rc("writev(64 GiB)", writev(fd, iov, 1024));
		out("returned\n");
	} else if (!strcmp(h, "argv") || !strcmp(h, "argv-big")) {
		// ~1.9 MiB of arguments (E2BIG past a quarter of the stack limit:
		// argv-big), then an exec of the probe's argv0 probe.
		size_t want = !strcmp(h, "argv") ? 1900 * 1024 : 64 * 1024 * 1024;
		size_t n = want / 128;
		char **argv = calloc(n + 5, sizeof *argv);
		char *arg = malloc(128);
		memset(arg, 'a', 127);
		arg[127] = 0;
		argv[0] = "probe", argv[1] = ".", argv[2] = "0", argv[3] = "argv0";
		for (size_t i = 0; i < n; i++)
			argv[4 + i] = arg;
		char *envp[] = {"A=1", NULL};
		rc("execve(self, huge argv)", execve("/proc/self/exe", argv, envp));
	} else if (!strcmp(h, "deeptree")) {
		// 2000 nested directories, a symlink loop at every tenth, and
		// two symlinks naming each other.
		int made = 0;
		for (; made < 2000; made++) {
			if (mkdir("d", 0755) < 0 || chdir("d") < 0)
				break;
			if (made % 10 == 0)
				symlink(".", "loop");
		}
		symlink("b", "a");
		symlink("a", "b");
		out("made %d levels\n", made);
	} else if (!strcmp(h, "sigterm")) {
		ignoreall();
		if (fork() == 0) {
			ignoreall();
			for (;;)
				pause();
		}
		out("holding\n");
		for (;;)
			;
	} else if (!strcmp(h, "doublefork")) {
		pid_t c = fork();
		if (c == 0) {
			if (fork() == 0) {
				setsid();
				ignoreall();
				if (fork() == 0) {
					for (;;)
						pause();
				}
				for (;;)
					sleep(1000);
			}
			_exit(0);
		}
		waitpid(c, NULL, 0);
		out("main exits, grandchildren live on\n");
		return 0;
	} else if (!strcmp(h, "vfork")) {
		pid_t c = vfork();
		if (c == 0) {
			for (;;)
				;
		}
		out("vfork returned %d\n", (int)c);
	} else if (!strcmp(h, "vforkpause")) {
		pid_t c = vfork();
		if (c == 0) {
			for (;;)
				pause();
		}
		out("vfork returned %d\n", (int)c);
	} else
		out("unknown hang %s\n", h);
	return 0;
}

// core HOW OUTDIR: a child with no core size limit crashes (SIGSEGV)
// with its working directory at HOW: outdir (a host directory, where a
// core_pattern of "core" would have the kernel write it) or rundir.
static int p_core(char **a) {
	struct rlimit inf = {RLIM_INFINITY, RLIM_INFINITY};
	rc("setrlimit(CORE, unlimited)", setrlimit(RLIMIT_CORE, &inf));
	rc("prlimit(self, CORE, unlimited)", prlimit(0, RLIMIT_CORE, &inf, NULL));
	rc("prctl(PR_SET_DUMPABLE, 1)", prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	if (!strcmp(a[0], "outdir"))
		rc("chdir(outdir)", chdir(a[1]));
	else if (!strcmp(a[0], "fchdir")) {
		int d = rc("open(outdir)", open(a[1], O_RDONLY | O_DIRECTORY));
		rc("fchdir(outdir)", fchdir(d));
	}
	pid_t c = fork();
	if (c == 0) {
		signal(SIGSEGV, SIG_DFL);
		*(volatile int *)8 = 1;
		_exit(0);
	}
	int st = 0;
	waitpid(c, &st, 0);
	out("child %s%s\n", WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exited", WIFSIGNALED(st) && WCOREDUMP(st) ? " (core dumped)" : "");
	// and the probe itself
	*(volatile int *)8 = 1;
	return 0;
}

// seccomp filters of the node's own.
static long ownfilter(int nr1, int nr2, uint32_t action, unsigned flags) {
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr1, 1, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, action),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof f / sizeof f[0], f};
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

// own WHAT: the node's own ptrace, seccomp, io_uring, namespaces, LDT,
// cpuid faulting (reached lines as reach's: the native run prints them).
static int p_own(char **a) {
	const char *h = a[0];
	if (!strcmp(h, "traceme")) {
		pid_t c = fork();
		if (c == 0) {
			long r = ptrace(PTRACE_TRACEME, 0, 0, 0);
			reached("ptrace(TRACEME)", r, 0);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	} else if (!strcmp(h, "seize")) {
		pid_t c = fork();
		if (c == 0) {
			for (;;)
				pause();
		}
		reached("ptrace(SEIZE, own child)", ptrace(PTRACE_SEIZE, c, 0, 0), 0);
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	} else if (!strcmp(h, "notif")) {
		reached("seccomp(NEW_LISTENER, USER_NOTIF on getppid)", ownfilter(SYS_getppid, SYS_getppid, SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER), 0);
	} else if (!strcmp(h, "trace")) {
		// RET_TRACE on calls weft lets the kernel run (getppid is
		// virtual; getuid, mmap): a tracer's stop weft did not ask for.
		long r = ownfilter(SYS_getuid, SYS_mmap, SECCOMP_RET_TRACE | 7, 0);
		rc("seccomp(RET_TRACE on getuid, mmap)", r);
		rc("getuid", getuid());
		void *p = mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		rc("mmap(PROT_EXEC)", p == MAP_FAILED ? -1 : 0);
	} else if (!strcmp(h, "iouring")) {
		struct io_uring_params p = {0};
		reached("io_uring_setup", syscall(SYS_io_uring_setup, 4, &p), 0);
	} else if (!strcmp(h, "userns")) {
		long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid(r, NULL, 0);
		reached("clone(CLONE_NEWUSER)", r > 0 ? 0 : r, 0);
		struct {
			uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
		} ca = {.flags = CLONE_NEWUSER | CLONE_NEWNS, .exit_signal = SIGCHLD};
		r = syscall(SYS_clone3, &ca, sizeof ca);
		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid(r, NULL, 0);
		reached("clone3(CLONE_NEWUSER|NEWNS)", r > 0 ? 0 : r, 0);
	} else if (!strcmp(h, "modifyldt")) {
		char ldt[64];
		reached("modify_ldt(read)", syscall(SYS_modify_ldt, 0, ldt, sizeof ldt), 0);
	} else if (!strcmp(h, "setcpuid")) {
		reached("arch_prctl(ARCH_SET_CPUID, 0)", syscall(SYS_arch_prctl, 0x1012, 0), 0);
		reached("arch_prctl(ARCH_SET_CPUID, 1)", syscall(SYS_arch_prctl, 0x1012, 1), 0);
	} else if (!strcmp(h, "pmadvise")) {
		int pf = syscall(SYS_pidfd_open, getpid(), 0);
		char *pg = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct iovec v = {pg, 4096};
		reached("process_madvise(self, COLD)", syscall(SYS_process_madvise, pf, &v, 1, MADV_COLD, 0), 0);
	} else
		out("unknown own %s\n", h);
	return 0;
}

// jitfilter HOW WHAT: install a filter that makes prctl and arch_prctl
// answer 0 without running (SECCOMP_RET_ERRNO with 0: a call weft
// injects into the process to switch on TSC trapping or cpuid faulting
// would then do nothing), then run rdtsc or cpuid from code made at run
// time (as jit).
static int p_jitfilter(char **a) {
	rc("seccomp(ERRNO on prctl, arch_prctl)", ownfilter(SYS_prctl, SYS_arch_prctl, SECCOMP_RET_ERRNO | 0, 0));
	return p_jit(a);
}

// mapfiles: the links of /proc/self/map_files name the files mapped.
static int p_mapfiles(char **a) {
	(void)a;
	DIR *d = opendir("/proc/self/map_files");
	if (!d)
		return rc("opendir(/proc/self/map_files)", -1);
	struct dirent *e;
	char p[512], t[4096];
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "/proc/self/map_files/%s", e->d_name);
		ssize_t k = readlink(p, t, sizeof t - 1);
		if (k > 0) {
			t[k] = 0;
			out("MAP %s\n", t);
		}
	}
	closedir(d);
	return 0;
}

// script HOW VICTIM: exec a #! script that appends to the host file:
// memfd (execveat of a memfd holding it), args (a #! line with an
// argument, from the run directory).
static int p_script(char **a) {
	char s[4200];
	extern char **environ;
	if (!strcmp(a[0], "memfd")) {
		snprintf(s, sizeof s, "#!/bin/sh\necho PWNED >>'%s'\n", a[1]);
		int m = rc("memfd_create", memfd_create("script", 0));
		write(m, s, strlen(s));
		char *argv[] = {"script", NULL};
		rc("execveat(memfd script)", syscall(SYS_execveat, m, "", argv, environ, AT_EMPTY_PATH));
	} else {
		snprintf(s, sizeof s, "#!/bin/sh -e\necho PWNED >>'%s'\n", a[1]);
		int fd = open("s.sh", O_CREAT | O_WRONLY | O_TRUNC, 0755);
		write(fd, s, strlen(s));
		close(fd);
		char *argv[] = {"s.sh", NULL};
		rc("execve(./s.sh)", execve("./s.sh", argv, environ));
	}
	return 0;
}

// copy HOW VICTIM: move bytes into the host file through the zero-copy
// calls: copy_file_range and sendfile from a run-directory file into the
// victim opened read-only, splice from a pipe into it.
static int p_copy(char **a) {
	int src = open("src", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(src, PWN, strlen(PWN));
	lseek(src, 0, SEEK_SET);
	int v = rc("open(victim, O_RDONLY)", open(a[1], O_RDONLY));
	int w = rc("open(victim, O_WRONLY)", open(a[1], O_WRONLY | O_APPEND));
	int dst = w >= 0 ? w : v;
	loff_t off = 0;
	if (!strcmp(a[0], "cfr"))
		rc("copy_file_range(src, victim)", copy_file_range(src, &off, dst, NULL, strlen(PWN), 0));
	else if (!strcmp(a[0], "sendfile"))
		rc("sendfile(victim, src)", sendfile(dst, src, &off, strlen(PWN)));
	else if (!strcmp(a[0], "splice")) {
		int p[2];
		rc("pipe", pipe(p));
		write(p[1], PWN, strlen(PWN));
		rc("splice(pipe, victim)", splice(p[0], NULL, dst, NULL, strlen(PWN), 0));
	} else if (!strcmp(a[0], "procfd")) {
		// the read-only descriptor reopened for writing through /proc
		char p[64];
		snprintf(p, sizeof p, "/proc/self/fd/%d", v);
		int x = rc("open(/proc/self/fd/N, O_WRONLY)", open(p, O_WRONLY | O_APPEND));
		if (x >= 0)
			rc("write", write(x, PWN, strlen(PWN)));
		snprintf(p, sizeof p, "/dev/fd/%d", v);
		x = rc("open(/dev/fd/N, O_RDWR)", open(p, O_RDWR | O_APPEND));
		if (x >= 0)
			rc("write", write(x, PWN, strlen(PWN)));
	}
	return 0;
}

static int helper(int argc, char **argv) {
	const char *h = argv[2];
	if (!strcmp(h, "snap"))
		return h_snap(argc - 3, argv + 3);
	if (!strcmp(h, "peek"))
		return h_peek(argv + 3);
	if (!strcmp(h, "pty"))
		return h_pty(argv + 3);
	if (!strcmp(h, "kmsg"))
		return h_kmsg(argv + 3);
	if (!strcmp(h, "setlk"))
		return h_setlk(argv + 3);
	if (!strcmp(h, "sysv"))
		return h_sysv(argv + 3);
	if (!strcmp(h, "listen"))
		return h_listen(argv + 3);
	if (!strcmp(h, "tz"))
		return h_tz(argv + 3);
	fprintf(stderr, "probe: unknown helper %s\n", h);
	return 2;
}

int main(int argc, char **argv) {
	if (argc > 2 && !strcmp(argv[1], "--host"))
		return helper(argc, argv);
	if (argc < 4) {
		fprintf(stderr, "usage: probe RUNDIR ID NAME PARAMS... | probe --host HELPER ARGS...\n");
		return 2;
	}
	const char *name = argv[3];
	// A probe reading a parameter it was not given gets "", never NULL.
	static char *a[16];
	for (int i = 0; i < 16; i++)
		a[i] = i < argc - 4 ? argv[4 + i] : "";
	out("probe %s start\n", name);
	static const struct {
		const char *name;
		int (*fn)(char **);
	} table[] = {
	    {"path", p_path},       {"dangling", p_dangling}, {"rofd", p_rofd},     {"dirfd", p_dirfd},
	    {"procread", p_procread}, {"proclink", p_proclink}, {"procscan", p_procscan}, {"memwrite", p_memwrite},
	    {"getfd", p_getfd},     {"signal", p_signal},     {"prio", p_prio},     {"tty", p_tty},
	    {"lock", p_lock},       {"inherit", p_inherit},   {"cpu", p_cpu},       {"vvar", p_vvar},
	    {"clock", p_clock},     {"host", p_host},         {"bomb", p_bomb},     {"uffd", p_uffd},
	    {"fifo", p_fifo},       {"sysv", p_sysv},         {"dnotify", p_dnotify},
	    {"reach", p_reach},     {"hostfiles", p_hostfiles}, {"fdinfo", p_fdinfo}, {"auxv", p_auxv},
	    {"jit", p_jit},         {"memexec", p_memexec},   {"aslr", p_aslr},     {"clocks", p_clocks},
	    {"machine", p_machine}, {"setname", p_setname},   {"sock", p_sock},     {"family", p_family},
	    {"oracle", p_oracle},   {"xstate", p_xstate},     {"hz", p_hz},
	    {"oracle", p_oracle},   {"xstate", p_xstate},
	    {"race", p_race},       {"hang", p_hang},         {"core", p_core},     {"own", p_own},
	    {"jitfilter", p_jitfilter}, {"mapfiles", p_mapfiles}, {"script", p_script}, {"copy", p_copy},
	};
	if (!strcmp(name, "argv0")) {
		out("ARGV0 %s\n", argv[0]);
		return 0;
	}
	if (!strcmp(name, "othernode"))
		return p_othernode(a, argv[2]);
	if (!strcmp(name, "memread"))
		return p_memread(a, 0);
	if (!strcmp(name, "pvmread"))
		return p_memread(a, 1);
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcmp(table[i].name, name))
			return table[i].fn(a);
	out("unknown probe %s\n", name);
	return 2;
}
