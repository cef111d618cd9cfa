/* Virtual inode and device numbers (issue 36 §2): every stat-like call
 * shows device 0:42 and the world's number for the file; a hard link, a
 * rename and a descriptor show the file's one number. Run in the node's
 * run directory. Every line is "what: dev ino" or "what: same|differs". */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void show(const char *what, int r, struct stat *st) {
	if (r < 0) {
		printf("%s: failed\n", what);
		return;
	}
	printf("%s: %u:%u %lu\n", what, major(st->st_dev), minor(st->st_dev), (unsigned long)st->st_ino);
}

/* listed says whether the directory dir lists name with st's inode number. */
static void listed(const char *what, const char *dir, const char *name, struct stat *st) {
	DIR *d = opendir(dir);
	struct dirent *e;
	const char *r = "absent";
	while (d && (e = readdir(d)))
		if (!strcmp(e->d_name, name))
			r = e->d_ino == st->st_ino ? "same" : "differs";
	if (d)
		closedir(d);
	printf("%s: %s\n", what, r);
}

static void same(const char *what, struct stat *a, struct stat *b) {
	printf("%s: %s\n", what, a->st_dev == b->st_dev && a->st_ino == b->st_ino ? "same" : "differs");
}

int main(void) {
	struct stat p1, p2, p3, root, a, b, c, d, pipest, hn;
	show("passwd", stat("/etc/passwd", &p1), &p1);
	show("root", stat("/", &root), &root);
	int fd = open("/etc/passwd", O_RDONLY);
	fstat(fd, &p2);
	same("passwd fstat", &p1, &p2);
	fstatat(AT_FDCWD, "/etc/../etc/passwd", &p3, 0);
	same("passwd fstatat", &p1, &p3);
	struct statx sx;
	statx(AT_FDCWD, "/etc/passwd", 0, STATX_BASIC_STATS | STATX_MNT_ID, &sx);
	printf("statx: %u:%u %s mnt_id %llu mask_mnt_id %d\n", sx.stx_dev_major, sx.stx_dev_minor,
	       sx.stx_ino == p1.st_ino ? "same" : "differs", (unsigned long long)sx.stx_mnt_id, !!(sx.stx_mask & STATX_MNT_ID));
	close(open("a", O_CREAT | O_WRONLY, 0644));
	stat("a", &a);
	link("a", "b");
	lstat("b", &b);
	same("hard link", &a, &b);
	rename("b", "c");
	stat("c", &c);
	same("renamed", &a, &c);
	int wfd = open("c", O_RDONLY);
	fstat(wfd, &d);
	same("by descriptor", &a, &d);
	same("a vs passwd", &a, &p1);
	int pp[2];
	pipe(pp);
	show("pipe", fstat(pp[0], &pipest), &pipest);
	show("hostname", stat("/etc/hostname", &hn), &hn);
	show("a", 0, &a);
	listed("listed passwd", "/etc", "passwd", &p1);
	listed("listed c", ".", "c", &a);
	struct stat dot, etc;
	stat(".", &dot);
	listed("listed dot", ".", ".", &dot);
	stat("/etc", &etc);
	listed("listed etc", "/etc", ".", &etc);
	printf("done\n");
	return 0;
}
