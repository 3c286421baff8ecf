// SPDX-License-Identifier: GPL-2.0
/*
 * memtouch: touches memory of every keying kind in three processes so that a
 * page-fault recording with data addresses (perf record -e page-faults -d)
 * exercises the keying rule on real kernel records:
 *  - cow_data: a .data global written after fork: each process faults in its
 *    own copy-on-write page (private per pid; perf c2c merges them)
 *  - a MAP_SHARED file mapped separately in each process, at different
 *    addresses (one shared line at file offset 0x40)
 *  - MAP_SHARED|MAP_ANONYMOUS created before fork (shared, inherited)
 *  - a MAP_PRIVATE anonymous page mapped after fork (private per pid)
 * usage: memtouch FILE   (FILE is created, one page, removed at the end)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

int cow_data[1024] = { 1 };     /* initialized: lives in .data, not .bss */

static void touch(char *shanon, const char *path, int slot)
{
	int fd = open(path, O_RDWR);
	/* a throwaway mapping first so each process maps the file elsewhere */
	void *pad = mmap(NULL, PAGE * (slot + 1) * 3, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char *file, *priv;

	if (fd < 0 || pad == MAP_FAILED) {
		perror("memtouch");
		exit(1);
	}
	file = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	priv = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (file == MAP_FAILED || priv == MAP_FAILED) {
		perror("memtouch: mmap");
		exit(1);
	}
	close(fd);
	cow_data[520] = slot;           /* offset 0x820 of .data's array: COW fault */
	file[0x40] = slot;              /* shared file line at offset 0x40 */
	shanon[0x80] = slot;            /* inherited shared anon */
	priv[0x100] = slot;             /* private anon */
	printf("pid %d: file %p priv %p shanon %p cow %p\n", getpid(), (void *)file, (void *)priv,
	       (void *)shanon, (void *)&cow_data[520]);
}

int main(int argc, char **argv)
{
	char *shanon;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: memtouch FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, PAGE) < 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	shanon = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shanon == MAP_FAILED)
		return 1;
	for (int i = 1; i <= 2; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			touch(shanon, argv[1], i);
			return 0;
		}
		waitpid(pid, NULL, 0);
	}
	touch(shanon, argv[1], 0);
	unlink(argv[1]);
	return 0;
}
