/*
 * atime: the access-time rule of a node's files (sys_stat.go,
 * virtualTimes): as on a noatime mount, a file's access time is set when
 * it is made and when the node sets it (utimensat, futimens, utimes,
 * utime; UTIME_NOW and UTIME_OMIT as utimensat(2) says), and never by a
 * read, a write, getdents, mmap or exec. The virtual clock moves a second
 * between steps, so each time printed names the step that set it.
 * statvfs and /proc/self/mountinfo say noatime.
 * For the supervisor's tests (atime_linux_test.go).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

static void show(const char *what, const char *path)
{
	struct stat st;
	struct statx sx;
	if (stat(path, &st) != 0 || statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &sx) != 0) {
		printf("%s: %s: %s\n", what, path, strerrorname_np(errno));
		return;
	}
	printf("%s: %s a %lld.%09ld m %lld.%09ld c %lld.%09ld", what, path, (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	if (sx.stx_atime.tv_sec != st.st_atim.tv_sec || sx.stx_atime.tv_nsec != st.st_atim.tv_nsec)
		printf(" statx a %lld.%09u", (long long)sx.stx_atime.tv_sec, sx.stx_atime.tv_nsec);
	printf("\n");
}

static void slurp(const char *path)
{
	char b[64];
	int fd = open(path, O_RDONLY);
	while (fd >= 0 && read(fd, b, sizeof b) > 0)
		;
	close(fd);
}

static void utimens(const char *what, long as, long ans, long ms, long mns)
{
	struct timespec ts[2] = {{as, ans}, {ms, mns}};
	if (utimensat(AT_FDCWD, "f", ts, 0) != 0)
		printf("utimensat: %s\n", strerrorname_np(errno));
	show(what, "f");
}

/* copy copies file from to the new executable to. */
static int copy(const char *from, const char *to)
{
	char b[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);
	long n;
	while (in >= 0 && out >= 0 && (n = read(in, b, sizeof b)) > 0)
		if (write(out, b, n) != n)
			return -1;
	close(in);
	close(out);
	return in >= 0 && out >= 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return 0; /* run as the executed copy */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mkdir("d", 0755) != 0)
		return 2;
	int fd = open("f", O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, "hello, world\n", 13) != 13)
		return 2;
	show("made", "f");
	show("made", "d");

	sleep(1);
	slurp("f");
	show("read", "f");

	sleep(1);
	if (pwrite(fd, "H", 1, 0) != 1)
		return 2;
	show("written", "f");

	sleep(1);
	char *p = mmap(NULL, 13, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 2;
	printf("mapped: %c\n", p[0]);
	munmap(p, 13);
	show("mapped", "f");

	sleep(1);
	close(open("d/x", O_WRONLY | O_CREAT, 0644));
	DIR *dir = opendir("d");
	int entries = 0;
	while (dir && readdir(dir))
		entries++;
	closedir(dir);
	printf("listed: %d entries\n", entries);
	show("listed", "d");

	sleep(1);
	utimens("utimensat 100, 200.000000005", 100, 0, 200, 5);
	slurp("f");
	show("read after utimensat", "f");

	sleep(1);
	utimens("utimensat UTIME_NOW, UTIME_OMIT", 0, UTIME_NOW, 0, UTIME_OMIT);
	sleep(1);
	utimens("utimensat UTIME_OMIT, 400", 0, UTIME_OMIT, 400, 0);

	sleep(1);
	if (futimens(fd, NULL) != 0)
		printf("futimens: %s\n", strerrorname_np(errno));
	show("futimens NULL", "f");

	sleep(1);
	struct timeval tv[2] = {{500, 3}, {600, 4}};
	if (utimes("f", tv) != 0)
		printf("utimes: %s\n", strerrorname_np(errno));
	show("utimes 500.000003, 600.000004", "f");

	sleep(1);
	struct utimbuf ub = {700, 800};
	if (utime("f", &ub) != 0)
		printf("utime: %s\n", strerrorname_np(errno));
	show("utime 700, 800", "f");

	sleep(1);
	utimens("utimensat UTIME_OMIT, UTIME_OMIT", 0, UTIME_OMIT, 0, UTIME_OMIT);

	sleep(1);
	if (copy("/proc/self/exe", "x") != 0)
		return 2;
	show("copied", "x");
	sleep(1);
	pid_t pid = fork();
	if (pid == 0) {
		execl("./x", "x", "child", (char *)NULL);
		_exit(127);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	printf("executed: status %d\n", status);
	show("executed", "x");

	sleep(1);
	close(open("g", O_WRONLY | O_CREAT, 0644));
	show("made later", "g");
	slurp("g");
	sleep(1);
	show("read later", "g");
	close(fd);

	struct statvfs vfs;
	if (statvfs(".", &vfs) == 0)
		printf("statvfs: noatime %d relatime %d\n", !!(vfs.f_flag & ST_NOATIME), !!(vfs.f_flag & ST_RELATIME));
	char mi[256] = "";
	FILE *m = fopen("/proc/self/mountinfo", "r");
	if (m && fgets(mi, sizeof mi, m))
		printf("mountinfo: %s", mi);
	if (m)
		fclose(m);
	return 0;
}
