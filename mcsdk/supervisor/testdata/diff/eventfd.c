/* eventfd: counters (eventfd, eventfd2, EFD_SEMAPHORE, EFD_NONBLOCK). */
#include "probe.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
	uint64_t v = 0;
	int e = eventfd(3, EFD_NONBLOCK | EFD_CLOEXEC);
	struct stat st;
	CHECK("fstat(eventfd)", fstat(e, &st));
	SAME("eventfd mode %#o, F_GETFL %#x", st.st_mode, fcntl(e, F_GETFL));
	SAME("eventfd ok: %d", e >= 0);
	SAME("cloexec %d nonblock %d", (fcntl(e, F_GETFD) & FD_CLOEXEC) != 0, (fcntl(e, F_GETFL) & O_NONBLOCK) != 0);
	CHECK("read", read(e, &v, 8));
	SAME("value %llu", (unsigned long long)v);
	CHECK("read(zero, nonblocking)", read(e, &v, 8));
	CHECK("read(4 bytes)", read(e, &v, 4));
	v = 5;
	CHECK("write 5", write(e, &v, 8));
	v = 7;
	CHECK("write 7", write(e, &v, 8));
	CHECK("write(4 bytes)", write(e, &v, 4));
	v = UINT64_MAX;
	CHECK("write(UINT64_MAX)", write(e, &v, 8));
	v = UINT64_MAX - 1;
	CHECK("write(overflow, nonblocking)", write(e, &v, 8));
	CHECK("read", read(e, &v, 8));
	SAME("value %llu", (unsigned long long)v);
	int s = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
	CHECK("read(semaphore)", read(s, &v, 8));
	SAME("value %llu", (unsigned long long)v);
	CHECK("read(semaphore)", read(s, &v, 8));
	SAME("value %llu", (unsigned long long)v);
	CHECK("read(semaphore, zero)", read(s, &v, 8));
	CHECK("eventfd2(bad flags)", eventfd(0, 0x1234567));
	CHECK("lseek", lseek(s, 0, SEEK_SET));
	int d = dup(s);
	v = 1;
	CHECK("write(dup)", write(d, &v, 8));
	CHECK("read(original)", read(s, &v, 8));
	CHECK("close", close(s));
	CHECK("close(dup)", close(d));
	return 0;
}
