/* creds: SCM_CREDENTIALS and SO_PASSCRED over unix sockets, from the
 * node and from a forked child; the credentials must be the virtual pid
 * and the user's ids. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* take reads one message from fd with a control buffer of ctl bytes and
 * prints its data and credentials. */
static void take(const char *what, int fd, size_t ctl)
{
	char data[64], cbuf[256];
	struct iovec iov = { data, sizeof data };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = ctl };
	ssize_t k = recvmsg(fd, &m, 0);
	printf("%s: %zd bytes \"%.*s\" controllen %zu%s", what, k, (int)(k > 0 ? k : 0), data,
	       (size_t)m.msg_controllen, m.msg_flags & MSG_CTRUNC ? " CTRUNC" : "");
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c && !(m.msg_flags & MSG_CTRUNC); c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred u;
			memcpy(&u, CMSG_DATA(c), sizeof u);
			printf(" creds pid %s uid %d gid %d", u.pid == getpid() ? "self" : u.pid == 0 ? "0" : "other", (int)u.uid, (int)u.gid);
			if (u.pid != getpid() && u.pid != 0)
				printf(" (%d)", (int)u.pid);
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			printf(" rights %zu", (size_t)(c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
	}
	printf("\n");
	fflush(stdout);
}

/* say sends data on fd with the credentials pid (0: none stated) and,
 * fd >= 0 in pass, a descriptor. */
static void say(const char *what, int fd, const char *data, pid_t pid, int pass)
{
	char cbuf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
	memset(cbuf, 0, sizeof cbuf);
	struct iovec iov = { (void *)data, strlen(data) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t len = 0;
	if (pid) {
		struct cmsghdr *c = (struct cmsghdr *)cbuf;
		c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_CREDENTIALS, c->cmsg_len = CMSG_LEN(sizeof(struct ucred));
		struct ucred u = { pid, getuid(), getgid() };
		memcpy(CMSG_DATA(c), &u, sizeof u);
		len += CMSG_SPACE(sizeof u);
	}
	if (pass >= 0) {
		struct cmsghdr *c = (struct cmsghdr *)(cbuf + len);
		c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass, sizeof pass);
		len += CMSG_SPACE(sizeof(int));
	}
	m.msg_control = len ? cbuf : NULL;
	m.msg_controllen = len;
	errno = 0;
	ssize_t k = sendmsg(fd, &m, 0);
	int e = errno;
	printf("%s: sendmsg %zd %s\n", what, k, k < 0 ? strerrorname_np(e) : "ok");
	fflush(stdout);
}

int main(void)
{
	int on = 1, s[2], d[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, s);
	setsockopt(s[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
	int got = 0;
	socklen_t gl = sizeof got;
	getsockopt(s[0], SOL_SOCKET, SO_PASSCRED, &got, &gl);
	printf("SO_PASSCRED reads %d\n", got);
	write(s[1], "plain", 5);
	take("write", s[0], 256);
	say("stated", s[1], "stated", getpid(), -1);
	take("stated", s[0], 256);
	say("stated+rights", s[1], "both", getpid(), 1);
	take("stated+rights", s[0], 256);
	say("bad pid", s[1], "x", 99999, -1);
	write(s[1], "small", 5);
	take("small buffer", s[0], 16);
	/* two writers: the parent's bytes and the child's are not glued */
	write(s[1], "P", 1);
	pid_t kid = fork();
	if (kid == 0) {
		write(s[1], "C", 1);
		say("child stated", s[1], "c", getpid(), -1);
		say("child stating parent", s[1], "p", getppid(), -1);
		_exit(0);
	}
	waitpid(kid, NULL, 0);
	printf("child is %d\n", kid);
	take("first writer", s[0], 256);
	take("second writer", s[0], 256);
	take("child stating parent", s[0], 256);
	/* without SO_PASSCRED nothing comes, and writers' bytes glue */
	write(s[0], "ab", 2);
	write(s[0], "cd", 2);
	take("no passcred", s[1], 256);
	socketpair(AF_UNIX, SOCK_DGRAM, 0, d);
	setsockopt(d[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
	write(d[0], "dgram", 5);
	take("dgram", d[1], 256);
	return 0;
}
