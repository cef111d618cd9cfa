/*
 * dirwatch: a node that looks at its data directory between network
 * steps, for the checkpoint tests (checkpoint_dir_linux_test.go).
 *
 * Node ID listens on BASE_PORT+ID and dials the next node; each round it
 * sends a byte to the next node and reads one from the previous, then
 * changes its working directory (its data directory) a step further
 * (files made, written, linked, renamed, unlinked, a directory grown past
 * one block and emptied, a sparse file, modes and a modification time
 * set, a file read) and prints
 * everything stat and getdents64 show of the tree: the order of entries,
 * d_ino, d_off and d_type, and each entry's inode, links, size, blocks,
 * mode, owner and times. A restored branch must print what the branch
 * replayed to the same state prints.
 *
 * usage: dirwatch ID NODES BASE_PORT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS 8

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int dial(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			return fd;
		close(fd);
		usleep(1000);
	}
}

static void stat_line(int dirfd, const char *path, const char *name)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		printf("  %s/%s: %s\n", path, name, strerrorname_np(errno));
		return;
	}
	printf("  %s/%s ino %lu nlink %lu size %ld blocks %ld mode %o uid %u gid %u a %ld.%09ld m %ld.%09ld c %ld.%09ld\n", path, name,
	       (unsigned long)st.st_ino, (unsigned long)st.st_nlink, (long)st.st_size, (long)st.st_blocks, st.st_mode, st.st_uid, st.st_gid,
	       (long)st.st_atim.tv_sec, st.st_atim.tv_nsec, (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long)st.st_ctim.tv_sec,
	       st.st_ctim.tv_nsec);
}

/* list prints directory path (open as dirfd) and, depth first, its subdirectories. */
static void list(int dirfd, const char *path)
{
	char buf[4096];
	printf(" dir %s\n", path);
	for (;;) {
		long n = syscall(SYS_getdents64, dirfd, buf, sizeof buf);
		if (n < 0) {
			printf("  getdents64: %s\n", strerrorname_np(errno));
			return;
		}
		if (n == 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			off += d->d_reclen;
			printf("  dirent %s ino %lu off %ld type %u\n", d->d_name, (unsigned long)d->d_ino, (long)d->d_off, d->d_type);
			stat_line(dirfd, path, d->d_name);
			if (d->d_type == DT_DIR && strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0) {
				int sub = openat(dirfd, d->d_name, O_RDONLY | O_DIRECTORY);
				char p[512];
				snprintf(p, sizeof p, "%s/%s", path, d->d_name);
				if (sub >= 0) {
					list(sub, p);
					close(sub);
				}
			}
		}
	}
}

static void put(const char *name, const char *s)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) {
		if (write(fd, s, strlen(s)) < 0)
			printf(" write %s: %s\n", name, strerrorname_np(errno));
		close(fd);
	}
}

/* slurp reads file name to its end: a read, which must not move its
 * access time in a restored branch where the replayed one keeps it. */
static void slurp(const char *name)
{
	char b[64];
	int fd = open(name, O_RDONLY);
	if (fd < 0)
		return;
	while (read(fd, b, sizeof b) > 0)
		;
	close(fd);
}

#define DO(expr) (errno = 0, printf(" %s -> %s\n", #expr, (expr) < 0 ? strerrorname_np(errno) : "ok"))

/* step changes the tree a step further in round r. */
static void step(int r)
{
	char name[64];
	switch (r) {
	case 0:
		DO(mkdir("d", 0755));
		put("d/a", "hello\n");
		put("top", "x");
		break;
	case 1:
		DO(link("d/a", "d/b"));
		put("d/a", "more\n");
		DO(mkdir("d/sub", 0700));
		break;
	case 2:
		DO(rename("d/b", "moved"));
		{
			int fd = open("sparse", O_WRONLY | O_CREAT, 0600);
			DO(pwrite(fd, "end", 3, 1 << 20));
			close(fd);
		}
		break;
	case 3:
		for (int i = 0; i < 150; i++) {
			snprintf(name, sizeof name, "d/sub/entry-with-a-longish-name-%03d", i);
			put(name, "");
		}
		break;
	case 4:
		for (int i = 0; i < 150; i += 2) {
			snprintf(name, sizeof name, "d/sub/entry-with-a-longish-name-%03d", i);
			DO(unlink(name));
		}
		DO(unlink("d/a"));
		break;
	case 5:
		for (int i = 1; i < 150; i += 2) {
			snprintf(name, sizeof name, "d/sub/entry-with-a-longish-name-%03d", i);
			unlink(name);
		}
		DO(chmod("moved", 0640));
		DO(symlink("moved", "d/link"));
		break;
	case 6: {
		struct timespec ts[2] = {{0, UTIME_OMIT}, {1000000000, 5}};
		DO(utimensat(AT_FDCWD, "top", ts, 0));
		DO(truncate("sparse", 10));
		DO(rename("d/sub", "sub2"));
		break;
	}
	default:
		put("other", "y");
		DO(rmdir("sub2"));
	}
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	int id = atoi(argv[1]), nodes = atoi(argv[2]), base = atoi(argv[3]);
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(base + id)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 8) < 0)
		return 2;
	int out = dial(base + (id + 1) % nodes);
	int in = accept(ls, NULL, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		char b = (char)r;
		if (write(out, &b, 1) != 1 || read(in, &b, 1) != 1)
			return 3;
		printf("round %d\n", r);
		step(r);
		slurp("top");
		usleep(1000); /* the virtual clock moves: a time changed now shows */
		int dot = open(".", O_RDONLY | O_DIRECTORY);
		list(dot, ".");
		close(dot);
		fflush(stdout);
	}
	return 0;
}
