/* Leases and dnotify served virtually (issue 36 §3), judged from the host
 * by TestLeases: argv[1] is a file outside the run directory, argv[2] a
 * host directory. The node leases argv[1], watches argv[2], says
 * "leased" and sleeps while the test opens argv[1] for writing and
 * makes a file in argv[2] from the host. Every line is "what: result errno". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *what, long r) {
	printf("%s: %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "");
	fflush(stdout);
}

int main(int argc, char **argv) {
	if (argc < 3)
		return 2;
	sigset_t io;
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	sigprocmask(SIG_BLOCK, &io, NULL); /* a notification would stay pending */

	/* A read lease on a file no node may write: granted, never the host's. */
	int f = open(argv[1], O_RDONLY);
	say("read lease outside", fcntl(f, F_SETLEASE, F_RDLCK));
	say("get outside", fcntl(f, F_GETLEASE));
	int dup = fcntl(f, F_DUPFD_CLOEXEC, 10);
	say("get dup", fcntl(dup, F_GETLEASE));
	int again = open(argv[1], O_RDONLY);
	say("get other open", fcntl(again, F_GETLEASE));
	say("read lease beside a reader", fcntl(again, F_SETLEASE, F_RDLCK));
	say("unlock other open", fcntl(again, F_SETLEASE, F_UNLCK));
	say("unlock again", fcntl(again, F_SETLEASE, F_UNLCK));
	say("write lease outside", fcntl(f, F_SETLEASE, F_WRLCK));
	say("lease type 7", fcntl(f, F_SETLEASE, 7));
	pid_t child = fork();
	if (child == 0) {
		say("child get inherited", fcntl(f, F_GETLEASE));
		_exit(0);
	}
	waitpid(child, NULL, 0);

	/* Not regular files. */
	int p[2];
	pipe(p);
	say("lease on a pipe", fcntl(p[0], F_SETLEASE, F_RDLCK));
	int d = open(argv[2], O_RDONLY | O_DIRECTORY);
	say("lease on a directory", fcntl(d, F_SETLEASE, F_RDLCK));

	/* Files of the run directory: conflicts, then the limit. */
	int w = open("mine", O_CREAT | O_RDWR, 0644);
	say("read lease on a writer", fcntl(w, F_SETLEASE, F_RDLCK));
	int r = open("mine", O_RDONLY);
	say("read lease beside a writer", fcntl(r, F_SETLEASE, F_RDLCK));
	say("write lease beside a writer", fcntl(r, F_SETLEASE, F_WRLCK));
	close(w);
	say("read lease in the run directory", fcntl(r, F_SETLEASE, F_RDLCK));
	unlink("mine");
	say("write lease on an unlinked file", fcntl(r, F_SETLEASE, F_WRLCK));
	say("get unlinked", fcntl(r, F_GETLEASE));
	int t = open(".", O_TMPFILE | O_RDWR, 0600);
	say("write lease on a nameless file", fcntl(t, F_SETLEASE, F_WRLCK));
	say("downgrade a writer", fcntl(t, F_SETLEASE, F_RDLCK));

	/* dnotify: recorded, nothing delivered. */
	say("notify directory", fcntl(d, F_NOTIFY, DN_CREATE | DN_MODIFY | DN_MULTISHOT));
	say("notify file", fcntl(f, F_NOTIFY, DN_CREATE));
	say("notify file none", fcntl(f, F_NOTIFY, 0));

	/* Once a non-root user: neither owner nor CAP_LEASE. */
	child = fork();
	if (child == 0) {
		say("setuid", setuid(65534));
		say("lease not owner", fcntl(f, F_SETLEASE, F_RDLCK));
		_exit(0);
	}
	waitpid(child, NULL, 0);

	printf("leased\n");
	fflush(stdout);
	/* The test opens argv[1] for writing and makes a file in argv[2]
	 * from the host while the node sleeps (virtual time). */
	struct timespec ts = {1, 0};
	say("sleep", nanosleep(&ts, NULL));
	say("get after host writer", fcntl(f, F_GETLEASE));
	sigset_t pend;
	sigpending(&pend);
	say("SIGIO pending", sigismember(&pend, SIGIO));
	return 0;
}
