// tscbadlib: a program linked with a library whose TSC reads weft cannot
// patch (tscpatch_linux.go): the library's text holds the bytes of an
// rdtsc (0f 31) where the sweep cannot decode (after 06, invalid in 64-bit
// mode; never executed), as OpenSSL's libcrypto does. Built twice from this
// file: with -DTSCBAD_LIB -shared as the library, with -DTSCGOOD_LIB
// -shared as a second library the loader maps after it, whose rdtsc weft
// can patch, and without either as the program (with -DTSCBAD_NOLIB the
// program is linked with another library instead, such as libcrypto, and
// calls none of it). The program reads the TSC and the CPU's identity
// from its own code and the TSC from the second library, calls the first
// library's own rdtsc (which runs natively on a machine that cannot trap
// the TSC), and prints what its own code and the second library read.
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>

#ifdef TSCBAD_LIB
__asm__(".text\n"
	".globl tscbad_hidden\n"
	".type tscbad_hidden, @function\n"
	"tscbad_hidden:\n"
	"	ret\n"
	"	.byte 0x06, 0x0f, 0x31\n"
	".size tscbad_hidden, .-tscbad_hidden\n");

uint64_t tscbad_read(void) { return __rdtsc(); }
#elif defined TSCGOOD_LIB
uint64_t tscgood_read(void) { return __rdtsc(); }
#else
#ifdef TSCBAD_NOLIB
static uint64_t tscbad_read(void) { return 1; }
static uint64_t tscgood_read(void) { return __rdtsc(); }
#else
uint64_t tscbad_read(void);
uint64_t tscgood_read(void);
#endif

int main(void) {
	unsigned aux = 99, r[12];
	uint64_t a = __rdtsc(), b = __rdtscp(&aux);
	uint64_t lib = tscbad_read(), good = tscgood_read();
	for (unsigned k = 0; k < 3; k++)
		__cpuid(0x80000002 + k, r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]);
	char brand[49];
	memcpy(brand, r, 48);
	brand[48] = 0;
	printf("rdtsc %llu rdtscp %llu aux %u lib %s later %llu brand %s\n", (unsigned long long)a, (unsigned long long)b,
	       aux, lib ? "read" : "zero", (unsigned long long)good, brand);
	return 0;
}
#endif
