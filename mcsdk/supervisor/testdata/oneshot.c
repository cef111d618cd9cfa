/* oneshot: installs a SA_RESETHAND handler for SIGUSR1 and, with the
 * argument "fire", sends itself SIGUSR1 (the handler runs once and the
 * kernel resets the action to SIG_DFL); with "hold" it sends signal 0
 * instead, the same call with no effect. Either way it then sleeps in
 * the same call, so the two states differ only in whether the one-shot
 * handler fired. */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void on(int sig) { (void)sig; }

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on, .sa_flags = SA_RESETHAND };
	if (sigaction(SIGUSR1, &sa, NULL))
		return 2;
	int fire = argc > 1 && strcmp(argv[1], "fire") == 0;
	kill(getpid(), fire ? SIGUSR1 : 0);
	struct sigaction now;
	if (sigaction(SIGUSR1, NULL, &now))
		return 3;
	struct timespec ts = { 5, 0 };
	nanosleep(&ts, NULL);
	return now.sa_handler == (fire ? SIG_DFL : on) ? 0 : 4;
}
