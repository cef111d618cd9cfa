// sysv: SysV IPC between a process and its forked children, as weft
// serves it (sys_sysv.go): a shared memory segment both see, semaphores
// that block and wake across processes, SEM_UNDO at exit, a message
// queue's type selection and blocking receive, semtimedop's timeout, a
// signal interrupting a semop, and the attach counts. With an argument
// KEY, also a probe: the host's segment of that key and its id (the
// second argument) are invisible to the node.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void say(const char *what, long r) {
	if (r < 0)
		printf("%s: -1 %s\n", what, strerrorname_np(errno));
	else
		printf("%s: %ld\n", what, r);
	fflush(stdout);
}

static int sem(int id, int num, int op, int flg) {
	struct sembuf b = {.sem_num = num, .sem_op = op, .sem_flg = flg};
	return semop(id, &b, 1);
}

static long nattch(int id) {
	struct shmid_ds ds;
	if (shmctl(id, IPC_STAT, &ds) < 0)
		return -1;
	return ds.shm_nattch;
}

static void onalarm(int sig) { (void)sig; }

static void shared(void) {
	int shm = shmget(IPC_PRIVATE, 8192, IPC_CREAT | 0600);
	int sems = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	char *p = shmat(shm, NULL, 0);
	say("attached", p == (void *)-1 ? -1 : 0);
	say("nattch parent", nattch(shm));
	pid_t child = fork();
	if (child == 0) {
		sem(sems, 0, -1, 0); // waits for the parent's post
		printf("child reads %s\n", p);
		fflush(stdout);
		strcpy(p, "world");
		sem(sems, 1, 1, 0);
		_exit(0);
	}
	say("nattch after fork", nattch(shm));
	strcpy(p, "hello");
	sem(sems, 0, 1, 0);
	sem(sems, 1, -1, 0); // waits for the child's post
	printf("parent reads %s\n", p);
	fflush(stdout);
	waitpid(child, NULL, 0);
	say("nattch after child exit", nattch(shm));
	say("shmdt", shmdt(p));
	say("shmdt again", shmdt(p));
	say("nattch after shmdt", nattch(shm));
	say("rmid", shmctl(shm, IPC_RMID, NULL));
	say("stat after rmid", nattch(shm));

	// SEM_UNDO: a child's post is undone at its exit.
	if ((child = fork()) == 0) {
		sem(sems, 0, 5, SEM_UNDO);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	say("value after undo", semctl(sems, 0, GETVAL));
	say("nowait", sem(sems, 0, -1, IPC_NOWAIT));
	struct timespec ts = {.tv_sec = 2};
	struct sembuf b = {.sem_num = 0, .sem_op = -1};
	say("semtimedop", semtimedop(sems, &b, 1, &ts));
	struct sigaction sa = {.sa_handler = onalarm, .sa_flags = SA_RESTART};
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	say("semop interrupted", sem(sems, 0, -1, 0));
	say("sem rmid", semctl(sems, 0, IPC_RMID));
}

struct msg {
	long type;
	char text[32];
};

static void queue(void) {
	int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	pid_t child = fork();
	if (child == 0) {
		struct msg m;
		long n = msgrcv(q, &m, sizeof m.text, 2, 0); // waits for type 2
		printf("child got type %ld %.*s\n", m.type, (int)n, m.text);
		fflush(stdout);
		m.type = 3;
		strcpy(m.text, "done");
		msgsnd(q, &m, 4, 0);
		_exit(0);
	}
	struct msg a = {1, "first"}, b = {2, "second"};
	msgsnd(q, &a, 5, 0);
	msgsnd(q, &b, 6, 0);
	struct msg m;
	long n = msgrcv(q, &m, sizeof m.text, -3, 0); // lowest type: 1 ("first"), then 3
	printf("parent got type %ld %.*s\n", m.type, (int)n, m.text);
	n = msgrcv(q, &m, sizeof m.text, 3, 0);
	printf("parent got type %ld %.*s\n", m.type, (int)n, m.text);
	waitpid(child, NULL, 0);
	msgsnd(q, &b, 6, 0);
	say("too long", msgrcv(q, &m, 3, 0, 0));
	n = msgrcv(q, &m, 3, 0, MSG_NOERROR);
	printf("truncated %.*s\n", (int)n, m.text);
	say("empty", msgrcv(q, &m, 3, 0, IPC_NOWAIT));
	struct msqid_ds ds;
	msgctl(q, IPC_STAT, &ds);
	printf("qnum %lu qbytes %lu\n", (unsigned long)ds.msg_qnum, (unsigned long)ds.msg_qbytes);
	say("msg rmid", msgctl(q, IPC_RMID, NULL));
}

// probe: the host's segment of key and its id are not the node's.
static void probe(key_t key, int hostid) {
	say("host key", shmget(key, 0, 0));
	say("host id stat", nattch(hostid));
	say("host id attach", (long)shmat(hostid, NULL, 0) == -1 ? -1 : 0);
	int mine = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	say("own segment of the key", mine >= 0 ? 0 : -1);
	char *p = shmat(mine, NULL, 0);
	if (p != (void *)-1)
		strcpy(p, "node wrote this");
	say("own rmid", shmctl(mine, IPC_RMID, NULL));
}

int main(int argc, char **argv) {
	if (argc == 3) {
		probe((key_t)strtol(argv[1], NULL, 0), atoi(argv[2]));
		return 0;
	}
	shared();
	queue();
	return 0;
}
