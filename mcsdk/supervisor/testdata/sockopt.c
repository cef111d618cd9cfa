/* sockopt: sets (or, with "get", reads) one socket option given by level
 * and name on a TCP socket (AF_INET, or AF_INET6 with "6"), as a server
 * would: weft either serves it or ends the run naming it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

int main(int argc, char **argv) {
	if (argc < 4)
		return 2;
	int s = socket(strcmp(argv[3], "6") == 0 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	int level = atoi(argv[1]), name = atoi(argv[2]), v = 1;
	socklen_t len = sizeof v;
	int r = argc > 4 ? getsockopt(s, level, name, &v, &len) : setsockopt(s, level, name, &v, sizeof v);
	printf("option %d %d: %d\n", level, name, r);
	return 0;
}
