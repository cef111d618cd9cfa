/*
 * chrono: reads every clock Linux offers, sleeps for minutes, waits on
 * poll and select timeouts, and draws random bytes — everything a program
 * can observe about time and chance. Under weft all of it is virtual: the
 * output is a function of the seed, and ten minutes of sleep take no wall
 * time.
 *
 * usage: chrono
 */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int64_t elapsed_ms;   /* monotonic time slept, as the program measured it */
uint32_t luck;        /* a random number */

static const struct { clockid_t id; const char *name; } clocks[] = {
	{ CLOCK_REALTIME, "REALTIME" },
	{ CLOCK_MONOTONIC, "MONOTONIC" },
	{ CLOCK_PROCESS_CPUTIME_ID, "PROCESS_CPUTIME_ID" },
	{ CLOCK_THREAD_CPUTIME_ID, "THREAD_CPUTIME_ID" },
	{ CLOCK_MONOTONIC_RAW, "MONOTONIC_RAW" },
	{ CLOCK_REALTIME_COARSE, "REALTIME_COARSE" },
	{ CLOCK_MONOTONIC_COARSE, "MONOTONIC_COARSE" },
	{ CLOCK_BOOTTIME, "BOOTTIME" },
	{ CLOCK_TAI, "TAI" },
};

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void show_clocks(const char *when)
{
	for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
		struct timespec ts;
		clock_gettime(clocks[i].id, &ts);
		printf("%s %-18s %lld.%09ld\n", when, clocks[i].name, (long long)ts.tv_sec, ts.tv_nsec);
	}
	struct timeval tv;
	gettimeofday(&tv, NULL);
	printf("%s %-18s %lld.%06ld\n", when, "gettimeofday", (long long)tv.tv_sec, (long)tv.tv_usec);
	time_t t = time(NULL);
	char buf[64];
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	printf("%s %-18s %s\n", when, "time", buf);
}

int main(void)
{
	int64_t start = mono_ms();
	show_clocks("start");

	struct timespec five_min = { .tv_sec = 300 };
	nanosleep(&five_min, NULL);                                   /* 5 min */
	struct timespec two_min = { .tv_sec = 120 };
	clock_nanosleep(CLOCK_MONOTONIC, 0, &two_min, NULL);          /* 2 min */
	struct timespec abs;
	clock_gettime(CLOCK_REALTIME, &abs);
	abs.tv_sec += 60;
	clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &abs, NULL);   /* 1 min */
	poll(NULL, 0, 30000);                                         /* 30 s */
	struct timeval tv = { .tv_sec = 30 };
	select(0, NULL, NULL, NULL, &tv);                             /* 30 s */
	usleep(500000);                                               /* 0.5 s */
	sleep(1);                                                     /* 1 s */

	/* A periodic timerfd: first expiry after 5 s, then every second. */
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = { .it_value = { .tv_sec = 5 }, .it_interval = { .tv_sec = 1 } };
	uint64_t ticks = 0;
	timerfd_settime(tfd, 0, &its, NULL);
	if (read(tfd, &ticks, sizeof ticks) == sizeof ticks)        /* blocks 5 s */
		printf("timerfd     %llu expiration after 5 s\n", (unsigned long long)ticks);
	struct timespec three = { .tv_sec = 3 };
	nanosleep(&three, NULL);                                      /* 3 s */
	if (read(tfd, &ticks, sizeof ticks) == sizeof ticks)
		printf("timerfd     %llu expirations during 3 s of sleep\n", (unsigned long long)ticks);
	struct pollfd pfd = { .fd = tfd, .events = POLLIN };
	if (poll(&pfd, 1, -1) == 1 && read(tfd, &ticks, sizeof ticks) == sizeof ticks)  /* 1 s */
		printf("timerfd     %llu expiration by poll\n", (unsigned long long)ticks);
	close(tfd);

	elapsed_ms = mono_ms() - start;
	show_clocks("end  ");
	printf("slept %lld ms of monotonic time\n", (long long)elapsed_ms);

	unsigned char rnd[8];
	if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd)
		return 1;
	printf("getrandom   ");
	for (size_t i = 0; i < sizeof rnd; i++)
		printf("%02x", rnd[i]);
	printf("\n");
	luck = (uint32_t)rnd[0] << 24 | rnd[1] << 16 | rnd[2] << 8 | rnd[3];

	int fd = open("/dev/urandom", O_RDONLY);
	if (fd >= 0) {
		unsigned char u[8];
		if (read(fd, u, sizeof u) == sizeof u) {
			printf("/dev/urandom ");
			for (size_t i = 0; i < sizeof u; i++)
				printf("%02x", u[i]);
			printf("\n");
		}
		close(fd);
	}
	srand((unsigned)luck);
	printf("rand()       %d\n", rand());
	fflush(stdout);
	return 0;
}
