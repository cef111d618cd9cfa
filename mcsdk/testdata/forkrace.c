/* A fork race for weft check: parent and child each write one byte to a
 * pipe; the parent, after reaping the child, reads which came first. */
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include <string.h>
int order = 0; /* 1: the child wrote first, 2: the parent */
int main(void)
{
	int p[2];
	pipe(p);
	pid_t c = fork();
	if (c == 0) {
		write(p[1], "c", 1);
		_exit(0);
	}
	write(p[1], "p", 1);
	int st;
	waitpid(c, &st, 0);
	char b[2];
	read(p[0], b, 2);
	order = b[0] == 'c' ? 1 : 2;
	printf("first %c\n", b[0]);
	fflush(stdout);
	pause();
	return 0;
}
