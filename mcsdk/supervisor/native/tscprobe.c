/* weft-tscprobe: asks PR_SET_TSC to make rdtsc fault, then reads the TSC.
 * Killed by SIGSEGV: this machine traps the TSC. Exit 0: prctl succeeded
 * but rdtsc ran natively (a hypervisor that does not honour CR4.TSD).
 * Exit 2: prctl failed. */
#include <sys/prctl.h>

int main(void)
{
	unsigned lo, hi;

	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) < 0)
		return 2;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return 0;
}
