/* sigtree: signals inside a node's process tree. A parent parked in a
 * blocking call when its child ends (SIGCHLD caught with or without
 * SA_RESTART, or ignored); kill, tkill, tgkill and sigqueue between a
 * parent and its child by virtual pid and tid; signals aimed outside the
 * tree refused. usage: sigtree MODE */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t chld, usr, code, from, value;

static void onchld(int s) { (void)s; chld++; }
static void onusr(int s, siginfo_t *si, void *u)
{
	(void)s, (void)u;
	usr++;
	code = si->si_code;
	from = si->si_pid;
	value = si->si_value.sival_int;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	write(1, buf, (size_t)n);
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void catch(int sig, int flags, void (*h)(int))
{
	struct sigaction sa = { .sa_handler = h, .sa_flags = flags };
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void catchInfo(int sig)
{
	struct sigaction sa = { .sa_sigaction = onusr, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* kids forks a child that ends after 10 ms and one that, after 50 ms,
 * writes a byte to the pipe p (or, sock true, connects to the parent's
 * listener); the parent keeps only the pipe's read end. */
static void kids(int p[2], int sock)
{
	if (fork() == 0) {
		nap(10);
		_exit(0);
	}
	if (fork() == 0) {
		nap(50);
		if (sock) {
			struct sockaddr_un a = { .sun_family = AF_UNIX };
			strcpy(a.sun_path + 1, "sigtree");
			int s = socket(AF_UNIX, SOCK_STREAM, 0);
			connect(s, (struct sockaddr *)&a, sizeof(sa_family_t) + 8);
		} else
			write(p[1], "x", 1);
		_exit(0);
	}
	close(p[1]);
}

static void reap(void)
{
	while (waitpid(-1, NULL, 0) > 0)
		;
}

/* parked: the parent parks in one blocking call while its first child
 * ends. */
static void parked(const char *mode)
{
	int p[2];
	pipe(p);
	if (!strcmp(mode, "read") || !strcmp(mode, "poll") || !strcmp(mode, "sleep"))
		catch(SIGCHLD, 0, onchld);
	else if (!strcmp(mode, "readrestart"))
		catch(SIGCHLD, SA_RESTART, onchld);
	else if (!strcmp(mode, "readignored"))
		signal(SIGCHLD, SIG_DFL);
	int l = -1;
	if (!strcmp(mode, "accept") || !strcmp(mode, "acceptrestart")) {
		catch(SIGCHLD, strcmp(mode, "accept") ? SA_RESTART : 0, onchld);
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		strcpy(a.sun_path + 1, "sigtree");
		l = socket(AF_UNIX, SOCK_STREAM, 0);
		bind(l, (struct sockaddr *)&a, sizeof(sa_family_t) + 8);
		listen(l, 4);
	}
	kids(p, l >= 0);
	char c;
	long r;
	errno = 0;
	if (!strcmp(mode, "poll")) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		r = poll(&pf, 1, -1);
	} else if (!strcmp(mode, "sleep")) {
		struct timespec ts = { 5, 0 }, rem = { 0, 0 };
		r = nanosleep(&ts, &rem);
		say("sleep: remaining %ld.%03ld s\n", (long)rem.tv_sec, rem.tv_nsec / 1000000);
	} else if (l >= 0) {
		r = accept(l, NULL, NULL);
	} else {
		r = read(p[0], &c, 1);
	}
	int e = errno;
	say("%s: %ld errno %s, sigchld %d\n", mode, r, e ? strerrorname_np(e) : "0", (int)chld);
	reap();
}

static void outcome(const char *what, long r)
{
	int e = errno;
	say("%s %ld %s\n", what, r, r < 0 ? strerrorname_np(e) : "ok");
}

/* tree: signals between a parent and its child by virtual ids. */
static void tree(void)
{
	int p[2], q[2];
	pipe(p);
	pipe(q);
	pid_t kid = fork();
	if (kid == 0) {
		catchInfo(SIGUSR1);
		close(p[1]);
		char c;
		for (int i = 0; i < 5; i++) {
			errno = 0;
			long r = read(p[0], &c, 1);
			int e = errno;
			say("child: read %ld errno %s, usr1 %d code %d from %d value %d\n", r,
			    e ? strerrorname_np(e) : "0", (int)usr, (int)code, (int)from, (int)value);
			write(q[1], "k", 1);
		}
		/* the child signals its parent, parked in read */
		nap(10);
		say("child: tkill(parent) %d\n", (int)syscall(SYS_tkill, getppid(), SIGUSR2));
		_exit(usr);
	}
	catch(SIGUSR2, 0, (void (*)(int))onchld);
	close(q[1]);
	char c;
	nap(10); /* the child is parked in read */
	say("parent: kill %d\n", kill(kid, SIGUSR1));
	read(q[0], &c, 1);
	nap(10);
	say("parent: tkill %d\n", (int)syscall(SYS_tkill, kid, SIGUSR1));
	read(q[0], &c, 1);
	nap(10);
	say("parent: tgkill %d\n", (int)syscall(SYS_tgkill, kid, kid, SIGUSR1));
	read(q[0], &c, 1);
	nap(10);
	union sigval v = { .sival_int = 42 };
	say("parent: sigqueue %d\n", sigqueue(kid, SIGUSR1, v));
	read(q[0], &c, 1);
	nap(10);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = SIGUSR1, si.si_code = SI_QUEUE, si.si_pid = getpid(), si.si_uid = getuid();
	si.si_value.sival_int = 43;
	say("parent: rt_tgsigqueueinfo %d\n", (int)syscall(SYS_rt_tgsigqueueinfo, kid, kid, SIGUSR1, &si));
	read(q[0], &c, 1);
	errno = 0;
	long r = read(q[0], &c, 1); /* parked until the child's tkill */
	int e = errno;
	say("parent: read %ld errno %s, usr2 %d\n", r, e ? strerrorname_np(e) : "0", (int)chld);
	outcome("tgkill(child, wrong tid)", syscall(SYS_tgkill, kid, 100, 0));
	int st;
	waitpid(kid, &st, 0);
	say("parent: child exit %d\n", WEXITSTATUS(st));
	outcome("tkill(reaped child)", syscall(SYS_tkill, kid, SIGUSR1));
	outcome("tkill(99999)", syscall(SYS_tkill, 99999, 0));
	outcome("tgkill(99999)", syscall(SYS_tgkill, 99999, 99999, 0));
	outcome("kill(1, 0)", kill(1, 0));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "read";
	if (!strcmp(mode, "tree"))
		tree();
	else
		parked(mode);
	return 0;
}
