// tsc: reads the time-stamp counter with rdtsc and rdtscp, sleeps one
// second, and reads it again. Under weft the counter is virtual (one tick
// per virtual nanosecond), so two runs print the same values.
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

int main(void) {
	unsigned aux = 99;
	uint64_t a = __rdtsc();
	uint64_t b = __rdtscp(&aux);
	struct timespec one = {1, 0};
	nanosleep(&one, NULL);
	uint64_t c = __rdtsc();
	printf("rdtsc %llu rdtscp %llu aux %u\n", (unsigned long long)a, (unsigned long long)b, aux);
	printf("after a 1 s sleep: %llu, +%llu ticks, increasing %d\n", (unsigned long long)c, (unsigned long long)(c - b), a < b && b < c);
	return 0;
}
