/* Process-tree probe for weft: fork, vfork, execve, wait4/waitid, SIGCHLD.
 * usage: procs MODE [SELF]; mode "child" is what the exec tests run. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <linux/futex.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static volatile sig_atomic_t chld;
static void onchld(int s) { (void)s; chld++; }
static volatile sig_atomic_t usr;
static void onusr(int s) { (void)s; usr++; }

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

static void nap(long ms);
static int word;
static void *waiter(void *a)
{
	(void)a;
	syscall(SYS_futex, &word, FUTEX_WAIT, 0, NULL, NULL, 0);
	say("waiter woke, word %d\n", word);
	return NULL;
}

static const char *execself;
static void *sleeper(void *a)
{
	(void)a;
	for (;;)
		nap(1000);
	return NULL;
}
static void *execer(void *a)
{
	(void)a;
	nap(10);
	execl(execself, "procs", "child", (char *)NULL);
	return NULL;
}

static volatile sig_atomic_t usrpid, usrcode, usrstatus;
static void onusrinfo(int s, siginfo_t *si, void *u)
{
	(void)s, (void)u;
	usrpid = si->si_pid, usrcode = si->si_code, usrstatus = si->si_status;
}
static void report(const char *what, pid_t got, int st)
{
	if (WIFEXITED(st))
		say("%s: reaped %d exit %d\n", what, got, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		say("%s: reaped %d signal %d\n", what, got, WTERMSIG(st));
	else
		say("%s: reaped %d status %#x\n", what, got, st);
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "forkwait";
	const char *self = argc > 2 ? argv[2] : "/proc/self/exe";
	int st = 0;
	if (!strcmp(mode, "child")) {
		say("exec'd child pid %d ppid %d\n", getpid(), getppid());
		return 3;
	}
	if (!strcmp(mode, "forkwait")) {
		signal(SIGCHLD, onchld);
		say("parent pid %d ppid %d\n", getpid(), getppid());
		pid_t c = fork();
		if (c < 0)
			return 90;
		if (c == 0) {
			int pgrp = getpgrp(), pgid = getpgid(0), sid = getsid(0);
			int sp = setpgid(0, 0);
			say("child pid %d ppid %d pgrp %d pgid %d sid %d setpgid(0,0) %d pgrp %d\n", getpid(), getppid(), pgrp, pgid, sid, sp, getpgrp());
			_exit(7);
		}
		pid_t got = waitpid(c, &st, 0);
		report("forkwait", got, st);
		say("fork returned %d, sigchld %d\n", c, (int)chld);
		errno = 0;
		got = waitpid(-1, &st, WNOHANG);
		say("again: %d errno %d\n", got, errno);
		return 0;
	}
	if (!strcmp(mode, "exec")) {
		pid_t c = fork();
		if (c == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(99);
		}
		{ pid_t got = waitpid(c, &st, 0); report("true", got, st); }
		c = fork();
		if (c == 0) {
			execl(self, "procs", "child", (char *)NULL);
			_exit(99);
		}
		{ pid_t got = waitpid(c, &st, 0); report("probe", got, st); }
		c = fork();
		if (c == 0) {
			execl("/nonexistent/weft", "x", (char *)NULL);
			say("exec failed errno %d\n", errno);
			_exit(98);
		}
		{ pid_t got = waitpid(c, &st, 0); report("missing", got, st); }
		c = fork();
		if (c == 0) { /* fexecve: execveat(fd, "", …, AT_EMPTY_PATH) */
			int fd = open(self, O_RDONLY | O_CLOEXEC);
			char *args[] = { "procs", "child", NULL };
			fexecve(fd, args, environ);
			_exit(97);
		}
		{ pid_t got = waitpid(c, &st, 0); report("fexecve", got, st); }
		return 0;
	}
	if (!strcmp(mode, "vfork")) {
		pid_t c = vfork();
		if (c == 0) {
			execl(self, "procs", "child", (char *)NULL);
			_exit(99);
		}
		{ pid_t got = waitpid(c, &st, 0); report("vfork", got, st); }
		return 0;
	}
	if (!strcmp(mode, "signal")) {
		pid_t c = fork();
		if (c == 0) {
			*(volatile int *)0 = 1;
			_exit(1);
		}
		{ pid_t got = waitpid(c, &st, 0); report("segv", got, st); }
		siginfo_t si;
		memset(&si, 0, sizeof si);
		c = fork();
		if (c == 0)
			_exit(5);
		int r = waitid(P_PID, (id_t)c, &si, WEXITED);
		say("waitid %d: signo %d code %d pid %d status %d (fork said %d)\n", r, si.si_signo, si.si_code, si.si_pid, si.si_status, c);
		c = fork();
		if (c == 0)
			abort(); /* raise: tgkill(its own pid, its own tid) */
		{ pid_t got = waitpid(c, &st, 0); report("abort", got, st); }
		return 0;
	}
	if (!strcmp(mode, "pipe")) {
		int p[2];
		if (pipe(p) < 0)
			return 91;
		pid_t c = fork();
		if (c == 0) {
			close(p[0]);
			dup2(p[1], 1); /* its stdout is the pipe now, not the node's output */
			write(1, "through the pipe", 16);
			_exit(0);
		}
		close(p[1]);
		{ pid_t got = waitpid(c, &st, 0); report("pipe", got, st); }
		char buf[64];
		ssize_t n = read(p[0], buf, sizeof buf);
		say("parent read %d bytes: %.*s\n", (int)n, (int)(n > 0 ? n : 0), buf);
		return 0;
	}
	if (!strcmp(mode, "many")) {
		pid_t kids[3];
		for (int i = 0; i < 3; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				nap(10 * (3 - i));
				_exit(10 + i);
			}
		}
		for (int i = 0; i < 3; i++) {
			pid_t got = wait(&st);
			report("many", got, st);
		}
		say("kids %d %d %d\n", kids[0], kids[1], kids[2]);
		return 0;
	}
	if (!strcmp(mode, "fserver")) { /* accept, fork; the child sendfiles FILE (argv[3]) to the connection */
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		int l = socket(AF_INET, SOCK_STREAM, 0);
		if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 4) < 0)
			return 92;
		int conn = accept(l, NULL, NULL);
		if (conn < 0)
			return 93;
		pid_t c = fork();
		if (c == 0) {
			close(l);
			int f = open(argv[3], O_RDONLY);
			off_t off = 0;
			ssize_t k1 = sendfile(conn, f, &off, 10); /* with an offset: the file position stays */
			ssize_t k2 = sendfile(conn, f, NULL, 1 << 16); /* from the position: the whole file */
			char tail[64];
			int n = snprintf(tail, sizeof tail, "|%zd %zd %lld %lld\n", k1, k2, (long long)off, (long long)lseek(f, 0, SEEK_CUR));
			write(conn, tail, (size_t)n);
			_exit(0);
		}
		close(conn); /* the child's copy keeps the connection open */
		{ pid_t got = waitpid(c, &st, 0); report("fserver", got, st); }
		return 0;
	}
	if (!strcmp(mode, "fexec")) { /* accept, fork, exec a writer that inherits the connection but not a CLOEXEC socket */
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 4) < 0)
			return 92;
		int conn = accept(l, NULL, NULL);
		if (conn < 0)
			return 93;
		/* Out of the way of the descriptors the exec'd image's loader opens. */
		if (dup3(l, 50, O_CLOEXEC) != 50)
			return 95;
		close(l);
		l = 50;
		pid_t c = fork();
		if (c == 0) {
			char cs[16], ls[16];
			snprintf(cs, sizeof cs, "%d", conn);
			snprintf(ls, sizeof ls, "%d", l);
			execl(argv[3], "procs", "fwrite", cs, ls, (char *)NULL);
			_exit(99);
		}
		close(conn);
		{ pid_t got = waitpid(c, &st, 0); report("fexec", got, st); }
		return 0;
	}
	if (!strcmp(mode, "fwrite")) { /* exec'd: write to the inherited connection; the CLOEXEC listener is gone */
		int conn = atoi(argv[2]), l = atoi(argv[3]);
		errno = 0;
		int r = fcntl(l, F_GETFD);
		char buf[96];
		int n = snprintf(buf, sizeof buf, "from the exec'd child pid %d: listener fcntl %d errno %d\n", getpid(), r, errno);
		write(conn, buf, (size_t)n);
		nap(10); /* parked: the test looks at weft's table for this process */
		return 0;
	}
	if (!strcmp(mode, "fclient")) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0)
			return 94;
		char buf[4096];
		size_t have = 0;
		ssize_t n;
		while ((n = read(s, buf + have, sizeof buf - 1 - have)) > 0)
			have += (size_t)n;
		say("got %zu bytes: %.*s", have, (int)have, buf);
		return 0;
	}
	if (!strcmp(mode, "spawn")) { /* posix_spawn: clone3 or clone with CLONE_VM|CLONE_VFORK, a stack of its own */
		pid_t c;
		char *args[] = { "procs", "child", NULL };
		int r = posix_spawn(&c, self, NULL, NULL, args, environ);
		{ pid_t got = waitpid(c, &st, 0); say("posix_spawn %d pid %d\n", r, c); report("spawn", got, st); }
		r = system("exit 6");
		say("system: %d exit %d\n", r, WEXITSTATUS(r));
		return 0;
	}
	if (!strcmp(mode, "futex")) { /* a child's futex wake at the parent's address wakes nobody in the parent */
		pthread_t th;
		pthread_create(&th, NULL, waiter, NULL);
		nap(10);
		pid_t c = fork();
		if (c == 0) {
			long k = syscall(SYS_futex, &word, FUTEX_WAKE, 1, NULL, NULL, 0);
			say("child woke %ld\n", k);
			_exit(0);
		}
		{ pid_t got = waitpid(c, &st, 0); report("futex", got, st); }
		word = 1;
		long k = syscall(SYS_futex, &word, FUTEX_WAKE, 1, NULL, NULL, 0);
		say("parent woke %ld\n", k);
		pthread_join(th, NULL);
		return 0;
	}
	if (!strcmp(mode, "kill")) { /* signals between the processes of the tree */
		pid_t a = fork();
		if (a == 0)
			for (;;)
				nap(1000);
		say("kill a: %d\n", kill(a, SIGTERM));
		{ pid_t got = waitpid(a, &st, 0); report("term", got, st); }
		pid_t b = fork();
		if (b == 0) {
			signal(SIGUSR1, onusr);
			while (!usr)
				nap(1000);
			_exit(9);
		}
		nap(10); /* b has installed its handler */
		say("kill b: %d\n", kill(b, SIGUSR1));
		{ pid_t got = waitpid(b, &st, 0); report("usr1", got, st); }
		signal(SIGUSR2, onusr);
		usr = 0;
		pid_t c = fork();
		if (c == 0) {
			int r = kill(getppid(), SIGUSR2);
			_exit(r == 0 ? 0 : 1);
		}
		{ pid_t got = waitpid(c, &st, 0); report("usr2", got, st); }
		int r0 = kill(0, 0);
		errno = 0;
		int r1 = kill(99999, 0);
		say("parent got %d SIGUSR2, kill(0, 0) %d, kill(99999, 0) %d errno %d\n", (int)usr, r0, r1, errno);
		return 0;
	}
	if (!strcmp(mode, "killparent")) { /* a child ends the node's main process, and with it the tree */
		if (fork() == 0) {
			kill(getppid(), SIGTERM);
			say("child still here\n");
			_exit(0);
		}
		for (;;)
			nap(1000);
	}
	if (!strcmp(mode, "rdbchild")) { /* redis's diskless sync: the child writes a pipe the parent watches in epoll */
		int ep = epoll_create1(0), data[2], done[2];
		if (ep < 0 || pipe(data) || pipe(done))
			return 90;
		struct sigaction sa = { .sa_handler = onchld, .sa_flags = SA_RESTART };
		sigaction(SIGCHLD, &sa, NULL);
		struct epoll_event e = { .events = EPOLLIN, .data.fd = data[0] }, evs[8];
		epoll_ctl(ep, EPOLL_CTL_ADD, data[0], &e);
		pid_t c = fork();
		if (c == 0) { /* closes its copy of the watched read end, which stays open in the parent */
			char b;
			close(data[0]);
			close(done[1]);
			write(data[1], "rdb payload", 11);
			close(data[1]);
			ssize_t r = read(done[0], &b, 1); /* the parent's close says: exit now */
			_exit(r == 0 ? 0 : 1);
		}
		close(data[1]);
		close(done[0]);
		long got = 0, spurious = 0, timeouts = 0;
		int del = 1, derr = 0;
		pid_t reaped = 0;
		while (!reaped && spurious < 100 && timeouts < 100) {
			int n = epoll_wait(ep, evs, 8, 50);
			if (n == 0)
				timeouts++;
			for (int i = 0; i < n; i++) {
				char b[64];
				if (del <= 0) {
					spurious++; /* reported after its EPOLL_CTL_DEL */
					continue;
				}
				ssize_t r = read(evs[i].data.fd, b, sizeof b);
				if (r > 0)
					got += r;
				else if (r == 0) { /* end of the data: forget the pipe, let the child go */
					del = epoll_ctl(ep, EPOLL_CTL_DEL, data[0], NULL);
					derr = del ? errno : 0;
					close(done[1]);
				}
			}
			if (chld)
				reaped = waitpid(-1, &st, WNOHANG);
		}
		say("rdbchild: read %ld, del %d errno %d, spurious %ld, sigchld %d\n", got, del, derr, spurious, chld > 0);
		if (reaped > 0)
			report("rdbchild", reaped, st);
		return 0;
	}
	if (!strcmp(mode, "epollreuse")) { /* the parent closes a watched pipe its child keeps, and reuses the number */
		int ep = epoll_create1(0), a[2], b[2], go[2];
		if (ep < 0 || pipe(a) || pipe(go))
			return 90;
		struct epoll_event e = { .events = EPOLLIN, .data.u64 = 1 }, evs[8];
		epoll_ctl(ep, EPOLL_CTL_ADD, a[0], &e);
		pid_t c = fork();
		if (c == 0) {
			char x;
			close(go[1]);
			_exit(read(go[0], &x, 1) == 0 ? 0 : 1);
		}
		close(go[0]);
		close(a[0]); /* the entry (a, a[0]) stays: the child has a at that number */
		if (pipe(b))
			return 91;
		e.data.u64 = 2;
		int add = epoll_ctl(ep, EPOLL_CTL_ADD, b[0], &e); /* (b, the same number): another entry */
		write(b[1], "x", 1);
		int n = epoll_wait(ep, evs, 8, 0);
		int del = epoll_ctl(ep, EPOLL_CTL_DEL, b[0], NULL);
		say("epollreuse: same number %d, add %d, events %d data %d, del %d\n", b[0] == a[0], add, n,
		    n > 0 ? (int)evs[0].data.u64 : -1, del);
		close(go[1]);
		report("epollreuse", waitpid(c, &st, 0), st);
		return 0;
	}
	if (!strcmp(mode, "syscallspin")) { /* never parks: every call is answered at once, with an event */
		int ep = epoll_create1(0), fds[2];
		struct epoll_event evs[1] = {{.events = EPOLLIN}};
		if (pipe(fds) < 0 || write(fds[1], "x", 1) != 1 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], evs) < 0)
			return 2;
		for (;;)
			epoll_wait(ep, evs, 1, 0);
	}
	if (!strcmp(mode, "wnohang")) { /* a live child: WNOHANG says 0; the blocking wait parks until it ends */
		pid_t c = fork();
		if (c == 0) {
			nap(10);
			_exit(4);
		}
		pid_t got = waitpid(c, &st, WNOHANG);
		say("wnohang: %d\n", got);
		got = waitpid(-1, &st, __WALL);
		report("blocking", got, st);
		errno = 0;
		int r = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		say("subreaper: %d errno %d\n", r, errno);
		return 0;
	}
	if (!strcmp(mode, "waitrules")) { /* the kernel's wait rules: __WCLONE, WSTOPPED on a zombie, INT_MIN, wait4's options */
		pid_t c = (pid_t)syscall(SYS_clone, 0L, 0L, 0L, 0L, 0L); /* exit signal 0: a "clone" child to wait */
		if (c == 0)
			_exit(5);
		errno = 0;
		pid_t got = wait4(c, &st, 0, NULL);
		say("clone child, no __WCLONE: %d errno %d\n", got, errno);
		got = wait4(c, &st, __WCLONE, NULL);
		say("clone child, __WCLONE: same %d exit %d\n", got == c, WEXITSTATUS(st));
		pid_t d = fork();
		if (d == 0)
			_exit(6);
		siginfo_t si;
		memset(&si, 0, sizeof si);
		int r = waitid(P_PID, (id_t)d, &si, WEXITED | WNOWAIT);
		say("waitid WNOWAIT: %d same %d code %d status %d\n", r, si.si_pid == d, si.si_code, si.si_status);
		errno = 0;
		r = waitid(P_PID, (id_t)d, &si, WSTOPPED | WNOHANG);
		say("waitid WSTOPPED, a zombie: %d errno %d\n", r, errno);
		errno = 0;
		got = wait4(INT_MIN, &st, 0, NULL);
		say("wait4(INT_MIN): %d errno %d\n", got, errno);
		errno = 0;
		got = wait4(-1, &st, WEXITED, NULL);
		say("wait4 WEXITED: %d errno %d\n", got, errno);
		got = waitpid(d, &st, 0);
		say("fork child: same %d exit %d\n", got == d, WEXITSTATUS(st));
		errno = 0;
		got = waitpid(-1, &st, WNOHANG);
		say("none left: %d errno %d\n", got, errno);
		return 0;
	}
	if (!strcmp(mode, "exitsig")) { /* a clone child whose exit signal is SIGUSR1: its siginfo names the child's pid */
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = onusrinfo;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
		pid_t c = (pid_t)syscall(SYS_clone, (long)SIGUSR1, 0L, 0L, 0L, 0L);
		if (c == 0)
			_exit(7);
		pid_t got = wait4(c, &st, __WCLONE, NULL); /* the signal, pending by then, runs the handler as it returns */
		say("wait: same %d exit %d\n", got == c, WEXITSTATUS(st));
		say("SIGUSR1: pid same %d code %d status %d\n", usrpid == c, (int)usrcode, (int)usrstatus);
		return 0;
	}
	if (!strcmp(mode, "orphangroup")) { /* a grandchild zombie orphaned by its parent's end leaves its group: init reaps it */
		int fd[2];
		if (pipe(fd))
			return 1;
		pid_t c = fork();
		if (c == 0) {
			setpgid(0, 0);
			pid_t g = fork();
			if (g == 0)
				_exit(0);
			siginfo_t si;
			waitid(P_PID, (id_t)g, &si, WEXITED | WNOWAIT); /* g is a zombie in group c */
			if (write(fd[1], &g, sizeof g) != sizeof g)
				_exit(1);
			_exit(0);
		}
		pid_t g = 0;
		if (read(fd[0], &g, sizeof g) != sizeof g)
			return 1;
		siginfo_t si;
		waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT); /* c is a zombie, g its orphan */
		errno = 0;
		int r = kill(g, 0);
		say("orphaned zombie: kill %d errno %d\n", r, errno);
		errno = 0;
		r = kill(-c, 0);
		say("group of a zombie leader: kill %d errno %d\n", r, errno);
		waitpid(c, &st, 0);
		errno = 0;
		r = kill(-c, 0);
		say("group after the leader's reap: kill %d errno %d\n", r, errno);
		errno = 0;
		r = setpgid(0, c);
		say("setpgid into it: %d errno %d\n", r, errno);
		return 0;
	}
	if (!strcmp(mode, "exitsigrt")) { /* a clone child with a real-time exit signal */
		pid_t c = (pid_t)syscall(SYS_clone, (long)SIGRTMIN + 1, 0L, 0L, 0L, 0L);
		if (c == 0)
			_exit(0);
		say("cloned %d\n", c > 0);
		return 0;
	}
	if (!strcmp(mode, "mtexec")) { /* the main thread execs while another thread sleeps */
		pthread_t th;
		pthread_create(&th, NULL, sleeper, NULL);
		nap(10);
		execl(self, "procs", "child", (char *)NULL);
		return 99;
	}
	if (!strcmp(mode, "threadexec")) { /* a second thread execs while the main thread waits to join it */
		pthread_t th;
		execself = self;
		pthread_create(&th, NULL, execer, NULL);
		pthread_join(th, NULL);
		return 99;
	}
	if (!strcmp(mode, "forkmtexec")) { /* the same in a child process */
		pid_t c = fork();
		if (c == 0) {
			pthread_t th;
			execself = self;
			pthread_create(&th, NULL, execer, NULL);
			pthread_join(th, NULL);
			_exit(99);
		}
		{ pid_t got = waitpid(c, &st, 0); report("forkmtexec", got, st); }
		return 0;
	}
	if (!strcmp(mode, "selfexec")) { /* the node's main process execs */
		execl(self, "procs", "child", (char *)NULL);
		return 99;
	}
	if (!strcmp(mode, "forks")) { /* the benchmark: N forks, each child exits at once and is reaped */
		int n = argc > 2 ? atoi(argv[2]) : 0;
		for (int i = 0; i < n; i++) {
			pid_t c = fork();
			if (c == 0)
				_exit(0);
			waitpid(c, &st, 0);
		}
		say("done\n");
		return 0;
	}
	if (!strcmp(mode, "orphan")) { /* the main process ends with a child alive: the tree goes with it */
		if (fork() == 0)
			for (;;)
				nap(1000);
		say("main exits\n");
		return 4;
	}
	if (!strcmp(mode, "tree")) { /* children and a grandchild that sleep: the test crashes the node */
		for (int i = 0; i < 2; i++) {
			if (fork() == 0) {
				if (i == 1 && fork() == 0)
					for (;;)
						nap(1000);
				for (;;)
					nap(1000);
			}
		}
		say("tree up\n");
		for (;;)
			nap(1000);
	}
	return 2;
}
