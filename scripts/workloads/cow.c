// SPDX-License-Identifier: GPL-2.0
/*
 * cow: three processes write the same .data global of this (PIE)
 * executable after fork. Each write copies the page: every process has its
 * own copy at the same virtual address (MAP_PRIVATE file-backed), so there
 * is no sharing at all -- the classic false positive of perf c2c, which
 * merges them into one "contended" line. With "shared" the three write one
 * MAP_SHARED anonymous page created before fork instead: one line, truly
 * shared by the three.
 *
 * usage: cow [shared] [ROUNDS]
 *
 * After every round the page is dropped (MADV_DONTNEED), so the next write
 * faults (and copies) again for page-fault sampling. Prints per process:
 *   pid P addr 0xADDR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096UL

long cow_data[1024] = { 1 };   /* initialized: in .data, file-backed */

static void child(volatile long *p, int rounds)
{
	void *pg = (void *)((uintptr_t)p & ~(PAGE - 1));

	printf("pid %d addr %p\n", getpid(), (void *)p);
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 100000; i++)
			(*p)++;
		madvise(pg, PAGE, MADV_DONTNEED);
		usleep(1000);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int shared = argc > 1 && !strcmp(argv[1], "shared"), rounds = 20;
	volatile long *p = &cow_data[520];      /* a line in the middle of a page */

	if (argc > 1 + shared)
		rounds = atoi(argv[1 + shared]);
	if (shared) {
		char *m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return 1;
		p = (volatile long *)(m + 0x820);
	}
	for (int i = 0; i < 3; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			child(p, rounds);
	}
	while (wait(NULL) > 0)
		;
	printf("%s: 3 processes, %d rounds\n", shared ? "shared" : "copy-on-write", rounds);
	return 0;
}
