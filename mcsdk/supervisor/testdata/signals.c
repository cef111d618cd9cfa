// signals MODE: probes of signal delivery under weft (sys_sigdeliver.go,
// sys_itimer.go, sys_sigwait.go). Each mode prints what it observed; the
// quick ones print the same natively.
//   read restart|norestart    a parked read interrupted by SIGALRM
//   futex restart|norestart   a parked futex wait interrupted by pthread_kill
//   accept                    alarm interrupting a parked accept
//   itimer                    a periodic ITIMER_REAL counting 5 signals
//   threadtimer               timer_create SIGEV_THREAD_ID aimed at a second thread
//   altstack                  a handler on the sigaltstack; EPERM, ENOMEM, EINVAL
//   sigwait                   rt_sigtimedwait (signal, then timeout) and sigsuspend
//   nanosleep                 nanosleep interrupted, with the time left
//   poll                      poll is never restarted, even with SA_RESTART
//   alarmkill                 SIGALRM's default action ends the node
//   childalarm                a forked child's alarm ends the child (its
//                             own timer), and the node exits with 100 plus
//                             the signal that ended the child
//   stop                      raise(SIGSTOP), which weft refuses
//   suspendpending            sigsuspend with a signal already pending that
//                             its mask lets through (raised, then killed)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static volatile sig_atomic_t handled;
static volatile long handler_tid;
static int udp = -1;
static struct sockaddr_in udp_addr;

static void on_sig(int sig) {
	(void)sig;
	handled++;
	handler_tid = syscall(SYS_gettid);
}

// on_alrm_send counts the signal and sends a datagram to the probe's own
// socket, so that a restarted read finds data.
static void on_alrm_send(int sig) {
	(void)sig;
	handled++;
	sendto(udp, "ping", 4, 0, (struct sockaddr *)&udp_addr, sizeof udp_addr);
}

static void handle(int sig, void (*fn)(int), int flags) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static long now_ms(clockid_t clk) {
	struct timespec ts;
	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void mode_read(int restart) {
	udp = socket(AF_INET, SOCK_DGRAM, 0);
	udp_addr.sin_family = AF_INET;
	udp_addr.sin_port = htons(7311);
	udp_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(udp, (struct sockaddr *)&udp_addr, sizeof udp_addr) < 0) {
		perror("bind");
		exit(1);
	}
	handle(SIGALRM, on_alrm_send, restart ? SA_RESTART : 0);
	struct itimerval it = {{0, 0}, {0, 100000}};
	setitimer(ITIMER_REAL, &it, NULL);
	char buf[16];
	ssize_t n = read(udp, buf, sizeof buf);
	int e = errno;
	printf("read %s: rc=%zd errno=%s handled=%d\n", restart ? "SA_RESTART" : "no SA_RESTART", n, n < 0 ? strerrorname_np(e) : "0", (int)handled);
	if (n < 0) { // the datagram the handler sent is still there
		n = read(udp, buf, sizeof buf);
		printf("then read rc=%zd\n", n);
	}
}

static uint32_t word;
static int first_eintr = -1;
static long waiter_tid;

static void *futex_waiter(void *arg) {
	(void)arg;
	waiter_tid = syscall(SYS_gettid);
	while (__atomic_load_n(&word, __ATOMIC_SEQ_CST) == 0) {
		long rc = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		if (first_eintr < 0)
			first_eintr = rc < 0 && errno == EINTR;
	}
	return NULL;
}

static int handled_pipe[2];

// on_sig_tell is on_sig, which then tells the main thread by a pipe.
static void on_sig_tell(int sig) {
	on_sig(sig);
	write(handled_pipe[1], "h", 1);
}

// mode_futex interrupts the waiter's futex wait, in it for certain: the
// main thread sends the signal once a FUTEX_REQUEUE of the word onto
// itself finds the waiter queued (and leaves it waiting; the main thread
// sleeps 1 ms between looks), and ends the
// wait once the handler has told it by a pipe that it ran, so that the
// wait's first answer is the signal's, never the wake's, however the host
// schedules the threads.
static void mode_futex(int restart) {
	pthread_t t;
	char b;
	if (pipe(handled_pipe) < 0)
		exit(1);
	handle(SIGUSR1, on_sig_tell, restart ? SA_RESTART : 0);
	pthread_create(&t, NULL, futex_waiter, NULL);
	struct timespec backoff = {0, 1000000};
	while (syscall(SYS_futex, &word, FUTEX_REQUEUE_PRIVATE, 0, 1, &word, 0) < 1)
		nanosleep(&backoff, NULL); // lets the waiter run: its queueing, not the time, ends the loop
	pthread_kill(t, SIGUSR1);
	while (read(handled_pipe[0], &b, 1) != 1)
		;
	__atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(t, NULL);
	printf("futex %s: first wait EINTR=%d handled=%d in the waiter=%d\n", restart ? "SA_RESTART" : "no SA_RESTART",
	       first_eintr, (int)handled, handler_tid == waiter_tid);
}

static void mode_accept(void) {
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(7312), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 4) < 0) {
		perror("listen");
		exit(1);
	}
	handle(SIGALRM, on_sig, 0);
	long t0 = now_ms(CLOCK_MONOTONIC);
	alarm(2);
	int c = accept(s, NULL, NULL);
	int e = errno;
	printf("accept rc=%d errno=%s handled=%d after %ldms\n", c, c < 0 ? strerrorname_np(e) : "0", (int)handled, now_ms(CLOCK_MONOTONIC) - t0);
}

static void mode_itimer(void) {
	handle(SIGALRM, on_sig, SA_RESTART);
	long t0 = now_ms(CLOCK_MONOTONIC);
	struct itimerval it = {{0, 100000}, {0, 100000}}, cur;
	setitimer(ITIMER_REAL, &it, NULL);
	while (handled < 5)
		pause();
	long dt = now_ms(CLOCK_MONOTONIC) - t0;
	getitimer(ITIMER_REAL, &cur);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("itimer: %d signals in %ldms, interval %ldus\n", (int)handled, dt, (long)cur.it_interval.tv_usec);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long target_tid;

static void *timer_target(void *arg) {
	(void)arg;
	pthread_mutex_lock(&mu);
	target_tid = syscall(SYS_gettid);
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	int rc = pause();
	printf("target: pause rc=%d errno=%s\n", rc, strerrorname_np(errno));
	return NULL;
}

static void mode_threadtimer(void) {
	handle(SIGUSR2, on_sig, 0);
	pthread_t t;
	pthread_create(&t, NULL, timer_target, NULL);
	pthread_mutex_lock(&mu);
	while (target_tid == 0)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR2;
	sev.sigev_notify_thread_id = (pid_t)target_tid;
	timer_t id;
	if (timer_create(CLOCK_MONOTONIC, &sev, &id) < 0) {
		perror("timer_create");
		exit(1);
	}
	struct itimerspec its = {{0, 0}, {0, 50000000}}, cur;
	timer_settime(id, 0, &its, NULL);
	timer_gettime(id, &cur);
	int armed = cur.it_value.tv_nsec > 0;
	pthread_join(t, NULL);
	timer_gettime(id, &cur);
	printf("threadtimer: armed=%d handled=%d in the target=%d overrun=%d disarmed=%d\n", armed, (int)handled,
	       handler_tid == target_tid, timer_getoverrun(id), cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
	timer_delete(id);
}

static char *alt;
static size_t altsize = 64 * 1024;
static int on_alt, nested_eperm;

static void on_usr1_alt(int sig) {
	(void)sig;
	char here;
	on_alt = &here >= alt && &here < alt + altsize;
	stack_t ss = {.ss_sp = alt, .ss_size = altsize};
	nested_eperm = sigaltstack(&ss, NULL) < 0 && errno == EPERM;
	stack_t cur;
	sigaltstack(NULL, &cur);
	nested_eperm += (cur.ss_flags & SS_ONSTACK) != 0;
}

static void mode_altstack(void) {
	alt = malloc(altsize);
	stack_t small = {.ss_sp = alt, .ss_size = 1024};
	int enomem = sigaltstack(&small, NULL) < 0 && errno == ENOMEM;
	stack_t bad = {.ss_sp = alt, .ss_size = altsize, .ss_flags = 77};
	int einval = sigaltstack(&bad, NULL) < 0 && errno == EINVAL;
	stack_t ss = {.ss_sp = alt, .ss_size = altsize}, old;
	sigaltstack(&ss, &old);
	handle(SIGUSR1, on_usr1_alt, SA_ONSTACK);
	raise(SIGUSR1);
	stack_t off = {.ss_flags = SS_DISABLE}, cur;
	sigaltstack(&off, NULL);
	sigaltstack(NULL, &cur);
	printf("altstack: old disabled=%d ENOMEM=%d EINVAL=%d handler on alt stack=%d EPERM+ONSTACK inside=%d disabled after=%d\n",
	       (old.ss_flags & SS_DISABLE) != 0, enomem, einval, on_alt, nested_eperm, (cur.ss_flags & SS_DISABLE) != 0);
}

static void mode_sigwait(void) {
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, &old);
	long t0 = now_ms(CLOCK_MONOTONIC);
	alarm(1);
	struct timespec to = {5, 0};
	siginfo_t si;
	int got = sigtimedwait(&set, &si, &to);
	long dt = now_ms(CLOCK_MONOTONIC) - t0;
	struct timespec shortto = {0, 100000000};
	int none = sigtimedwait(&set, &si, &shortto);
	int e = errno;
	printf("sigtimedwait: got %s after %ldms; then rc=%d errno=%s\n", got == SIGALRM ? "SIGALRM" : "?", dt, none, strerrorname_np(e));
	handle(SIGALRM, on_sig, 0);
	alarm(1);
	sigset_t none_blocked;
	sigemptyset(&none_blocked);
	int rc = sigsuspend(&none_blocked);
	e = errno;
	sigset_t now;
	sigprocmask(SIG_SETMASK, NULL, &now);
	printf("sigsuspend: rc=%d errno=%s handled=%d mask restored=%d\n", rc, strerrorname_np(e), (int)handled, sigismember(&now, SIGALRM));
}

// suspend_pending blocks sig, makes it pending by how, then waits in
// sigsuspend with a mask that lets it through: Linux returns at once,
// after the handler ran (the signal was pending before the call).
static void suspend_pending(int sig, const char *how) {
	sigset_t set, empty;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
	handled = 0;
	handle(sig, on_sig, 0);
	if (!strcmp(how, "raise"))
		raise(sig); /* for this thread */
	else
		kill(getpid(), sig); /* for the process */
	sigset_t pend;
	sigpending(&pend);
	sigemptyset(&empty);
	int rc = sigsuspend(&empty);
	int e = errno;
	sigset_t now;
	sigprocmask(SIG_SETMASK, NULL, &now);
	printf("%s: pending %d, sigsuspend rc=%d errno=%s handled=%d still blocked=%d\n", how, sigismember(&pend, sig), rc,
	       strerrorname_np(e), (int)handled, sigismember(&now, sig));
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void mode_suspendpending(void) {
	suspend_pending(SIGUSR1, "raise");
	suspend_pending(SIGUSR2, "kill");
}

static void mode_nanosleep(void) {
	handle(SIGALRM, on_sig, SA_RESTART);
	struct itimerval it = {{0, 0}, {0, 300000}};
	setitimer(ITIMER_REAL, &it, NULL);
	struct timespec req = {0, 900000000}, rem = {0, 0};
	int rc = nanosleep(&req, &rem);
	int e = errno;
	printf("nanosleep: rc=%d errno=%s handled=%d left about %ldms\n", rc, strerrorname_np(e), (int)handled,
	       (rem.tv_nsec + 50000000) / 100000000 * 100);
}

static void mode_poll(void) {
	handle(SIGALRM, on_sig, SA_RESTART);
	alarm(1);
	int rc = poll(NULL, 0, 5000);
	int e = errno;
	printf("poll: rc=%d errno=%s handled=%d\n", rc, strerrorname_np(e), (int)handled);
}

static void mode_alarmkill(void) {
	printf("waiting for SIGALRM\n");
	fflush(stdout);
	alarm(1);
	pause();
	printf("still alive\n");
}

static void mode_childalarm(void) {
	pid_t c = fork();
	if (c == 0) {
		alarm(1);
		pause();
		_exit(0);
	}
	int st = 0;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	printf("child ended: signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	exit(100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0));
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "";
	int restart = argc > 2 && !strcmp(argv[2], "restart");
	if (!strcmp(mode, "read"))
		mode_read(restart);
	else if (!strcmp(mode, "futex"))
		mode_futex(restart);
	else if (!strcmp(mode, "accept"))
		mode_accept();
	else if (!strcmp(mode, "itimer"))
		mode_itimer();
	else if (!strcmp(mode, "threadtimer"))
		mode_threadtimer();
	else if (!strcmp(mode, "altstack"))
		mode_altstack();
	else if (!strcmp(mode, "sigwait"))
		mode_sigwait();
	else if (!strcmp(mode, "nanosleep"))
		mode_nanosleep();
	else if (!strcmp(mode, "poll"))
		mode_poll();
	else if (!strcmp(mode, "suspendpending"))
		mode_suspendpending();
	else if (!strcmp(mode, "alarmkill"))
		mode_alarmkill();
	else if (!strcmp(mode, "childalarm"))
		mode_childalarm();
	else if (!strcmp(mode, "stop")) {
		printf("stopping\n");
		raise(SIGSTOP);
		printf("not stopped\n");
	}
	else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
