/* stat: file metadata, file times and writes inside the working directory. */
#include "probe.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void show(const char *what, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		SAME("%s: stat failed %s", what, strerrorname_np(errno));
		return;
	}
	VIRT("%s: mtime %lld.%09ld ctime %lld atime %lld", what, (long long)st.st_mtim.tv_sec,
	     st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, (long long)st.st_atim.tv_sec);
}

int main(int argc, char **argv)
{
	struct stat st;
	CHECK("stat(/nonexistent)", stat("/nonexistent-weft", &st));
	CHECK("fstat(-1)", fstat(-1, &st));
	CHECK("fstat(99)", fstat(99, &st));
	CHECK("stat(.)", stat(".", &st));
	SAME(". is a directory: %d", S_ISDIR(st.st_mode));
	show("/", "/");
	show("binary", argv[0]);

	int fd = open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	SAME("open(f, O_CREAT) ok: %d", fd >= 0);
	CHECK("write(f, 5)", write(fd, "hello", 5));
	CHECK("fstat(f)", fstat(fd, &st));
	SAME("f: regular %d size %lld", S_ISREG(st.st_mode), (long long)st.st_size);
	CHECK("fstatat(fd, \"\", AT_EMPTY_PATH)", fstatat(fd, "", &st, AT_EMPTY_PATH));
	SAME("f via AT_EMPTY_PATH: size %lld", (long long)st.st_size);
	struct statx sx;
	CHECK("statx(f)", statx(AT_FDCWD, "f", 0, STATX_BASIC_STATS, &sx));
	SAME("f via statx: size %lld", (long long)sx.stx_size);
	VIRT("f: statx mtime %lld", (long long)sx.stx_mtime.tv_sec);
	show("f", "f");

	struct timespec ts[2] = { { 100, 0 }, { 200, 5 } };
	CHECK("utimensat(f, 100, 200)", utimensat(AT_FDCWD, "f", ts, 0));
	CHECK("stat(f)", stat("f", &st));
	SAME("f after utimensat: atime %lld mtime %lld.%09ld", (long long)st.st_atim.tv_sec,
	     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	/* A read moves the host's access time (relatime: it is not later
	 * than the modification time); weft's stays what was set (noatime). */
	char buf[8];
	int rfd = open("f", O_RDONLY);
	CHECK("read(f)", read(rfd, buf, sizeof buf));
	close(rfd);
	CHECK("stat(f) after a read", stat("f", &st));
	VIRT("f after a read: atime %lld", (long long)st.st_atim.tv_sec);
	struct timespec bad[2] = { { 0, 2000000000 }, { 0, 0 } };
	CHECK("utimensat(f, bad nsec)", utimensat(AT_FDCWD, "f", bad, 0));
	CHECK("futimens(f, NULL)", futimens(fd, NULL));
	close(fd);

	CHECK("symlink(f, l)", symlink("f", "l"));
	CHECK("lstat(l)", lstat("l", &st));
	SAME("l is a symlink: %d", S_ISLNK(st.st_mode));
	CHECK("stat(l)", stat("l", &st));
	SAME("l leads to a regular file: %d", S_ISREG(st.st_mode));
	CHECK("mkdir(d)", mkdir("d", 0755));
	CHECK("mkdir(d) again", mkdir("d", 0755));
	CHECK("rename(f, d/g)", rename("f", "d/g"));
	CHECK("unlink(f)", unlink("f"));
	CHECK("unlink(d/g)", unlink("d/g"));
	CHECK("unlink(l)", unlink("l"));
	CHECK("rmdir(d)", rmdir("d"));
	CHECK("open(/nonexistent/x, O_CREAT)", open("/nonexistent-weft/x", O_CREAT | O_WRONLY, 0644));
	CHECK("access(/, R_OK)", access("/", R_OK));
	CHECK("open(/etc/hostname, O_RDONLY)", open("/etc/hostname", O_RDONLY));
	return 0;
}
