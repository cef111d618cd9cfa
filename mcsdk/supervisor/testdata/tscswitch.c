// tscswitch [0|1]: a pipe ping-pong between two native processes (no
// weft), 20000 round trips, with (1) or without (0) PR_SET_TSC
// (PR_TSC_SIGSEGV) in the child; prints the round trip in microseconds.
// It isolates what a trapped TSC costs each context switch.
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int notsc = argc > 1 && argv[1][0] == '1';
	int n = 20000, a[2], b[2];
	pipe(a); pipe(b);
	struct timespec t0, t1;
	if (fork() == 0) {
		if (notsc) prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
		char c;
		for (int i = 0; i < n; i++) { read(a[0], &c, 1); write(b[1], &c, 1); }
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char c = 'x';
	for (int i = 0; i < n; i++) { write(a[1], &c, 1); read(b[0], &c, 1); }
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wait(NULL);
	printf("PR_SET_TSC in child=%d: %.2f us per round trip\n", notsc, ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n / 1e3);
	return 0;
}
