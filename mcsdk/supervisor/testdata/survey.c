// survey.c makes known numbers of syscalls of every kind of answer, for
// TestSyscallSurvey: served, served with an errno, refused by the table,
// passed through, parked (a sleep), and, with the argument "stop", one
// unsupported call that ends the run.
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	char buf[16];
	unsigned char vec[1];
	for (int i = 0; i < 5; i++)
		syscall(SYS_getrandom, buf, sizeof buf, 0); // served
	for (int i = 0; i < 3; i++)
		syscall(SYS_kill, 999999, 0); // served: ESRCH
	for (int i = 0; i < 2; i++)
		syscall(SYS_mincore, buf, 1, vec); // refused: ENOSYS
	for (int i = 0; i < 4; i++)
		syscall(SYS_getuid); // passed through
	struct timespec ts = {0, 1000000};
	syscall(SYS_nanosleep, &ts, NULL); // parked until its timer
	if (argc > 1 && strcmp(argv[1], "stop") == 0) {
		char params[120];
		memset(params, 0, sizeof params);
		syscall(SYS_io_uring_setup, 1, params); // unsupported
	}
	return 0;
}
