/*
 * fsguard: writes inside and outside the run directory, by every kind of
 * path a node can use. Prints "WHAT = RESULT" per call.
 *
 * usage: fsguard OUTSIDE_DIR   (OUTSIDE_DIR holds a file "victim")
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static void r(const char *what, long v)
{
	if (v < 0)
		printf("%s = %s\n", what, strerrorname_np(errno));
	else
		printf("%s = ok\n", what);
	errno = 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char victim[4096], newf[4096], sub[4096];
	snprintf(victim, sizeof victim, "%s/victim", argv[1]);
	snprintf(newf, sizeof newf, "%s/new", argv[1]);
	snprintf(sub, sizeof sub, "%s/sub", argv[1]);

	r("open(outside/new, O_CREAT)", open(newf, O_CREAT | O_WRONLY, 0644));
	r("creat(outside/new)", creat(newf, 0644));
	r("open(victim, O_WRONLY)", open(victim, O_WRONLY));
	r("open(victim, O_RDONLY|O_TRUNC)", open(victim, O_RDONLY | O_TRUNC));
	int ro = open(victim, O_RDONLY);
	r("open(victim, O_RDONLY)", ro);
	r("fchmod(victim fd)", fchmod(ro, 0777));
	r("fchown(victim fd)", fchown(ro, 0, 0));
	r("futimens(victim fd)", futimens(ro, NULL));
	r("chmod(victim)", chmod(victim, 0777));
	r("chown(victim)", chown(victim, 0, 0));
	r("truncate(victim)", truncate(victim, 0));
	r("utimensat(victim)", utimensat(AT_FDCWD, victim, NULL, 0));
	r("setxattr(victim)", setxattr(victim, "user.weft", "x", 1, 0));
	r("mkdir(outside/sub)", mkdir(sub, 0755));
	r("rmdir(outside)", rmdir(argv[1]));
	r("unlink(victim)", unlink(victim));
	r("rename(victim, stolen)", rename(victim, "stolen"));
	r("link(victim, hard)", link(victim, "hard"));
	r("symlink(x, outside/sym)", symlink("x", newf));

	/* Symlinks in the run directory that lead outside. */
	r("symlink(victim, link)", symlink(victim, "link"));
	r("open(link, O_WRONLY)", open("link", O_WRONLY));
	r("open(link, O_RDONLY)", open("link", O_RDONLY));
	r("lchown(link)", lchown("link", 0, 0));
	r("unlink(link)", unlink("link"));
	r("symlink(outside, dirlink)", symlink(argv[1], "dirlink"));
	r("open(dirlink/new, O_CREAT)", open("dirlink/new", O_CREAT | O_WRONLY, 0644));
	r("open(../escape, O_CREAT)", open("../escape", O_CREAT | O_WRONLY, 0644));

	/* Directory descriptors and the working directory. */
	int d = open(argv[1], O_DIRECTORY | O_RDONLY);
	r("openat(outside fd, new, O_CREAT)", openat(d, "new", O_CREAT | O_WRONLY, 0644));
	r("unlinkat(outside fd, victim)", unlinkat(d, "victim", 0));
	r("renameat(outside fd, victim, cwd, stolen)", renameat(d, "victim", AT_FDCWD, "stolen"));
	r("fchmodat(outside fd, victim)", fchmodat(d, "victim", 0777, 0));
	int here = open(".", O_DIRECTORY | O_RDONLY);
	r("chdir(outside)", chdir(argv[1]));
	r("open(new, O_CREAT) in outside cwd", open("new", O_CREAT | O_WRONLY, 0644));
	r("fchdir(run dir)", fchdir(here));

	/* Inside: everything works. */
	int fd = open("ok", O_CREAT | O_WRONLY, 0644);
	r("open(ok, O_CREAT)", fd);
	r("write(ok)", write(fd, "ok\n", 3));
	r("mkdir(dir)", mkdir("dir", 0755));
	int dd = open("dir", O_DIRECTORY | O_RDONLY);
	r("openat(dir fd, x, O_CREAT)", openat(dd, "x", O_CREAT | O_WRONLY, 0644));
	r("rename(dir/x, dir/y)", rename("dir/x", "dir/y"));
	r("symlink(ok, okl)", symlink("ok", "okl"));
	r("open(okl, O_WRONLY)", open("okl", O_WRONLY));
	r("open(/proc/self/cwd/viaproc, O_CREAT)", open("/proc/self/cwd/viaproc", O_CREAT | O_WRONLY, 0644));
	r("truncate(ok)", truncate("ok", 1));
	r("chmod(ok)", chmod("ok", 0600));
	r("open(/dev/null, O_WRONLY)", open("/dev/null", O_WRONLY));
	r("fchmod(stdout, /dev/null)", fchmod(1, 0600));
	r("futimens(stdout, /dev/null)", futimens(1, NULL));
	r("rename(ok, outside/ok)", rename("ok", newf));
	r("open(outside, O_TMPFILE)", open(argv[1], O_TMPFILE | O_WRONLY, 0644));
	r("open(., O_TMPFILE)", open(".", O_TMPFILE | O_WRONLY, 0644));
	r("open(outside/missing-dir/x, O_CREAT)", open("/nonexistent-weft/x", O_CREAT | O_WRONLY, 0644));
	return 0;
}
