/*
 * semorder: the order of semtimedop's refusals (ipc/sem.c): Linux copies
 * the timeout first (EFAULT for an unreadable one, before nsops is
 * looked at), then checks nsops (E2BIG, EINVAL), copies the operations
 * (EFAULT), and only then checks the timeout's value (EINVAL).
 */
#include "probe.h"
#include <sys/ipc.h>
#include <sys/sem.h>
#include <time.h>

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int id = semget(IPC_PRIVATE, 1, 0600);
	SAME("semget %s", id >= 0 ? "ok" : strerrorname_np(errno));
	struct sembuf op = { .sem_num = 0, .sem_op = 1 };
	struct timespec bad = { .tv_sec = -1 }, good = { .tv_sec = 1 };
	void *unreadable = (void *)8;
	CHECK("unreadable timeout, nsops 0", semtimedop(id, &op, 0, unreadable));
	CHECK("unreadable timeout, nsops too many", semtimedop(id, &op, 100000, unreadable));
	CHECK("unreadable timeout, unreadable ops", semtimedop(id, unreadable, 1, unreadable));
	CHECK("nsops 0", semtimedop(id, &op, 0, &good));
	CHECK("nsops too many", semtimedop(id, &op, 100000, &good));
	CHECK("unreadable ops, invalid timeout", semtimedop(id, unreadable, 1, &bad));
	CHECK("invalid timeout", semtimedop(id, &op, 1, &bad));
	CHECK("good", semtimedop(id, &op, 1, &good));
	CHECK("IPC_RMID", semctl(id, 0, IPC_RMID));
	return 0;
}
