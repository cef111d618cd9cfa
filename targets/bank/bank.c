// bank: two threads move money between two accounts and log every
// transfer. With -DBUG a transfer updates the balances without the mutex,
// so a thread preempted between reading the source balance and writing it
// back (at its log line) loses the other thread's update: money appears
// or vanishes.
//
// An ordinary pthread program: weft schedules its threads (every thread a
// task, interleavings at syscalls) without any help from it.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long acct_a = 100, acct_b = 100; // the invariant: acct_a + acct_b == 200
int transfers;                   // transfers done

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void transfer(const char *who, long *from, long *to, long amount) {
#ifndef BUG
	pthread_mutex_lock(&mu);
#endif
	long f = *from;
	printf("%s moves %ld out of %ld\n", who, amount, f);
	*from = f - amount;
	*to += amount;
	transfers++;
#ifndef BUG
	pthread_mutex_unlock(&mu);
#endif
}

static void *teller(void *arg) {
	int east = arg != NULL;
	for (int i = 0; i < 2; i++) {
		if (east)
			transfer("east", &acct_a, &acct_b, 10);
		else
			transfer("west", &acct_b, &acct_a, 7);
	}
	return NULL;
}

int main(void) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_t e, w;
	pthread_create(&e, NULL, teller, (void *)1);
	pthread_create(&w, NULL, teller, NULL);
	pthread_join(e, NULL);
	pthread_join(w, NULL);
	printf("done: a=%ld b=%ld total=%ld after %d transfers\n", acct_a, acct_b, acct_a + acct_b, transfers);
	return 0;
}
