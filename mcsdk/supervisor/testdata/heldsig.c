/*
 * heldsig: a thread made by clone(2) itself (glibc's clone, which, unlike
 * pthread_create, leaves the new thread the signal mask of its parent,
 * SIGUSR1 unblocked), for TestCheckpointKeepsHeldSignal. The new thread
 * writes "child" and exits; the main thread waits for it (its tid word,
 * CLONE_CHILD_CLEARTID) and writes "done". A SIGUSR1 queued for the new
 * thread before it first runs has its handler write "usr1" first.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static int ctid = 1;
static char stack[1 << 16] __attribute__((aligned(16)));

static void onusr1(int sig)
{
	(void)sig;
	if (write(1, "usr1\n", 5) != 5)
		_exit(4);
}

static int child(void *arg)
{
	(void)arg;
	if (write(1, "child\n", 6) != 6)
		_exit(4);
	syscall(SYS_exit, 0);
	return 0;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = onusr1 };
	if (sigaction(SIGUSR1, &sa, NULL))
		return 2;
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		    CLONE_CHILD_CLEARTID;
	if (clone(child, stack + sizeof stack, flags, NULL, NULL, NULL, &ctid) < 0)
		return 3;
	while (__atomic_load_n(&ctid, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &ctid, FUTEX_WAIT, 1, NULL, NULL, 0);
	if (write(1, "done\n", 5) != 5)
		return 4;
	return 0;
}
