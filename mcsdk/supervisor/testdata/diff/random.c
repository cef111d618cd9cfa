/* random: the kernel's random sources. */
#include "probe.h"
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

static void hex(const char *what, const unsigned char *b, int n)
{
	char s[80];
	for (int i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", b[i]);
	VIRT("%s %s", what, s);
}

int main(void)
{
	unsigned char b[16];
	CHECK("getrandom(16)", getrandom(b, sizeof b, 0));
	hex("getrandom", b, 16);
	CHECK("getrandom(16, GRND_NONBLOCK)", getrandom(b, sizeof b, GRND_NONBLOCK));
	int fd = open("/dev/urandom", O_RDONLY);
	SAME("open(/dev/urandom) ok: %d", fd >= 0);
	CHECK("read(/dev/urandom, 16)", read(fd, b, sizeof b));
	hex("urandom", b, 16);
	CHECK("write(read-only /dev/urandom)", write(fd, b, sizeof b));
	struct stat st;
	CHECK("fstat(/dev/urandom)", fstat(fd, &st));
	SAME("/dev/urandom is a character device: %d", S_ISCHR(st.st_mode));
	SAME("F_GETFL %#x", fcntl(fd, F_GETFL));
	close(fd);
	fd = open("/dev/urandom", O_WRONLY);
	SAME("open(/dev/urandom, O_WRONLY) ok: %d", fd >= 0);
	SAME("write(/dev/urandom, 16) = %zd", write(fd, b, sizeof b));
	CHECK("read(write-only /dev/urandom)", read(fd, b, sizeof b));
	close(fd);
	fd = open("/dev/random", O_RDWR | O_NONBLOCK);
	SAME("F_GETFL %#x", fcntl(fd, F_GETFL));
	CHECK("fstat(/dev/random)", fstat(fd, &st));
	SAME("/dev/random: char %d, rdev %u:%u", S_ISCHR(st.st_mode), major(st.st_rdev), minor(st.st_rdev));
	struct iovec iov[2] = {{b, 4}, {b + 4, 12}};
	SAME("writev(/dev/urandom, 4+12) = %zd", writev(fd, iov, 2));
	CHECK("write(/dev/urandom, bad address)", write(fd, (void *)8, 16));
	close(fd);
	const unsigned char *at = (const unsigned char *)getauxval(AT_RANDOM);
	SAME("AT_RANDOM present: %d", at != NULL);
	if (at)
		hex("AT_RANDOM", at, 16);
	char u[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/uuid", "r");
	SAME("random/uuid opens: %d", f != NULL);
	if (f) {
		if (!fgets(u, sizeof u, f))
			u[0] = 0;
		fclose(f);
	}
	u[strcspn(u, "\n")] = 0;
	SAME("uuid length %zu", strlen(u));
	VIRT("uuid %s", u);
	return 0;
}
