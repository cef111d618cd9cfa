/*
 * mainjoin: a thread joins the main thread, which ends by pthread_exit
 * while the thread runs on. glibc registers the main thread's tid word
 * with set_tid_address at start; the kernel clears it and wakes its
 * futex when the main thread ends, which is what pthread_join waits for
 * (FUTEX_WAIT on the word until it reads 0). The join must return, and
 * the word read 0.
 */
#include "probe.h"
#include <pthread.h>
#include <unistd.h>

static pthread_t mainThread;
static volatile pid_t *word; /* the main thread's tid word */

static void *joiner(void *arg)
{
	(void)arg;
	int r = pthread_join(mainThread, NULL);
	SAME("joiner: pthread_join(main) -> %d %s; the word reads %d", r, r ? strerrorname_np(r) : "ok", (int)*word);
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	mainThread = pthread_self();
	/* glibc's struct pthread keeps the tid word where gettid's value is:
	 * find it in the descriptor's first words. */
	pid_t tid = gettid();
	int *pd = (int *)mainThread;
	for (int i = 0; i < 256 && !word; i++)
		if (pd[i] == tid)
			word = (volatile pid_t *)&pd[i];
	SAME("main: tid word found %d", word != NULL);
	if (!word)
		return 1;
	pthread_t j;
	pthread_create(&j, NULL, joiner, NULL);
	pthread_exit(NULL);
}
