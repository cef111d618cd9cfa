// sysvhash: makes a shared memory segment, writes its argument's first
// byte into it, detaches (the bytes now live only in the segment), and
// waits.
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	char *p = shmat(id, 0, 0);
	if (id < 0 || p == (void *)-1 || argc < 2)
		return 1;
	p[100] = argv[1][0];
	shmdt(p);
	pause();
	return 0;
}
