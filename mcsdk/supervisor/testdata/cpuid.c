// cpuid: prints what the CPU-identity instructions answer (cpuid's vendor,
// brand, signature and features, rdrand, rdseed, rdpid, lsl's CPU number,
// rdtscp's aux) and whether a read of the page below the vDSO, where the
// kernel maps its [vvar] time data, faults. TestCPUVirtual runs it under
// weft and natively.
#include <cpuid.h>
#include <immintrin.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

static sigjmp_buf env;

static void onsegv(int sig) { siglongjmp(env, sig); }

// vvar reads the word below the vDSO and says whether that faulted.
static void vvar(void) {
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo = 0, hi = 0;
	int named = 0;
	while (f && fgets(line, sizeof line, f)) {
		if (strstr(line, "[vvar"))
			named = 1;
		if (strstr(line, "[vdso]"))
			sscanf(line, "%lx-%lx", &lo, &hi);
	}
	if (f)
		fclose(f);
	printf("vvar in maps %d\n", named);
	if (!lo) {
		printf("no vdso\n");
		return;
	}
	signal(SIGSEGV, onsegv);
	signal(SIGBUS, onsegv);
	int sig = sigsetjmp(env, 1);
	if (sig == 0) {
		volatile uint64_t v = *(volatile uint64_t *)(lo - 4096);
		(void)v;
		printf("vvar read ok\n");
	} else
		printf("vvar read faults with %s\n", sig == SIGSEGV ? "SIGSEGV" : "another signal");
}

int main(int argc, char **argv) {
	unsigned int r[4];
	setvbuf(stdout, NULL, _IONBF, 0);
	char v[13] = {0}, b[49] = {0};
	__cpuid(0, r[0], r[1], r[2], r[3]);
	memcpy(v, &r[1], 4), memcpy(v + 4, &r[3], 4), memcpy(v + 8, &r[2], 4);
	printf("vendor %s max %u\n", v, r[0]);
	for (unsigned i = 0; i < 3; i++) {
		__cpuid(0x80000002 + i, r[0], r[1], r[2], r[3]);
		memcpy(b + 16 * i, r, 16);
	}
	printf("brand %s\n", b);
	__cpuid(1, r[0], r[1], r[2], r[3]);
	printf("leaf1 %08x %08x %08x %08x\n", r[0], r[1], r[2], r[3]);
	__cpuid_count(7, 0, r[0], r[1], r[2], r[3]);
	printf("leaf7 %08x %08x %08x %08x\n", r[0], r[1], r[2], r[3]);
	__cpuid_count(0xb, 1, r[0], r[1], r[2], r[3]);
	printf("leafb.1 %08x %08x %08x %08x\n", r[0], r[1], r[2], r[3]);
	unsigned long long x = 0;
	unsigned int y = 0;
	unsigned short z = 0;
	int ok = _rdrand64_step(&x);
	printf("rdrand64 %d %016llx\n", ok, x);
	ok = _rdrand32_step(&y);
	printf("rdrand32 %d %08x\n", ok, y);
	ok = _rdseed16_step(&z);
	printf("rdseed16 %d %04x\n", ok, z);
	uint64_t pid = 1234;
	__asm__ volatile("rdpid %0" : "=r"(pid));
	printf("rdpid %lu\n", (unsigned long)pid);
	unsigned lim = 1234, sel = 15 * 8 + 3;
	__asm__ volatile("lsl %1, %0" : "=r"(lim) : "r"(sel));
	printf("lsl %u\n", lim);
	unsigned aux = 1234;
	__rdtscp(&aux);
	printf("rdtscp aux %u\n", aux);
	if (argc > 1 && !strcmp(argv[1], "vvar"))
		vvar();
	return 0;
}
