/* golden: small deterministic workloads whose world hash, step by step,
 * TestGoldenWorldHash compares with testdata/golden/MODE.golden. Each mode
 * makes kernel objects of one family and changes their state over a few
 * quiescent points. usage: golden MODE, MODE one of
 *   forkwait  fork two children, one exits, one is killed; wait for both
 *   threads   two threads meet on a mutex and a condition variable
 *   signals   handlers, a blocked and then unblocked signal, sigaltstack,
 *             an interval timer and a POSIX timer
 *   unix      a socketpair and a listening unix stream socket with a client
 *   inet      a TCP listener and a client on 127.0.0.1, and a UDP pair
 *   pipes     a pipe carrying data between a parent and a child
 *   epoll     an epoll set over a pipe, an eventfd and a timerfd
 *   fdkinds   timerfd, eventfd and signalfd read until they are drained
 *   sysv      a semaphore, a message queue and a shared memory segment
 *   netlink   a NETLINK_ROUTE socket asked for the links
 *   proc      /proc/self/status and /proc/self/stat read through a kept fd
 * Every value a kernel object keeps is a constant or a descriptor number
 * (epoll data, sigevent values), never an address, where the program
 * chooses it. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void say(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 errno %d\n", what, errno);
	else
		printf("%s: %ld\n", what, r);
	fflush(stdout);
}

static void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void forkwait(void)
{
	pid_t a = fork();
	if (a == 0) {
		nap(5);
		_exit(7);
	}
	pid_t b = fork();
	if (b == 0) {
		pause();
		_exit(0);
	}
	int st;
	say("wait a", waitpid(a, &st, 0) == a ? WEXITSTATUS(st) : -1);
	kill(b, SIGTERM);
	say("wait b", waitpid(b, &st, 0) == b ? WTERMSIG(st) : -1);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;

static void *worker(void *arg)
{
	long id = (long)arg;
	pthread_mutex_lock(&mu);
	while (turn != id)
		pthread_cond_wait(&cv, &mu);
	turn++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void threads(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	nap(2);
	pthread_mutex_lock(&mu);
	turn = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	say("turn", turn);
}

static volatile sig_atomic_t hits;
static void onsig(int s) { hits += s; }

static void signals(void)
{
	struct sigaction sa = {.sa_handler = onsig, .sa_flags = SA_RESTART | SA_ONSTACK};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGRTMIN, &sa, NULL);
	signal(SIGUSR2, SIG_IGN);
	static char alt[1 << 16];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	sigaltstack(&ss, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR1);
	nap(1);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	struct itimerval it = {{0, 3000}, {0, 2000}};
	setitimer(ITIMER_REAL, &it, NULL);
	while (hits < SIGUSR1 + 2 * SIGALRM)
		pause();
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN, .sigev_value.sival_int = 9};
	timer_t tm;
	say("timer_create", timer_create(CLOCK_MONOTONIC, &ev, &tm));
	struct itimerspec its = {{0, 0}, {0, 4000000}};
	timer_settime(tm, 0, &its, NULL);
	while (hits < SIGUSR1 + 2 * SIGALRM + SIGRTMIN)
		pause();
	timer_delete(tm);
	say("hits", hits);
}

static void unixsock(void)
{
	int sv[2];
	say("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	say("write", write(sv[0], "ping", 4));
	char buf[16];
	say("read", read(sv[1], buf, sizeof buf));
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "golden.sock"};
	say("bind", bind(l, (struct sockaddr *)&a, sizeof a));
	say("listen", listen(l, 4));
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	say("connect", connect(c, (struct sockaddr *)&a, sizeof a));
	int s = accept(l, NULL, NULL);
	say("accept", s);
	say("send", send(c, "hello", 5, 0));
	say("recv", recv(s, buf, sizeof buf, 0));
	shutdown(c, SHUT_WR);
	say("eof", recv(s, buf, sizeof buf, 0));
	close(c);
	close(s);
	close(sv[0]);
	say("closed peer", read(sv[1], buf, sizeof buf));
	unlink("golden.sock");
}

static void inet(void)
{
	int l = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(7100), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	say("bind", bind(l, (struct sockaddr *)&a, sizeof a));
	say("listen", listen(l, 4));
	int c = socket(AF_INET, SOCK_STREAM, 0);
	say("connect", connect(c, (struct sockaddr *)&a, sizeof a));
	int s = accept(l, NULL, NULL);
	say("accept", s);
	char buf[16];
	say("send", send(c, "hello", 5, 0));
	say("recv", recv(s, buf, sizeof buf, 0));
	close(c);
	say("eof", recv(s, buf, sizeof buf, 0));
	close(s);
	int u1 = socket(AF_INET, SOCK_DGRAM, 0), u2 = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in b = a;
	b.sin_port = htons(7101);
	say("udp bind", bind(u1, (struct sockaddr *)&b, sizeof b));
	say("sendto", sendto(u2, "dgram", 5, 0, (struct sockaddr *)&b, sizeof b));
	say("recvfrom", recv(u1, buf, sizeof buf, 0));
	close(u1);
	close(u2);
	close(l);
}

static void pipes(void)
{
	int p[2];
	say("pipe", pipe2(p, O_CLOEXEC));
	pid_t kid = fork();
	if (kid == 0) {
		close(p[0]);
		for (int i = 0; i < 3; i++) {
			nap(1);
			write(p[1], "abc", 3);
		}
		_exit(0);
	}
	close(p[1]);
	char buf[8];
	long got = 0, n;
	while ((n = read(p[0], buf, sizeof buf)) > 0)
		got += n;
	say("got", got);
	int st;
	say("wait", waitpid(kid, &st, 0) == kid);
}

static void epoll(void)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int p[2];
	pipe(p);
	int e = eventfd(0, EFD_NONBLOCK);
	int t = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	int fds[] = {p[0], e, t};
	for (int i = 0; i < 3; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 100 + i};
		say("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev));
	}
	struct itimerspec its = {{0, 0}, {0, 3000000}};
	timerfd_settime(t, 0, &its, NULL);
	write(p[1], "x", 1);
	uint64_t one = 1;
	write(e, &one, sizeof one);
	for (int seen = 0; seen < 3;) {
		struct epoll_event evs[4];
		int n = epoll_wait(ep, evs, 4, -1);
		for (int i = 0; i < n; i++) {
			char buf[8];
			say("ready", (long)evs[i].data.u64);
			read(fds[evs[i].data.u64 - 100], buf, sizeof buf);
			seen++;
		}
	}
	struct epoll_event mod = {.events = EPOLLOUT, .data.u64 = 200};
	say("epoll_ctl mod", epoll_ctl(ep, EPOLL_CTL_MOD, e, &mod));
	struct epoll_event evs[4];
	say("epoll_wait", epoll_wait(ep, evs, 4, 0));
	say("epoll_ctl del", epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL));
}

static void fdkinds(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int t = timerfd_create(CLOCK_MONOTONIC, 0);
	int e = eventfd(3, EFD_SEMAPHORE);
	int s = signalfd(-1, &set, 0);
	raise(SIGUSR2);
	struct itimerspec its = {{0, 1000000}, {0, 1000000}};
	timerfd_settime(t, 0, &its, NULL);
	uint64_t v;
	say("timerfd read", read(t, &v, sizeof v));
	say("eventfd read", read(e, &v, sizeof v) == sizeof v ? (long)v : -1);
	nap(3);
	say("timerfd read again", read(t, &v, sizeof v));
	memset(&its, 0, sizeof its);
	timerfd_settime(t, 0, &its, NULL);
	v = 5;
	write(e, &v, sizeof v);
	raise(SIGUSR1);
	nap(1);
	say("eventfd read", read(e, &v, sizeof v) == sizeof v ? (long)v : -1);
	struct signalfd_siginfo si;
	say("signalfd read", read(s, &si, sizeof si) == sizeof si ? (long)si.ssi_signo : -1);
	nap(1);
	say("signalfd read", read(s, &si, sizeof si) == sizeof si ? (long)si.ssi_signo : -1);
	sigdelset(&set, SIGUSR2);
	say("signalfd mask", signalfd(s, &set, 0));
	nap(1);
	close(t);
	close(e);
	close(s);
}

union semun {
	int val;
};

static void sysv(void)
{
	int sem = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	union semun u = {.val = 0};
	semctl(sem, 0, SETVAL, u);
	int mq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	int shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	char *mem = shmat(shm, NULL, 0);
	pid_t kid = fork();
	if (kid == 0) {
		strcpy(mem, "from child");
		struct {
			long type;
			char text[8];
		} m = {2, "two"};
		msgsnd(mq, &m, sizeof m.text, 0);
		struct sembuf up = {.sem_num = 0, .sem_op = 1, .sem_flg = SEM_UNDO};
		semop(sem, &up, 1);
		nap(2);
		_exit(0);
	}
	struct sembuf down = {.sem_num = 0, .sem_op = -1};
	say("semop", semop(sem, &down, 1));
	struct {
		long type;
		char text[8];
	} m;
	say("msgrcv", msgrcv(mq, &m, sizeof m.text, 2, 0));
	int st;
	waitpid(kid, &st, 0);
	say("shm", strcmp(mem, "from child") == 0);
	say("semval", semctl(sem, 0, GETVAL));
	shmdt(mem);
	shmctl(shm, IPC_RMID, NULL);
	msgctl(mq, IPC_RMID, NULL);
	semctl(sem, 0, IPC_RMID);
}

static void netlink(void)
{
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	say("bind", bind(s, (struct sockaddr *)&sa, sizeof sa));
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} r = {.h = {.nlmsg_len = sizeof r, .nlmsg_type = RTM_GETLINK, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 3},
	       .i = {.ifi_family = AF_UNSPEC}};
	say("send", send(s, &r, sizeof r, 0));
	static char buf[16384];
	int links = 0, done = 0;
	long n;
	while (!done && (n = recv(s, buf, sizeof buf, 0)) > 0)
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				done = 1;
			if (h->nlmsg_type == RTM_NEWLINK)
				links++;
		}
	say("links", links);
	close(s);
}

static void proc(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	say("status", read(fd, buf, sizeof buf) > 0);
	int fd2 = open("/proc/self/stat", O_RDONLY);
	say("stat", read(fd2, buf, 16) > 0);
	lseek(fd, 0, SEEK_SET);
	say("status again", read(fd, buf, 32) > 0);
	close(fd);
	say("stat more", read(fd2, buf, sizeof buf) > 0);
	close(fd2);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} modes[] = {
		{"forkwait", forkwait}, {"threads", threads}, {"signals", signals}, {"unix", unixsock},
		{"inet", inet},         {"pipes", pipes},     {"epoll", epoll},     {"fdkinds", fdkinds},
		{"sysv", sysv},         {"netlink", netlink}, {"proc", proc},
	};
	for (size_t i = 0; argc > 1 && i < sizeof modes / sizeof modes[0]; i++)
		if (!strcmp(argv[1], modes[i].name)) {
			modes[i].run();
			return 0;
		}
	fprintf(stderr, "usage: golden MODE\n");
	return 2;
}
