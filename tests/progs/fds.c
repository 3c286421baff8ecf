// SPDX-License-Identifier: GPL-2.0
/*
 * A program that manages its own descriptors, as daemons do. Two threads
 * bounce a line (so the runtime has written samples, and opened whatever
 * it opens), then wait while main closes fds 0 and 3-1023, checks that its
 * next open() returns 0, opens its own file and dup2()s over fds up to 63;
 * then the threads bounce the line again and main writes 15 bytes to its
 * file. tests/cli/emulate-hazards.sh: the file must hold exactly those 15
 * bytes (a runtime descriptor closed under it and reused by the program's
 * open() took the samples' writes there: 15 bytes became 1 MiB), and both
 * halves' contention must be in the recording.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ITERS 200000

static struct {
	long a;
	long b;
} pair __attribute__((aligned(64)));
static pthread_barrier_t phase;

__attribute__((noinline)) static void bump(long *v)
{
	++*v;
}

static void *run(void *arg)
{
	long *v = arg;

	pthread_barrier_wait(&phase);
	for (long i = 0; i < ITERS; i++)
		bump(v);
	pthread_barrier_wait(&phase);   /* main rearranges the descriptors */
	pthread_barrier_wait(&phase);
	for (long i = 0; i < ITERS; i++)
		bump(v);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "fds.out";
	pthread_t t[2];
	int fd, first;

	pthread_barrier_init(&phase, NULL, 3);
	pthread_create(&t[0], NULL, run, &pair.a);
	pthread_create(&t[1], NULL, run, &pair.b);
	pthread_barrier_wait(&phase);
	pthread_barrier_wait(&phase);
	close(0);
	for (int i = 3; i < 1024; i++)
		close(i);
	first = open("/dev/null", O_RDONLY);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (first != 0 || fd < 0) {
		printf("first open %d, file %d\n", first, fd);
		return 1;
	}
	for (int i = 3; i < 64; i++)
		if (i != fd)
			dup2(first, i);
	pthread_barrier_wait(&phase);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	if (write(fd, "fifteen bytes.\n", 15) != 15)
		return 1;
	close(fd);
	printf("a %ld b %ld\n", pair.a, pair.b);
	return 0;
}
