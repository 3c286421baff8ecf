// SPDX-License-Identifier: GPL-2.0
/*
 * shm: two processes share a POSIX shared memory segment (/dev/shm) that
 * each maps on its own, at a different virtual address: one physical line,
 * two virtual addresses. perf c2c keys it by virtual address and sees two
 * lines; c2cscan keys it by (device, inode, offset) and sees one. With
 * "private" each process maps its own private anonymous page instead: two
 * unrelated lines.
 *
 * usage: shm [private] [ROUNDS]
 *
 * After every round the pages are dropped (MADV_DONTNEED; for the shared
 * segment only this process's mapping of it) so page-fault sampling sees
 * every round. Prints per process: pid P addr 0xADDR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096UL

static void child(const char *name, int slot, int priv, int rounds)
{
	/* a throwaway mapping first, so the two map the segment apart */
	void *pad = mmap(NULL, PAGE * (slot + 1) * 5, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *m;
	int fd = -1;

	if (!priv) {
		fd = shm_open(name, O_RDWR, 0600);
		if (fd < 0) {
			perror("shm_open");
			_exit(1);
		}
		m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (m == MAP_FAILED || pad == MAP_FAILED)
		_exit(1);
	printf("pid %d addr %p\n", getpid(), (void *)(m + 0x40 + slot * 8));
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		volatile long *p = (volatile long *)(m + 0x40 + slot * 8);

		for (int i = 0; i < 100000; i++)
			(*p)++;
		madvise(m, PAGE, MADV_DONTNEED);
		usleep(1000);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int priv = argc > 1 && !strcmp(argv[1], "private"), rounds = 20, fd;
	char name[64];

	if (argc > 1 + priv)
		rounds = atoi(argv[1 + priv]);
	snprintf(name, sizeof(name), "/c2cscan-shm-%d", getpid());
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, PAGE)) {
		perror("shm_open");
		return 1;
	}
	close(fd);
	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			child(name, i, priv, rounds);
	}
	while (wait(NULL) > 0)
		;
	shm_unlink(name);
	printf("%s: 2 processes, %d rounds\n", priv ? "private" : "shared segment", rounds);
	return 0;
}
