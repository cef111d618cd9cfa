// tscpatch: reads the time-stamp counter from code of each kind weft's
// TSC patching meets (tscpatch_linux.go), and prints what it read:
//   code    rdtsc, rdtscp and a prefixed rdtsc in the program's own code,
//           which weft patches at the exec stop
//   jit     an rdtsc written into anonymous memory, then made executable
//           with mprotect (traced): no ELF image to sweep, so weft traps
//           the TSC of the process from there
//   wx      the same in a mapping both writable and executable
//   thread  the jit case with a second thread alive: weft cannot switch a
//           process with two threads to trapping, and ends the run
//   rie     personality(READ_IMPLIES_EXEC), then the rdtsc written into a
//           mapping made only readable and writable: executable all the
//           same, without any call weft sees mapping code, so weft traps
//           the TSC of the process at the personality call
//   filejit the rdtsc written into a private mapping of this program's own
//           file, then made executable with mprotect: the file holds no
//           TSC read there, its memory does, so weft traps the TSC
//   exec    forks, and the child execs this program in code mode
//   park    sleeps a virtual second after its reads (weft's tests look
//           into its memory meanwhile)
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

// rdtsc; shl $32, %rdx; or %rdx, %rax; ret
static const unsigned char fn[] = {0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3};

static uint64_t prefixed(void) {
	uint32_t lo, hi;
	__asm__ volatile(".byte 0x3e, 0x0f, 0x31" : "=a"(lo), "=d"(hi)); // ds rdtsc
	return (uint64_t)hi << 32 | lo;
}

static uint64_t jit(int prot) {
	unsigned char *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	memcpy(p, fn, sizeof fn);
	if (!(prot & PROT_EXEC) && mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0)
		return 0;
	return ((uint64_t(*)(void))p)();
}

static void *nap(void *arg) {
	(void)arg;
	usleep(200000);
	return NULL;
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "code";
	unsigned aux = 99;
	uint64_t a = __rdtsc(), b = __rdtscp(&aux), c = prefixed();
	printf("%s: rdtsc %llu rdtscp %llu aux %u prefixed %llu\n", mode, (unsigned long long)a, (unsigned long long)b, aux, (unsigned long long)c);
	if (strcmp(mode, "park") == 0)
		sleep(1);
	if (strcmp(mode, "jit") == 0)
		printf("jit %llu\n", (unsigned long long)jit(PROT_READ | PROT_WRITE));
	if (strcmp(mode, "rie") == 0) {
		personality(READ_IMPLIES_EXEC);
		unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		memcpy(p, fn, sizeof fn);
		printf("rie %llu\n", (unsigned long long)((uint64_t(*)(void))p)());
	}
	if (strcmp(mode, "filejit") == 0) {
		int fd = open(argv[0], O_RDONLY);
		unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		memcpy(p, fn, sizeof fn);
		mprotect(p, 4096, PROT_READ | PROT_EXEC);
		printf("filejit %llu\n", (unsigned long long)((uint64_t(*)(void))p)());
	}
	if (strcmp(mode, "wx") == 0)
		printf("wx %llu\n", (unsigned long long)jit(PROT_READ | PROT_WRITE | PROT_EXEC));
	if (strcmp(mode, "thread") == 0) {
		pthread_t th;
		pthread_create(&th, NULL, nap, NULL);
		printf("thread %llu\n", (unsigned long long)jit(PROT_READ | PROT_WRITE));
		pthread_join(th, NULL);
	}
	if (strcmp(mode, "exec") == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			execl(argv[0], argv[0], "code", (char *)NULL);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		printf("child exited %d, then %llu\n", WEXITSTATUS(st), (unsigned long long)__rdtsc());
	}
	return 0;
}
